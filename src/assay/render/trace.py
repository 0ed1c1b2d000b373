"""One stored case-trial's spans as a tree, with start offsets and durations."""

from __future__ import annotations

import json
from typing import Any

from assay.diagnose import TraceView, TreeRow
from assay.outcomes import span_names
from assay.render._trajectory import trajectory_lines
from assay.render.document import Block, Document, Gap, Paragraph, Preformatted
from assay.render.text_writer import write_text

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


def trace_document(head: str, rows: list[TreeRow], every_attribute: bool = False) -> Document:
    """``head`` (what was traced) above the tree of ``rows`` (none when there are none)."""
    tree = render_tree(rows, every_attribute).splitlines() if rows else []
    return Document((Paragraph.of(head, layout="whole"), Preformatted(tuple(tree))))


def render_trace(head: str, rows: list[TreeRow], every_attribute: bool = False) -> str:
    """``trace_document`` as terminal text."""
    return write_text(trace_document(head, rows, every_attribute))


def _verbatim(text: object) -> list[str]:
    return str(text).split("\n")


def transcript_blocks(view: TraceView) -> list[Block]:
    """The transcript (messages sent, raw reply), the raised traceback and the agent's
    trajectory (step by step) a case-trial's record kept, each under its title,
    verbatim."""
    blocks: list[Block] = []
    transcript = view.transcript
    if transcript is not None:
        lines: list[str] = []
        for message in transcript.get("messages") or []:
            lines += [f"--- {message.get('role')}", *_verbatim(message.get("content"))]
        finish = transcript.get("finish_reason")
        model = transcript.get("response_model")
        said = ", ".join(p for p in (f"finish_reason {finish}" if finish else "", model or "") if p)
        lines.append(f"--- reply{f' ({said})' if said else ''}")
        lines += _verbatim(transcript.get("reply", ""))
        blocks += [Gap(), Paragraph.of("transcript", layout="whole"), Preformatted(tuple(lines))]
    if view.traceback is not None:
        blocks += [
            Gap(),
            Paragraph.of("traceback (last frames)", layout="whole"),
            Preformatted(tuple(_verbatim(view.traceback.rstrip()))),
        ]
    if view.trajectory is not None:
        blocks += [
            Gap(),
            Paragraph.of("trajectory", layout="whole"),
            Preformatted(tuple(trajectory_lines(view.trajectory))),
        ]
    return blocks


def trace_view_document(view: TraceView) -> Document:
    """What was traced, the span tree, then the transcript and the traceback."""
    head = (
        f"trace of {view.case_id} (trial {view.trial}) in run {view.run_id}: "
        f"{view.span_count} spans"
    )
    tree = trace_document(head, list(view.rows), view.every_attribute)
    return Document((*tree.blocks, *transcript_blocks(view)))


def _trace_json(view: TraceView) -> dict[str, Any]:
    items = [
        {
            "depth": r.depth,
            "offset_ms": r.offset_ms,
            "duration_ms": r.duration_ms,
            "concurrent": r.concurrent,
            **r.span.model_dump(mode="json"),
        }
        for r in view.rows
    ]
    return {
        "run_id": view.run_id,
        "case_id": view.case_id,
        "trial": view.trial,
        "spans": items,
        "transcript": view.transcript,
        "traceback": view.traceback,
        "trajectory": (
            view.trajectory.model_dump(mode="json") if view.trajectory is not None else None
        ),
    }


def render_trace_view(view: TraceView, fmt: str) -> str:
    """``view`` as text (the tree, then the transcript) or JSON."""
    if fmt == "json":
        return json.dumps(_trace_json(view), indent=2) + "\n"
    return write_text(trace_view_document(view))


__all__ = [
    "KEY_ATTRIBUTES",
    "render_trace",
    "render_trace_view",
    "render_tree",
    "trace_document",
    "trace_view_document",
    "transcript_blocks",
]
