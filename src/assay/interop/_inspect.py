"""Reading inspect_ai logs (``.eval`` zip archives and ``.json`` files) into an assay run."""

from __future__ import annotations

import json
import zipfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from assay.cases import Case, Dataset
from assay.errors import MAX_TRIALS, AssayInputError, Location
from assay.grading import Judgment, Status
from assay.interop._archive import ZipMembers, looks_like_zip
from assay.interop._imported import ImportedRun, Source, file_sha256, parse_time
from assay.interop._inspect_steps import resolve as _resolve
from assay.interop._inspect_steps import text as _text
from assay.interop._inspect_steps import trajectory_from_sample
from assay.interop._scores import ScoreRule, map_score
from assay.load import file_refusal
from assay.outcomes import (
    OUTCOME_ADAPTER,
    TRAJECTORY_KEY,
    Abstain,
    Answer,
    Error,
    Record,
    Usage,
    check_trial_numbers,
    trajectory_extra,
)

ASSAY_KEY = "assay"  # where a log exported by assay keeps each sample's case and outcome
_OUTCOME = OUTCOME_ADAPTER

TOOL = "inspect_ai"
LOG_VERSION = 2  # the log format inspect_ai writes (0.3.41 to 0.3.285 at least, as tested)
MAX_MEMBER_BYTES = 256 * 1024 * 1024


def _bad(path: Path, message: str) -> AssayInputError:
    return AssayInputError(f"{path}: {message}")


