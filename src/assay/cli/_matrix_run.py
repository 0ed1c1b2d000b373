"""``assay run`` of a matrix (a suite with ``variants:``, ``--set``, or ``--resume MX_ID``):
run or resume every variant and print the matrix report."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

if TYPE_CHECKING:
    from assay.metrics import IntervalSetting


def run_matrix_command(
    suite: Path | None,
    resume: str | None,
    sets: list[str],
    overrides: object,
    selection: object,
    store: str | None,
    format: str,
    output: Path | None,
    otlp_endpoint: str | None,
    interval: IntervalSetting,
) -> None:
    """Run (or resume) a matrix and print its matrix report; exit 1 when a suite gate
    fails on any variant, 130 when interrupted."""
    from assay.cli._gating import check_gates
    from assay.cli._options import check_format
    from assay.cli._progress import RichProgress
    from assay.errors import AssayConfigError
    from assay.formats import formats
    from assay.gates import Baseline
    from assay.load import load_suite
    from assay.render import render
    from assay.runner import (
        Overrides,
        RunControl,
        Selection,
        matrix_report,
        resume_matrix,
        run_matrix,
    )
    from assay.store import open_store

    assert isinstance(overrides, Overrides) and isinstance(selection, Selection)
    check_format(format, formats("matrix"))
    if resume is not None and not selection.empty:
        raise AssayConfigError(
            "--resume runs the stored matrix's own cases; drop --limit/--slice/--ids"
        )
    loaded = load_suite(suite) if suite is not None else None
    runs = open_store(store)
    try:
        label = f"matrix {resume}" if resume else f"{loaded.path.name if loaded else ''} matrix"
        control = RunControl(
            progress=RichProgress(label), handle_signals=True, otlp_endpoint=otlp_endpoint
        )
        if resume is not None:
            result = resume_matrix(runs, resume, suite=loaded, overrides=overrides, control=control)
        else:
            assert loaded is not None
            result = run_matrix(
                loaded,
                runs,
                sets=tuple(sets),
                selection=selection,
                overrides=overrides,
                control=control,
            )
        report = matrix_report(
            runs,
            result.matrix_id,
            interval=interval,
            reports={r.run_id: r.report for r in result.runs},
        )
    finally:
        runs.close()
    if result.cache_error is not None:
        typer.echo(
            f"assay: warning: the response cache could not keep replies "
            f"({result.cache_error}); the matrix is complete, a rerun calls the target again",
            err=True,
        )
    headline = f"matrix {result.matrix_id} ({result.status})"
    text = render(report, format)
    if format in ("text", "markdown"):
        text = f"{headline}\n\n{text}"
    else:
        typer.echo(headline, err=True)
    from assay.cli._output import emit

    emit(text, output)
    if result.status == "interrupted":
        typer.echo(
            f"assay: matrix {result.matrix_id} interrupted; finish it with "
            f"`assay run --resume {result.matrix_id}`",
            err=True,
        )
        raise typer.Exit(130)
    rules = loaded.gate_rules() if loaded is not None else []
    failed = False
    none = Baseline.missing(
        "a matrix's variants have no suite baseline; compare two with "
        "`assay compare RUN RUN --gate`"
    )
    for variant in result.runs:
        if rules:
            typer.echo(f"gates for variant {variant.name}:", err=True)
            failed |= not check_gates(variant.report, rules, baseline=none)
    if failed:
        raise typer.Exit(1)
