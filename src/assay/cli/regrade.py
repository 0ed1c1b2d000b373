"""``assay regrade``: judge a stored run's answers again, without calling its target."""

from __future__ import annotations

from pathlib import Path

import typer

from assay.cli._flags import CONFIDENCE, INTERVAL, STORE, format_option, report_output
from assay.cli._output import emit, wants_color


def regrade(
    run_id: str = typer.Argument(..., help="The stored run whose recorded answers to judge."),
    grader: Path | None = typer.Option(
        None,
        "--grader",
        help="Judge settings (YAML: base_url, model, rubric, …; see docs/judge.md). "
        "Without it, the run's own grader is built again from what the run recorded "
        "(a plugin grader by its registered type and settings).",
    ),
    resume: str | None = typer.Option(
        None,
        "--resume",
        help="Finish an interrupted regrade of RUN_ID: judge only the answers that regrade "
        "run has not judged yet.",
    ),
    repeats: int | None = typer.Option(
        None,
        "--repeats",
        min=1,
        help="Ask the model judge J times about each recorded answer (J from 1 to 25; "
        "default: as its settings say, else once). Every repeat is kept; the report "
        "shows the judge's own instability apart from the system's (see docs/judge.md).",
        metavar="J",
    ),
    format: str | None = format_option("report"),
    output: Path | None = report_output(),
    confidence: float = CONFIDENCE,
    interval: str = INTERVAL,
    store: str | None = STORE,
) -> None:
    """Judge every recorded answer of stored run RUN_ID with the judge of --grader (or the
    run's own grader, built again), into a new run linked to it (metadata regrade_of); the
    target is not called again. Judge failures are ungraded, with the reason. With
    --repeats J, each answer is judged J times and every judgment is kept."""
    from assay.cli._options import interval_setting, output_format
    from assay.load import load_judge
    from assay.metrics import DEFAULT_INTERVAL
    from assay.render import render
    from assay.runner import recorded_grader, regrade_run
    from assay.runs import report_for_run
    from assay.store import open_store

    format = output_format(format, output)
    setting = interval_setting(confidence, interval)
    inputs = [grader] if grader is not None else []
    if output is not None:
        from assay.cli._output import check_output

        check_output(output, inputs)
    settings = load_judge(grader) if grader is not None else None
    runs = open_store(store, create=False)
    try:
        source = runs.get_run(run_id)
        if settings is not None:
            judge = settings.grader(runs.load_dataset(source.id).sources)
            result = regrade_run(runs, source.id, judge, resume=resume, repeats=repeats)
        else:
            recorded, entry = recorded_grader(source)
            result = regrade_run(
                runs, source.id, recorded, resume=resume, provenance=entry, repeats=repeats
            )
        report = result.report
        if setting != DEFAULT_INTERVAL:
            report = report_for_run(runs, result.run_id, interval=setting)
    finally:
        runs.close()
    text = render(report, format, color=wants_color(output))
    head = f"run {result.run_id} ({result.status}), a regrade of run {source.id}"
    if format in ("text", "markdown"):
        text = f"{head}\n\n{text}"
    else:
        typer.echo(head, err=True)
    emit(text, output, inputs)
    if result.status == "interrupted":
        again = f" --grader {grader}" if grader is not None else ""
        again += f" --repeats {repeats}" if repeats is not None else ""
        typer.echo(
            f"assay: regrade {result.run_id} interrupted; finish it with "
            f"`assay regrade {source.id}{again} --resume {result.run_id}`",
            err=True,
        )
        raise typer.Exit(130)
