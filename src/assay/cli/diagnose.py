"""``assay diagnose``: name the stage behind a failed case from its spans (docs/diagnose.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import typer

from assay.cli._flags import STORE, format_option
from assay.cli._output import emit

if TYPE_CHECKING:
    from assay.diagnose import Finding
    from assay.runs import StoredRun
    from assay.store import RunStore


def _all(opened: RunStore, stored: StoredRun) -> list[Finding]:
    spans: dict[tuple[str | None, int | None], list[Any]] = {}
    for span in opened.spans(stored.run_id):
        spans.setdefault((span.case_id, span.trial), []).append(span)
    return [
        stored.diagnose(case, trial, spans.get((case.id, trial), []))
        for case in stored.dataset
        for trial in range(1, stored.trials + 1)
    ]


def diagnose(
    run: str = typer.Argument(..., help="Run id (or a unique prefix)."),
    case: str | None = typer.Argument(None, help="Case id (omit with --all)."),
    all_: bool = typer.Option(False, "--all", help="Every failed case, grouped by stage."),
    trial: int = typer.Option(1, "--trial", help="Which trial of CASE."),
    format: str = format_option("diagnosis", from_output=False),
    store: str | None = STORE,
) -> None:
    """Name the stage that caused CASE to fail in RUN, with the evidence from its spans and
    the next thing to inspect; with --all, every failed case grouped by stage."""
    from assay.cli._options import check_format
    from assay.diagnose import Diagnosis
    from assay.errors import AssayConfigError
    from assay.formats import formats
    from assay.render import render
    from assay.runs import StoredRun
    from assay.store import open_store

    check_format(format, formats("diagnosis"))
    if (case is None) == (not all_):
        raise AssayConfigError("give a CASE to diagnose, or --all (not both)")
    opened = open_store(store, create=False)
    try:
        stored = StoredRun.read(opened, run)
        if all_:
            findings = _all(opened, stored)
        else:
            assert case is not None
            found = stored.case(case)
            spans = opened.spans(stored.run_id, found.id, stored.check_trial(trial))
            finding = stored.diagnose(found, trial, spans)
    finally:
        opened.close()
    emit(render(Diagnosis(stored.run_id, tuple(findings)) if all_ else finding, format), None)
