"""``assay trace``: one stored case-trial's spans as a tree, with start offsets and durations."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import typer

from assay.cli._flags import format_option
from assay.cli._output import emit
from assay.outcomes import span_names

if TYPE_CHECKING:
    from assay.diagnose import TreeRow

STORE_HELP = "Store URL (default $ASSAY_STORE or sqlite:///.assay/assay.db)."
# The attributes worth reading in a tree; --all-attributes shows every one.
KEY_ATTRIBUTES = (
    span_names.CORPUS_VERSION,
    span_names.RETRIEVAL_CANDIDATE_IDS,
    span_names.RETRIEVAL_CANDIDATE_SCORES,
    span_names.RETRIEVAL_SELECTED_IDS,
    span_names.SECTION_ID,
    span_names.CONTEXT_SECTION_IDS,
    span_names.CONTEXT_DROPPED,
    span_names.GEN_AI_REQUEST_MODEL,
    span_names.PROMPT_VERSION,
    span_names.GEN_AI_USAGE_INPUT_TOKENS,
    span_names.GEN_AI_USAGE_OUTPUT_TOKENS,
    span_names.GEN_AI_RESPONSE_FINISH_REASONS,
    span_names.ANSWER_FACT,
    span_names.ANSWER_CITATIONS,
    span_names.GEN_AI_TOOL_NAME,
    span_names.TOOL_ARGS_HASH,
    span_names.TOOL_STATUS,
    span_names.TOOL_RESULT_FACT,
    span_names.CONFIG_VERSION,
    span_names.GRADER_VERSION,
    span_names.JUDGMENT_STATUS,
    span_names.JUDGMENT_LABELS,
    span_names.JUDGMENT_REASON,
)


def _prefixes(rows: list[TreeRow]) -> list[tuple[str, str]]:
    """The tree glyphs of each row, and the indentation its attribute lines get."""
    result: list[tuple[str, str]] = []
    open_levels: list[bool] = []  # per depth: does this branch have later siblings?
    for i, row in enumerate(rows):
        later = next((r.depth for r in rows[i + 1 :] if r.depth <= row.depth), -1)
        last = later != row.depth
        del open_levels[row.depth :]
        stem = "".join("│  " if more else "   " for more in open_levels[1:])
        branch = "" if row.depth == 0 else ("└─ " if last else "├─ ")
        open_levels.append(not last)
        below = "".join("│  " if more else "   " for more in open_levels[1:])
        result.append((stem + branch, below + "    "))
    return result


def _value(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(map(str, value))
    shown = str(value)
    # A full content hash is noise in a tree; its first 12 hex digits name it (as in reports).
    return shown[:19] + "…" if shown.startswith("sha256:") and len(shown) > 30 else shown


def render_tree(rows: list[TreeRow], every_attribute: bool = False) -> str:
    """The tree as text; ∥ marks a span that overlapped a sibling (time not additive)."""
    lines = [f"{'start':>10}  {'duration':>10}  span"]
    for row, (prefix, indent) in zip(rows, _prefixes(rows), strict=True):
        span = row.span
        mark = " ∥" if row.concurrent else ""
        status = f"  [{span.status}: {span.status_message or ''}]" if span.status == "error" else ""
        timing = f"{row.offset_ms:>7.2f} ms  {row.duration_ms:>7.2f} ms"
        lines.append(f"{timing}  {prefix}{span.name}{mark}{status}")
        keys = span.attributes if every_attribute else KEY_ATTRIBUTES
        for key in keys:
            if key in span.attributes and span.attributes[key] != []:
                lines.append(f"{'':>24}{indent}{key} = {_value(span.attributes[key])}")
    return "\n".join(lines) + "\n"


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
    head = f"trace of {found.id} (trial {trial}) in run {stored.run_id}: {len(spans)} spans\n"
    tree = render_tree(rows, all_attributes) if rows else ""
    emit(head + tree + told, None)


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
