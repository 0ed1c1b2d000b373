"""``assay trace``: one stored case-trial's spans as a tree, with start offsets and durations."""

from __future__ import annotations

import typer

from assay.cli._flags import STORE, format_option
from assay.cli._output import emit


def trace(
    run: str = typer.Argument(..., help="Run id (or a unique prefix)."),
    case: str = typer.Argument(..., help="Case id."),
    trial: int = typer.Option(1, "--trial", help="Which trial of the case."),
    format: str = format_option("trace", from_output=False),
    all_attributes: bool = typer.Option(False, "--all-attributes", help="Show every attribute."),
    store: str | None = STORE,
) -> None:
    """Print the spans of CASE in RUN as a tree with start offsets and durations, then
    what its record kept: the transcript, the traceback, an agent's trajectory step by step.

    Spans marked ∥ ran concurrently with a sibling: their durations overlap and do not
    add up to their parent's.
    """
    from assay.cli._options import check_format
    from assay.diagnose import TraceView, span_tree
    from assay.errors import AssayInputError
    from assay.formats import formats
    from assay.render import render
    from assay.report import checked_trajectory
    from assay.runs import StoredRun
    from assay.store import open_store

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
    rows = tuple(span_tree(spans)) if spans else ()
    view = TraceView.of(
        stored.run_id,
        found.id,
        trial,
        rows,
        len(spans),
        extra,
        every_attribute=all_attributes,
        trajectory=checked_trajectory(record),
    )
    if not spans and view.transcript is None and view.traceback is None and not view.trajectory:
        raise AssayInputError(stored.no_spans(found, trial, traced))
    emit(render(view, format), None)
