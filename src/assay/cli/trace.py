"""``assay trace``: one stored case-trial's spans as a tree, with start offsets and durations."""

from __future__ import annotations

import json
from typing import Any

import typer

from assay.cli._flags import format_option
from assay.cli._output import emit

STORE_HELP = "Store URL (default $ASSAY_STORE or sqlite:///.assay/assay.db)."


def trace(
    run: str = typer.Argument(..., help="Run id (or a unique prefix)."),
    case: str = typer.Argument(..., help="Case id."),
    trial: int = typer.Option(1, "--trial", help="Which trial of the case."),
    format: str = format_option("trace", from_output=False),
    all_attributes: bool = typer.Option(False, "--all-attributes", help="Show every attribute."),
    store: str | None = typer.Option(None, "--store", help=STORE_HELP),
) -> None:
    """Print the spans of CASE in RUN as a tree with start offsets and durations.

    Spans marked ∥ ran concurrently with a sibling: their durations overlap and do not
    add up to their parent's.
    """
    from assay.cli._options import check_format
    from assay.diagnose import span_tree
    from assay.errors import AssayInputError
    from assay.formats import formats
    from assay.store import open_store
    from assay.stored import StoredRun

    check_format(format, formats("trace"))
    opened = open_store(store, create=False)
    try:
        stored = StoredRun.read(opened, run)
        found = stored.case(case)
        spans = opened.spans(stored.run_id, found.id, stored.check_trial(trial))
        traced = bool(spans) or bool(opened.spans(stored.run_id))
        record = next(
            (r for r in opened.records(stored.run_id) if r.key == (found.id, trial)), None
        )
    finally:
        opened.close()
    extra = record.extra if record is not None else {}
    told = transcript_text(extra)
    if not spans and not told:
        raise AssayInputError(stored.no_spans(found, trial, traced))
    rows = span_tree(spans) if spans else []
    if format == "json":
        items = [
            {
                "depth": r.depth,
                "offset_ms": r.offset_ms,
                "duration_ms": r.duration_ms,
                "concurrent": r.concurrent,
                **r.span.model_dump(mode="json"),
            }
            for r in rows
        ]
        transcript = extra.get("transcript")
        traceback = extra.get("traceback")
        found_trace = {
            "run_id": stored.run_id,
            "case_id": found.id,
            "trial": trial,
            "spans": items,
            "transcript": transcript if isinstance(transcript, dict) else None,
            "traceback": traceback if isinstance(traceback, str) and traceback else None,
        }
        emit(json.dumps(found_trace, indent=2) + "\n", None)
        return
    from assay.report.render.trace import render_trace

    head = f"trace of {found.id} (trial {trial}) in run {stored.run_id}: {len(spans)} spans"
    emit(render_trace(head, rows, all_attributes) + told, None)


def transcript_text(extra: dict[str, Any]) -> str:
    """A record's transcript (messages sent, raw reply) and a raised traceback, as text."""
    parts: list[str] = []
    transcript = extra.get("transcript")
    if isinstance(transcript, dict):
        parts.append("\ntranscript")
        for message in transcript.get("messages") or []:
            parts.append(f"--- {message.get('role')}\n{message.get('content')}")
        finish = transcript.get("finish_reason")
        model = transcript.get("response_model")
        said = ", ".join(p for p in (f"finish_reason {finish}" if finish else "", model or "") if p)
        parts.append(f"--- reply{f' ({said})' if said else ''}\n{transcript.get('reply', '')}")
    traceback = extra.get("traceback")
    if isinstance(traceback, str) and traceback:
        parts.append(f"\ntraceback (last frames)\n{traceback.rstrip()}")
    return "\n".join(parts) + "\n" if parts else ""
