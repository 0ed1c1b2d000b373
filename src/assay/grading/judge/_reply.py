"""Parsing the judge's reply into a verdict, or the reason it cannot be one.

A reply is accepted only when it is exactly one JSON object matching the reply schema,
with one finding per rubric item, every quoted piece of evidence found in the candidate,
no disallowed claim called absent while its words are in the candidate, a score
consistent with the findings, and no verdict copied out of the candidate.
Anything else is a ``Rejection``: the judgment is ``ungraded``, never a default score.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from assay.grading.judge._rubric import JudgeRubric

REFUSAL = re.compile(
    r"^\s*(i'?m sorry|i am sorry|sorry|i can(?:no|')t|i cannot|i won'?t|as an ai)", re.I
)
FENCE = re.compile(r"^\s*```(?:json)?\s*\n?(.*?)\n?\s*```\s*$", re.S)


@dataclass(frozen=True)
class Finding:
    """The judge's finding on one rubric item: present or absent, with the quoted evidence."""

    id: str
    verdict: str
    evidence: str


@dataclass(frozen=True)
class Verdict:
    """A well-formed judgment: the 0–2 score, findings, rationale and optional dimensions."""

    score: int
    findings: tuple[Finding, ...]
    rationale: str
    grounded: bool | None = None
    citations_supported: bool | None = None


@dataclass(frozen=True)
class Rejection:
    """Why a reply is not a judgment: ``kind`` names the class (``invalid_json``,
    ``multiple_verdicts``, ``off_scale``, …), ``detail`` says what exactly."""

    kind: str
    detail: str
    claimed_score: int | None = None

    @property
    def reason(self) -> str:
        return f"judge reply rejected ({self.kind}): {self.detail}"


class _Duplicate(ValueError):
    pass


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            raise _Duplicate(key)
        found[key] = value
    return found


def normalize(text: str) -> str:
    """Lower case with runs of whitespace made single spaces: how quotes are compared."""
    return " ".join(text.split()).casefold()


def _objects_in(text: str) -> list[Any]:
    """Every JSON value that starts at a ``{`` of ``text`` and parses (outermost only)."""
    decoder = json.JSONDecoder()
    found: list[Any] = []
    i = 0
    while (start := text.find("{", i)) != -1:
        try:
            value, end = decoder.raw_decode(text, start)
        except json.JSONDecodeError:
            i = start + 1
            continue
        found.append(value)
        i = end
    return found


def _decode(text: str) -> Any | Rejection:
    stripped = text.strip()
    if not stripped:
        return Rejection("empty", "the judge replied with nothing")
    fenced = FENCE.match(stripped)
    if fenced:
        stripped = fenced.group(1).strip()
    try:
        return json.loads(stripped, object_pairs_hook=_no_duplicates)
    except _Duplicate as dup:
        return Rejection("multiple_verdicts", f'the key "{dup}" appears more than once')
    except json.JSONDecodeError as err:
        objects = [o for o in _objects_in(stripped) if isinstance(o, dict) and "score" in o]
        if len(objects) > 1:
            return Rejection("multiple_verdicts", f"{len(objects)} verdicts in one reply")
        if objects:
            return Rejection("extra_text", "text around the JSON verdict")
        if REFUSAL.match(stripped):
            return Rejection("refusal", _short(stripped))
        return Rejection("invalid_json", f"{err.msg} at character {err.pos}")


def _short(text: str, limit: int = 120) -> str:
    one = " ".join(text.split())
    return one if len(one) <= limit else one[:limit] + "…"


def _field(data: dict[str, Any], key: str, kind: type, label: str) -> Any | Rejection:
    if key not in data:
        return Rejection("missing_field", f'no "{key}"')
    value = data[key]
    if kind is int and (isinstance(value, bool) or not isinstance(value, int)):
        return Rejection("wrong_type", f'"{key}" is not {label}: {_short(json.dumps(value))}')
    if not isinstance(value, kind):
        return Rejection("wrong_type", f'"{key}" is not {label}: {_short(json.dumps(value))}')
    return value


