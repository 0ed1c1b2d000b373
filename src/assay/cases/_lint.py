"""Dataset rules beyond the schema: duplicates, unsupported labels, leakage, review state.

Each rule yields ``Finding`` values located by file and line, each with a fix. The schema
itself is checked while parsing (``parse_case``); ``lint_cases`` runs on the valid cases.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from assay.cases._case import Case
from assay.cases._near import Cluster, case_input, normalize_input
from assay.cases._sources import SourceLibrary
from assay.cases._split import find_leaks
from assay.errors import Location

Severity = Literal["error", "warning"]
REVIEW_PENDING = "pending"
"""``metadata.review`` of a candidate case no one has reviewed yet (``assay cases from-run``)."""


@dataclass(frozen=True)
class Finding:
    """One problem with a dataset: a stable ``code``, where, what, and how to fix it."""

    code: str
    severity: Severity
    location: Location | None
    message: str
    fix: str
    case_id: str | None = None

    def as_json(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "severity": self.severity,
            "location": str(self.location) if self.location is not None else None,
            "case": self.case_id,
            "message": self.message,
            "fix": self.fix,
        }


class _Where:
    def __init__(self, cases: Sequence[Case], locations: Sequence[Location | None]) -> None:
        self.cases = cases
        self.locations = locations

    def at(self, index: int) -> Location | None:
        return self.locations[index] if index < len(self.locations) else None


def _duplicate_ids(w: _Where) -> list[Finding]:
    first: dict[str, int] = {}
    found = []
    for i, case in enumerate(w.cases):
        if case.id in first:
            found.append(
                Finding(
                    "duplicate-id",
                    "error",
                    w.at(i),
                    f"case id {case.id} is already used at {w.at(first[case.id])}",
                    "give every case a unique, stable id",
                    case.id,
                )
            )
        else:
            first[case.id] = i
    return found


def _duplicates(w: _Where, clusters: Sequence[Cluster]) -> list[Finding]:
    found = []
    for cluster in clusters:
        seen: dict[str, int] = {}
        head = cluster.members[0]
        for member in cluster.members:
            case = w.cases[member.index]
            norm = normalize_input(case_input(case))
            if norm in seen:
                twin = w.cases[seen[norm]]
                if _derived_from(case, twin):
                    continue
                found.append(
                    Finding(
                        "exact-duplicate",
                        "error",
                        w.at(member.index),
                        f"case {case.id} puts the same input as case {twin.id} "
                        f"({w.at(seen[norm])})",
                        "remove one of them (assay dedupe --write) or change the input",
                        case.id,
                    )
                )
                continue
            seen[norm] = member.index
            if member is not head:
                found.append(
                    Finding(
                        "near-duplicate",
                        "warning",
                        w.at(member.index),
                        f"case {case.id} is a near-duplicate of case {head.case_id} "
                        f"(similarity {member.similarity:.2f})",
                        "keep one of them, or make sure they test different things",
                        case.id,
                    )
                )
    return found


def _derived_from(case: Case, twin: Case) -> bool:
    """A synthetic copy of ``twin`` (``assay synthesize``) asks its question on purpose."""
    return (
        case.synthetic and case.provenance is not None and (case.provenance.source_case == twin.id)
    )


def _conflicts(w: _Where) -> list[Finding]:
    by_input: dict[str, list[int]] = {}
    for i, case in enumerate(w.cases):
        by_input.setdefault(normalize_input(case_input(case)), []).append(i)
    found = []
    for indexes in by_input.values():
        for i in indexes[1:]:
            a, b = w.cases[indexes[0]], w.cases[i]
            if _derived_from(b, a):
                continue
            if a.expected_behavior != b.expected_behavior:
                found.append(_conflict(w, i, a, f"expects {b.expected_behavior}", a.id))
                continue
            for alt in b.accepted_facts:
                if alt not in a.facts:
                    found.append(
                        _conflict(w, i, a, f"accepts '{alt}', which case {a.id} does not", a.id)
                    )
            for alt in a.accepted_facts:
                if alt not in b.facts:
                    found.append(
                        _conflict(w, i, a, f"does not accept '{alt}', which case {a.id} does", a.id)
                    )
            if a.expected_fact != b.expected_fact and not (a.facts & b.facts):
                found.append(
                    _conflict(
                        w,
                        i,
                        a,
                        f"expects '{b.expected_fact}' where {a.id} expects '{a.expected_fact}'",
                        a.id,
                    )
                )
    return found


def _conflict(w: _Where, index: int, other: Case, what: str, other_id: str) -> Finding:
    case = w.cases[index]
    code = "conflicting-alternative" if "accept" in what else "conflicting-label"
    return Finding(
        code,
        "error",
        w.at(index),
        f"case {case.id} asks the same question as case {other_id} but {what}",
        "agree on one label, listing every defensible answer in accepted_facts of both",
        case.id,
    )


def _sources(w: _Where, sources: SourceLibrary) -> list[Finding]:
    found = []
    for i, case in enumerate(w.cases):
        if (
            case.sources is None
            and case.source_revision is not None
            and sources.revisions
            and case.source_revision not in sources.revisions
        ):
            known = ", ".join(sorted(sources.revisions))
            found.append(
                Finding(
                    "unknown-source-revision",
                    "error",
                    w.at(i),
                    f"case {case.id}: source_revision '{case.source_revision}' is not in "
                    f"the source snapshot (it has: {known})",
                    "fix the revision, or add that snapshot to the sources file",
                    case.id,
                )
            )
            continue
        snapshot = sources.snapshot_for(case)
        if case.expected_behavior != "answer" or not case.required or snapshot is None:
            continue
        texts = list(snapshot.values())
        for fact in case.required:
            if not any(_states(t, fact.phrases) for t in texts):
                found.append(
                    Finding(
                        "unsupported-fact",
                        "error",
                        w.at(i),
                        f"case {case.id}: no source section states the required fact "
                        f"'{fact.fact}' (nor its variations)",
                        "fix the label, add the variation the source uses, or fix the source",
                        case.id,
                    )
                )
    return found


def _states(text: str, phrases: Sequence[str]) -> bool:
    haystack = f" {normalize_input(text)} "
    return any(normalize_input(p) and f" {normalize_input(p)} " in haystack for p in phrases)


def _generated(case: Case) -> bool:
    meta = case.metadata
    origin = meta.get("origin")
    return bool(
        meta.get("generated")
        or meta.get("generator")
        or (isinstance(origin, str) and origin.lower().startswith(("generated", "synthetic")))
    )


def _per_case(w: _Where, strict: bool) -> list[Finding]:
    found = []
    for i, case in enumerate(w.cases):
        if not (case.rationale or "").strip():
            found.append(
                Finding(
                    "missing-rationale",
                    "error" if strict else "warning",
                    w.at(i),
                    f"case {case.id} has no rationale",
                    "record why this label is right, so reviewers can resolve disagreements",
                    case.id,
                )
            )
        if _generated(case) and not case.synthetic:
            found.append(
                Finding(
                    "unflagged-synthetic",
                    "error",
                    w.at(i),
                    f"case {case.id} was generated (metadata says so) but is not synthetic",
                    "set synthetic: true, so it is reported apart from real cases",
                    case.id,
                )
            )
        if case.metadata.get("review") == REVIEW_PENDING:
            origin = case.metadata.get("origin")
            found.append(
                Finding(
                    "unreviewed",
                    "error",
                    w.at(i),
                    f"case {case.id} is a candidate awaiting review"
                    + (f" ({origin})" if origin else ""),
                    "check its label, write its rationale, then set metadata.review: done",
                    case.id,
                )
            )
    return found


def _leakage(w: _Where, clusters: Sequence[Cluster]) -> list[Finding]:
    index = {c.id: i for i, c in enumerate(w.cases)}
    found = []
    for leak in find_leaks(w.cases, clusters):
        what = (
            f"group '{leak.name}'"
            if leak.kind == "group"
            else (f"near-duplicate cluster of {leak.name}")
        )
        for case_id in leak.heldout:
            found.append(
                Finding(
                    "leakage",
                    "error",
                    w.at(index[case_id]),
                    f"held-out case {case_id} shares {what} with dev case(s) {', '.join(leak.dev)}",
                    "put the whole group or cluster on one side (assay split reassigns it)",
                    case_id,
                )
            )
    return found


def lint_cases(
    cases: Sequence[Case],
    locations: Sequence[Location | None],
    clusters: Sequence[Cluster],
    sources: SourceLibrary,
    strict: bool = False,
) -> tuple[Finding, ...]:
    """Every rule's findings on valid ``cases`` (ids may repeat), in file order."""
    w = _Where(cases, locations)
    found = [
        *_duplicate_ids(w),
        *_duplicates(w, clusters),
        *_conflicts(w),
        *_sources(w, sources),
        *_per_case(w, strict),
        *_leakage(w, clusters),
    ]

    def order(f: Finding) -> tuple[str, int]:
        loc = f.location
        return (loc.file if loc else "", loc.line or 0 if loc else 0)

    return tuple(sorted(found, key=order))
