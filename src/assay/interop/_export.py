"""A stored run as rows (JSONL, CSV, Parquet) or as an inspect_ai ``.eval`` log.

Every case-trial is one row with its status, whatever it is: missing rows carry no
outcome, so the statuses in an export add up to the report's total.
"""

from __future__ import annotations

import csv
import io
import json
import zipfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from assay._version import __version__
from assay.cases import Case, case_hash
from assay.grading import Judgment
from assay.metrics import judge_unstable
from assay.outcomes import Record
from assay.report import Report
from assay.runs import report_for_run, stored_repeats
from assay.store import RunInfo, RunStore

COLUMNS = (
    "run_id",
    "case_id",
    "trial",
    "slice",
    "synthetic",
    "question",
    "expected_behavior",
    "expected_fact",
    "status",
    "reason",
    "grader",
    "score",
    "outcome",
    "fact",
    "text",
    "error_class",
    "error_message",
    "input_tokens",
    "output_tokens",
    "latency_ms",
    "attempts",
    "trace_id",
    "case_hash",
    "judge_repeats",
    "judge_verdicts",
    "judge_unstable",
)
ASSAY_KEY = "assay"  # the key of an exported inspect sample's metadata holding the case


@dataclass(frozen=True)
class StoredRun:
    """What an export reads from the store: the run, its cases, records, judgments, report."""

    info: RunInfo
    cases: tuple[Case, ...]
    records: tuple[Record, ...]
    judgments: tuple[Judgment, ...]
    report: Report
    repeats: Mapping[tuple[str, int], Sequence[Judgment]] = field(default_factory=dict)
    """A model judge asked several times about each answer: every repeat, by (case id,
    trial), in repeat order; empty otherwise."""


def read_stored(store: RunStore, run_id: str) -> StoredRun:
    """The run ``run_id`` (or unique prefix) as an export reads it."""
    info = store.get_run(run_id)
    report = report_for_run(store, info.id)  # first: it names a damaged row as report does
    return StoredRun(
        info=info,
        cases=store.load_dataset(info.id).cases,
        records=tuple(store.records(info.id)),
        judgments=tuple(store.judgments(info.id)),
        report=report,
        repeats=stored_repeats(store, info),
    )


def rows(run: StoredRun) -> list[dict[str, Any]]:
    """One row per case-trial, in report order, with every column of ``COLUMNS``."""
    cases = {c.id: c for c in run.cases}
    records = {r.key: r for r in run.records}
    scores = {(j.case_id, j.trial): j.score for j in run.judgments}
    found = []
    for row in run.report.cases:
        case = cases[row.id]
        record = records.get((row.id, row.trial))
        repeats = run.repeats.get((row.id, row.trial), ())
        outcome = record.outcome if record is not None else None
        usage = record.usage if record is not None else None
        found.append(
            {
                "run_id": run.info.id,
                "case_id": row.id,
                "trial": row.trial,
                "slice": row.slice,
                "synthetic": row.synthetic,
                "question": case.prompt,
                "expected_behavior": case.expected_behavior,
                "expected_fact": case.expected_fact,
                "status": row.status,
                "reason": row.reason,
                "grader": row.grader,
                "score": scores.get((row.id, row.trial)),
                "outcome": outcome.kind if outcome is not None else None,
                "fact": getattr(outcome, "fact", None),
                "text": getattr(outcome, "text", None),
                "error_class": getattr(outcome, "error_class", None),
                "error_message": getattr(outcome, "message", None),
                "input_tokens": usage.input_tokens if usage else None,
                "output_tokens": usage.output_tokens if usage else None,
                "latency_ms": record.latency_ms if record is not None else None,
                "attempts": record.attempts if record is not None else None,
                "trace_id": record.trace_id if record is not None else None,
                "case_hash": case_hash(case),
                "judge_repeats": len(repeats) if repeats else None,
                "judge_verdicts": " ".join(j.status for j in repeats) if repeats else None,
                "judge_unstable": judge_unstable(repeats) if repeats else None,
            }
        )
    return found


def to_jsonl(run: StoredRun) -> str:
    """One JSON object per case-trial."""
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows(run))


def to_csv(run: StoredRun) -> str:
    """A header line, then one line per case-trial (empty cells for nulls)."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows(run))
    return buffer.getvalue()


def to_parquet(run: StoredRun) -> bytes:
    """The rows as a Parquet file (needs pyarrow: ``pip install 'assay[parquet]'``)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pa.schema(
        [
            (name, pa.int64())
            if name in ("trial", "input_tokens", "output_tokens", "attempts", "judge_repeats")
            else (name, pa.float64())
            if name in ("score", "latency_ms")
            else (name, pa.bool_())
            if name in ("synthetic", "judge_unstable")
            else (name, pa.string())
            for name in COLUMNS
        ]
    )
    table = pa.Table.from_pylist(rows(run), schema=schema)
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink)
    return bytes(sink.getvalue().to_pybytes())