def _read_zip_json(path: Path, archive: ZipMembers, name: str) -> Any:
    try:
        return json.loads(archive.read(name).decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise _bad(path, f"member {name} is not valid JSON ({exc})") from None


def read_log(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The log's header (``eval``, ``results``, ``status``…) and its samples."""
    refusal = file_refusal(path)
    if refusal is not None:
        raise AssayInputError(f"{path}: {refusal}")
    if zipfile.is_zipfile(path):
        with ZipMembers(path, max_member_bytes=MAX_MEMBER_BYTES) as archive:
            names = set(archive.names)
            if "header.json" in names:
                header = _read_zip_json(path, archive, "header.json")
            elif "_journal/start.json" in names:  # a run that never finished
                header = _read_zip_json(path, archive, "_journal/start.json")
            else:
                raise _bad(path, "not an inspect .eval log (no header.json in the archive)")
            samples = [
                _read_zip_json(path, archive, n)
                for n in sorted(names)
                if n.startswith("samples/") and n.endswith(".json")
            ]
    elif looks_like_zip(path):
        raise _bad(path, "a damaged or truncated zip archive (its central directory is missing)")
    else:
        try:
            header = json.loads(path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise _bad(path, f"cannot be read: {exc.strerror or exc}") from None
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            message = f"not an inspect log: neither a .eval archive nor JSON ({exc})"
            raise _bad(path, message) from None
        if not isinstance(header, dict):
            raise _bad(path, "not an inspect log: the JSON is not an object")
        samples = header.get("samples") or []
    if not isinstance(header, dict) or not isinstance(header.get("eval"), dict):
        raise _bad(path, "not an inspect log: field 'eval' is missing")
    if not isinstance(samples, list) or not all(isinstance(s, dict) for s in samples):
        raise _bad(path, "field 'samples' is not a list of objects")
    return header, samples


def _question(sample: dict[str, Any], attachments: dict[str, Any]) -> str:
    raw = _resolve(sample.get("input"), attachments)
    if isinstance(raw, list):
        users = [m for m in raw if isinstance(m, dict) and m.get("role") == "user"]
        chosen = users[-1] if users else (raw[-1] if raw else {})
        return _text(chosen.get("content") if isinstance(chosen, dict) else chosen, attachments)
    return _text(raw, attachments)


def _target(sample: dict[str, Any]) -> str:
    raw = sample.get("target")
    if isinstance(raw, list):
        return " | ".join(str(t) for t in raw)
    return "" if raw is None else str(raw)


def _completion(sample: dict[str, Any], attachments: dict[str, Any]) -> str | None:
    output = sample.get("output")
    if not isinstance(output, dict):
        return None
    if isinstance(output.get("completion"), str):
        return str(output["completion"])
    choices = output.get("choices")
    if isinstance(choices, list) and choices and isinstance(choices[0], dict):
        message = choices[0].get("message")
        if isinstance(message, dict):
            return _text(message.get("content"), attachments)
    return None


def _usage(sample: dict[str, Any]) -> Usage | None:
    used = sample.get("model_usage")
    if not isinstance(used, dict) or not used:
        return None
    inputs = sum(int(u.get("input_tokens") or 0) for u in used.values() if isinstance(u, dict))
    outputs = sum(int(u.get("output_tokens") or 0) for u in used.values() if isinstance(u, dict))
    return Usage(input_tokens=inputs, output_tokens=outputs)


def _scores(sample: dict[str, Any]) -> dict[str, dict[str, Any]]:
    scores = sample.get("scores")
    if isinstance(scores, dict):
        return {str(k): v for k, v in scores.items() if isinstance(v, dict)}
    single = sample.get("score")  # logs written before multiple scorers
    return {"score": single} if isinstance(single, dict) else {}


def _scorer_names(header: dict[str, Any], samples: Iterable[dict[str, Any]]) -> list[str]:
    names: list[str] = []
    results = header.get("results") or {}
    for entry in results.get("scores") or []:
        if isinstance(entry, dict) and entry.get("name"):
            names.append(str(entry["name"]))
    for entry in header["eval"].get("scorers") or []:
        if isinstance(entry, dict) and entry.get("name"):
            names.append(str(entry["name"]))
    for sample in samples:
        names.extend(_scores(sample))
    return list(dict.fromkeys(names))


def _reported(header: dict[str, Any], scorer: str | None, scored: int) -> str:
    """What inspect itself said: the scorer's headline metric over its scored samples."""
    results = header.get("results") or {}
    for entry in results.get("scores") or []:
        if not isinstance(entry, dict) or entry.get("name") != scorer:
            continue
        metrics = entry.get("metrics") or {}
        metric = metrics.get("accuracy") or next(iter(metrics.values()), None)
        if isinstance(metric, dict) and isinstance(metric.get("value"), int | float):
            counted = entry.get("scored_samples", scored)
            return (
                f"inspect reported {scorer} {metric.get('name', 'accuracy')} "
                f"{metric['value']:.3f} ({counted} of {results.get('total_samples', '?')} "
                "samples scored)"
            )
    if not results.get("scores"):
        return "inspect reported no scores (its results list none)"
    return f"inspect reported no metric for {scorer}"


def _exported_cases(evaluation: dict[str, Any], samples: list[dict[str, Any]]) -> dict[str, Case]:
    """The case definitions a log exported by assay carries, by id (none for other logs)."""
    found: list[Any] = list((evaluation.get("metadata") or {}).get("assay_missing_cases") or [])
    for sample in samples:
        carried = (sample.get("metadata") or {}).get(ASSAY_KEY)
        if isinstance(carried, dict) and isinstance(carried.get("case"), dict):
            found.append(carried["case"])
    cases: dict[str, Case] = {}
    for raw in found:
        try:
            case = Case.model_validate(raw)
        except ValidationError:
            continue  # not assay's: the sample's own fields describe the case
        cases.setdefault(case.id, case)
    return cases


def _exported_outcome(sample: dict[str, Any]) -> Answer | Abstain | Error | None:
    carried = (sample.get("metadata") or {}).get(ASSAY_KEY)
    raw = carried.get("outcome") if isinstance(carried, dict) else None
    if not isinstance(raw, dict):
        return None
    try:
        return _OUTCOME.validate_python(raw)
    except ValidationError:
        return None


def _sample_id(value: Any) -> str:
    return str(value)


def import_inspect(path: Path, *, rule: ScoreRule, scorer: str | None = None) -> ImportedRun:
    """Every sample and epoch of an inspect_ai log as an assay run.

    Samples that raised are ``error``; samples without a value for the chosen scorer are
    ``ungraded``; samples the log's dataset lists but the log lacks (a cancelled or
    limited run) are ``missing``. The first scorer of the log is used unless ``scorer``
    names another; every scorer's values stay in each record's ``extra``.
    """
    header, samples = read_log(path)
    evaluation = header["eval"]
    version = (evaluation.get("packages") or {}).get(TOOL)
    names = _scorer_names(header, samples)
    if scorer is not None and scorer not in names:
        raise AssayInputError(
            f"{path}: no scorer {scorer!r} in this log; it has "
            f"{', '.join(names) if names else 'no scorers'}"
        )
    chosen = scorer or (names[0] if names else None)
    task = str(evaluation.get("task") or "inspect")
    dataset_info = evaluation.get("dataset") or {}
    config = evaluation.get("config") or {}
    epochs = max(
        [int(config.get("epochs") or 1)]
        + [int(s.get("epoch") or 1) for s in samples if isinstance(s.get("epoch"), int)]
    )
    listed = [_sample_id(i) for i in dataset_info.get("sample_ids") or []]
    by_id: dict[str, dict[str, Any]] = {}
    for sample in samples:
        by_id.setdefault(_sample_id(sample.get("id")), sample)
    order = list(dict.fromkeys([*listed, *by_id]))
    exported = _exported_cases(evaluation, samples)
    cases = []
    for case_id in order:
        recorded = by_id.get(case_id)
        if case_id in exported:
            cases.append(exported[case_id])
            continue
        if recorded is None:
            cases.append(
                Case(
                    id=case_id,
                    slice=task,
                    question=f"(sample {case_id}: listed by the log's dataset, never recorded)",
                    expected_behavior="answer",
                    expected_fact="(unknown: not in the log)",
                    metadata={"inspect": {"recorded": False}},
                )
            )
            continue
        attachments = recorded.get("attachments") or {}
        extra_meta: dict[str, Any] = {}
        if recorded.get("metadata"):
            extra_meta["metadata"] = recorded["metadata"]
        if recorded.get("choices"):
            extra_meta["choices"] = recorded["choices"]
        cases.append(
            Case(
                id=case_id,
                slice=task,
                question=_question(recorded, attachments) or "(empty input)",
                expected_behavior="answer",
                expected_fact=_target(recorded) or "(no target)",
                metadata={"inspect": extra_meta} if extra_meta else {},
            )
        )
    records: list[Record] = []
    judgments: list[Judgment] = []
    grader = f"{TOOL}:{chosen}" if chosen else TOOL
    scored = set()
    for sample in samples:
        case_id = _sample_id(sample.get("id"))
        epoch = int(sample.get("epoch") or 1)
        attachments = sample.get("attachments") or {}
        scores = _scores(sample)
        extra: dict[str, Any] = {}
        if scores:
            extra["inspect_scores"] = {
                name: {k: s.get(k) for k in ("value", "answer", "explanation") if k in s}
                for name, s in scores.items()
            }
        if isinstance(sample.get("limit"), dict):  # a limit ended it; its score still stands
            extra["inspect_limit"] = sample["limit"]
        steps = trajectory_from_sample(sample)
        if steps is not None:
            extra[TRAJECTORY_KEY] = trajectory_extra(steps)
        error = sample.get("error")
        restored = _exported_outcome(sample)
        if restored is not None:
            outcome: Answer | Abstain | Error = restored
        elif error:
            message = error.get("message") if isinstance(error, dict) else str(error)
            outcome = Error(error_class="inspect_error", message=str(message))
        else:
            text = _completion(sample, attachments)
            outcome = (
                Answer(text=text)
                if text is not None
                else Error(error_class="no_output", message="inspect recorded no model output")
            )
        records.append(
            Record(
                case_id=case_id,
                trial=epoch,
                outcome=outcome,
                usage=_usage(sample),
                latency_ms=(
                    float(sample["total_time"]) * 1000
                    if isinstance(sample.get("total_time"), int | float)
                    else None
                ),
                extra=extra,
            )
        )
        if error:
            continue
        found = scores.get(chosen) if chosen else None
        status: Status
        if found is None or "value" not in found:
            status, reason, value = "ungraded", f"inspect recorded no {chosen or 'score'}", None
        else:
            status, reason = map_score(chosen or "score", found["value"], rule)
            value = found["value"]
            scored.add(case_id)
            if found.get("answer") is not None:
                reason += f"; answer {str(found['answer'])[:80]!r}"
        judgments.append(
            Judgment(
                case_id=case_id,
                trial=epoch,
                status=status,
                reason=reason,
                grader=grader,
                grader_version=str(version or "unknown"),
                score=float(value) if isinstance(value, int | float) else None,
            )
        )
    check_trial_numbers(records, [Location(f"{path} (sample epoch)")] * len(records))
    if epochs > MAX_TRIALS:
        raise AssayInputError(
            f"{path}: eval.config.epochs is {epochs:,}; a run numbers at most {MAX_TRIALS:,} "
            "trials a case (as a suite declares)"
        )
    notes = []
    if header.get("version") != LOG_VERSION:
        notes.append(
            f"the log's format version is {header.get('version', 'not stated')}; assay reads "
            f"version {LOG_VERSION} and read this log as if it were"
        )
    log_status = str(header.get("status") or "unknown")
    if log_status != "success":
        notes.append(f"the log's status is {log_status}")
    absent = [c for c in listed if c not in by_id]
    if absent:
        notes.append(
            f"{len(absent)} sample(s) the log's dataset lists were never recorded: missing"
        )
    total = dataset_info.get("samples")
    if isinstance(total, int) and total > len(order):
        notes.append(
            f"the task's dataset has {total} samples; this run covered {len(order)} "
            f"(limit {config.get('limit', 'unknown')}), so the rest are outside the run"
        )
    writer = (evaluation.get("packages") or {}).get("assay")
    if writer and not version:
        notes.append(f"written by assay {writer} (assay export), not by inspect itself")
    if chosen and len(names) > 1:
        notes.append(f"status from scorer {chosen}; every scorer's values kept per record")
    stats = header.get("stats") or {}
    run_status = {"success": "completed", "cancelled": "interrupted"}.get(log_status, "failed")
    return ImportedRun(
        dataset=Dataset(name=str(dataset_info.get("name") or task), cases=tuple(cases)),
        records=tuple(records),
        judgments=tuple(judgments),
        trials=epochs,
        source=Source(
            tool=TOOL,
            tool_version=version,
            path=str(path),
            sha256=file_sha256(path),
            reported=_reported(header, chosen, len(scored)),
            notes=tuple(notes),
        ),
        target={"type": "inspect", "model": evaluation.get("model"), "task": task},
        grader={"name": grader, "version": str(version or "unknown")},
        started_at=parse_time(stats.get("started_at")) or parse_time(evaluation.get("created")),
        ended_at=parse_time(stats.get("completed_at")),
        status=run_status,
        extra={"log_status": log_status, "run_id": evaluation.get("run_id")},
    )