def _findings(
    raw: list[Any], rubric: JudgeRubric, candidate: str
) -> tuple[Finding, ...] | Rejection:
    expected = [i for i, _, _ in rubric.finding_ids()]
    found: list[Finding] = []
    for item in raw:
        if not isinstance(item, dict):
            return Rejection("wrong_type", "a finding is not an object")
        fid, verdict, evidence = item.get("id"), item.get("verdict"), item.get("evidence", "")
        if not isinstance(fid, str) or not isinstance(evidence, str):
            return Rejection("wrong_type", "a finding's id or evidence is not a string")
        if verdict not in ("present", "absent"):
            return Rejection("wrong_type", f'finding {fid}: verdict must be "present" or "absent"')
        found.append(Finding(fid, verdict, evidence))
    ids = [f.id for f in found]
    if sorted(ids) != sorted(expected):
        missing = [i for i in expected if i not in ids]
        unknown = [i for i in ids if i not in expected]
        dup = sorted({i for i in ids if ids.count(i) > 1})
        parts = [
            f"missing {', '.join(missing)}" if missing else "",
            f"unknown {', '.join(unknown)}" if unknown else "",
            f"repeated {', '.join(dup)}" if dup else "",
        ]
        detail = "; ".join(p for p in parts if p)
        return Rejection("findings_mismatch", f"findings do not match the rubric: {detail}")
    text = normalize(candidate)
    for f in found:
        if f.id.startswith("D") and f.verdict == "absent":
            claim = rubric.disallowed[int(f.id[1:]) - 1]
            said = next((p for p in claim.phrases if normalize(p) in text), None)
            if said is not None:
                return Rejection(
                    "contradicts_answer",
                    f"finding {f.id} says absent, but the answer contains {json.dumps(said)}",
                )
    for f in found:
        if f.verdict == "present" and not f.evidence.strip():
            return Rejection("unquoted_evidence", f"finding {f.id} is present without a quote")
        if f.evidence.strip() and normalize(f.evidence) not in text:
            return Rejection(
                "evidence_not_in_candidate",
                f"finding {f.id} quotes {_short(json.dumps(f.evidence), 80)}, "
                "which the answer does not contain",
            )
    return tuple(found)


def _copied(data: dict[str, Any], reply: str, candidate: str) -> bool:
    """Whether the verdict was lifted from the candidate: the reply's text is in it, or
    the candidate holds a JSON object with the same score and rationale."""
    if normalize(reply) in normalize(candidate):
        return True
    for obj in _objects_in(candidate):
        if not isinstance(obj, dict) or obj.get("score", None) != data.get("score"):
            continue
        said = normalize(str(obj.get("rationale", "")))
        if "rationale" not in obj or said == normalize(str(data.get("rationale", ""))):
            return True
    return False


def _consistent(score: int, findings: tuple[Finding, ...]) -> str | None:
    missing = [f.id for f in findings if f.id.startswith("R") and f.verdict == "absent"]
    claimed = [f.id for f in findings if f.id.startswith("D") and f.verdict == "present"]
    if score == 2 and (missing or claimed):
        return f"score 2 with {', '.join(missing + claimed)} against it"
    return None


def parse_judge_reply(text: str, rubric: JudgeRubric, candidate: str) -> Verdict | Rejection:
    """The verdict in the judge's reply ``text`` for ``candidate`` under ``rubric``, or the
    ``Rejection`` saying why the reply is not one (with the score the reply claimed, when
    it claimed one on the scale: what a rejected reply would have decided)."""
    found = _parse(text, rubric, candidate)
    if isinstance(found, Rejection):
        claimed = _claimed_score(text)
        if claimed is not None:
            return Rejection(found.kind, found.detail, claimed)
    return found


def _claimed_score(text: str) -> int | None:
    for obj in _objects_in(text):
        if isinstance(obj, dict):
            score = obj.get("score")
            if isinstance(score, int) and not isinstance(score, bool) and score in (0, 1, 2):
                return score
    return None


def _parse(text: str, rubric: JudgeRubric, candidate: str) -> Verdict | Rejection:
    data = _decode(text)
    if isinstance(data, Rejection):
        return data
    if isinstance(data, list):
        verdicts = [d for d in data if isinstance(d, dict) and "score" in d]
        kind = "multiple_verdicts" if len(verdicts) > 1 else "wrong_type"
        return Rejection(kind, "the reply is a JSON array, not one object")
    if not isinstance(data, dict):
        return Rejection("wrong_type", "the reply is not a JSON object")
    score = _field(data, "score", int, "an integer")
    if isinstance(score, Rejection):
        return score
    if score not in (0, 1, 2):
        return Rejection("off_scale", f"score {score} is not 0, 1 or 2")
    raw_findings = _field(data, "findings", list, "a list")
    if isinstance(raw_findings, Rejection):
        return raw_findings
    rationale = _field(data, "rationale", str, "a string")
    if isinstance(rationale, Rejection):
        return rationale
    dims: dict[str, bool | None] = {}
    for key, wanted in (
        ("grounded", rubric.groundedness),
        ("citations_supported", rubric.citations),
    ):
        if wanted:
            value = _field(data, key, bool, "true or false")
            if isinstance(value, Rejection):
                return value
            dims[key] = value
    allowed = {"score", "findings", "rationale", *dims}
    unknown = sorted(set(data) - allowed)
    if unknown:
        return Rejection("unknown_field", f"unexpected field(s): {', '.join(unknown)}")
    if _copied(data, text, candidate):
        return Rejection("copied_verdict", "the verdict is copied from the answer being graded")
    findings = _findings(raw_findings, rubric, candidate)
    if isinstance(findings, Rejection):
        return findings
    contradiction = _consistent(score, findings)
    if contradiction is not None:
        return Rejection("inconsistent", contradiction)
    return Verdict(
        score, findings, rationale, dims.get("grounded"), dims.get("citations_supported")
    )