_SCORE = {"passed": "C", "failed": "I"}


def _sample(run: StoredRun, row: dict[str, Any], case: Case, record: Record | None) -> Any:
    sample: dict[str, Any] = {
        "id": row["case_id"],
        "epoch": row["trial"],
        "input": case.prompt,
        "target": case.expected_fact or "",
        "messages": [],
        "metadata": {
            ASSAY_KEY: {
                "case": case.model_dump(mode="json", exclude_defaults=True),
                "outcome": record.outcome.model_dump(mode="json", exclude_none=True)
                if record is not None
                else None,
                "status": row["status"],
                "reason": row["reason"],
            }
        },
        "scores": {},
    }
    if row["status"] in _SCORE:
        sample["scores"] = {
            "assay": {
                "value": _SCORE[row["status"]],
                "answer": row["text"] or row["fact"],
                "explanation": row["reason"],
            }
        }
    if row["outcome"] == "error":
        sample["error"] = {
            "message": row["error_message"] or row["error_class"] or "error",
            "traceback": "",
            "traceback_ansi": "",
        }
    text = row["text"] or row["fact"] or ""
    sample["output"] = {
        "model": str(run.info.target.get("model") or run.info.target.get("type") or "assay"),
        "choices": [{"message": {"role": "assistant", "content": text}, "stop_reason": "stop"}]
        if record is not None and row["outcome"] != "error"
        else [],
    }
    if record is not None and record.latency_ms is not None:
        sample["total_time"] = record.latency_ms / 1000
    if record is not None and record.usage is not None:
        used = {
            "input_tokens": record.usage.input_tokens or 0,
            "output_tokens": record.usage.output_tokens or 0,
            "total_tokens": (record.usage.input_tokens or 0) + (record.usage.output_tokens or 0),
        }
        sample["output"]["usage"] = used
        sample["model_usage"] = {sample["output"]["model"]: used}
    return sample


def to_inspect(run: StoredRun) -> bytes:
    """An inspect_ai ``.eval`` log: one sample per recorded case-trial (trials as epochs),
    passed ``C``, failed ``I``, errors as sample errors, ungraded without a score, and
    missing case-trials absent while the dataset lists every case."""
    cases = {c.id: c for c in run.cases}
    records = {r.key: r for r in run.records}
    table = rows(run)
    samples = [
        _sample(run, r, cases[r["case_id"]], records.get((r["case_id"], r["trial"])))
        for r in table
        if r["status"] != "missing"
    ]
    scored = [r for r in table if r["status"] in _SCORE]
    passed = sum(1 for r in scored if r["status"] == "passed")
    info = run.info
    model = str(info.target.get("model") or info.target.get("type") or "assay")
    header = {
        "version": 2,
        "status": "success" if info.status == "completed" else "cancelled",
        "eval": {
            "run_id": info.id,
            "created": info.started_at.isoformat(),
            "task": info.suite_name or info.dataset_name,
            "task_id": info.id,
            "task_version": 0,
            "dataset": {
                "name": info.dataset_name,
                "location": info.dataset_version,
                "samples": len(run.cases),
                "sample_ids": [c.id for c in run.cases],
                "shuffled": False,
            },
            "model": model,
            "config": {"epochs": info.trials},
            "packages": {"assay": __version__},
            "scorers": [{"name": "assay", "options": {}, "metrics": [], "metadata": {}}],
            "metadata": {
                "assay_run": info.id,
                "dataset_version": info.dataset_version,
                # the cases no sample carries, so a re-import restores every definition
                "assay_missing_cases": [
                    c.model_dump(mode="json", exclude_defaults=True)
                    for c in run.cases
                    if c.id not in {s["id"] for s in samples}
                ],
            },
        },
        "plan": {"name": "plan", "steps": [], "config": {}},
        "results": {
            "total_samples": len(table),
            "completed_samples": len(samples),
            "scores": [
                {
                    "name": "assay",
                    "scorer": "assay",
                    "scored_samples": len(scored),
                    "unscored_samples": len(table) - len(scored),
                    "params": {},
                    "metrics": {
                        "accuracy": {
                            "name": "accuracy",
                            "value": passed / len(scored) if scored else 0.0,
                            "params": {},
                        }
                    },
                }
            ]
            if scored
            else [],
        },
        "stats": {
            "started_at": info.started_at.isoformat(),
            "completed_at": info.ended_at.isoformat() if info.ended_at else "",
            "model_usage": {},
        },
    }
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("header.json", json.dumps(header, ensure_ascii=False))
        for sample in samples:
            safe = str(sample["id"]).replace("/", "_")
            name = f"samples/{safe}_epoch_{sample['epoch']}.json"
            archive.writestr(name, json.dumps(sample, ensure_ascii=False))
        archive.writestr(
            "summaries.json",
            json.dumps(
                [{k: s[k] for k in ("id", "epoch", "input", "target", "scores")} for s in samples]
            ),
        )
    return buffer.getvalue()
