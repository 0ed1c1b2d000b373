"""``assay calibrate``: measure a grader's errors against human labels."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from assay.cli._flags import CONFIDENCE, INTERVAL, format_option, report_output, store_option
from assay.cli._output import emit
from assay.load import names_a_file

if TYPE_CHECKING:
    from assay.report import Report
    from assay.store import RunInfo


def calibrate(
    labels: Path = typer.Argument(
        ...,
        help="Human labels (JSONL, JSON, YAML or CSV): id, trial (optional), human_score "
        "(0, 1 or 2) or human (pass or fail), reviewer, note; `assay view --review` writes "
        "them.",
    ),
    judged: str = typer.Argument(
        ...,
        help="A JSON report of the judged answers (assay score --grader … -f json) or the "
        "id of a stored run (see --store).",
    ),
    format: str | None = format_option("calibration"),
    output: Path | None = report_output("the inputs and other files"),
    pass_minimum: int | None = typer.Option(
        None,
        "--pass-minimum",
        help="The human score that counts as a pass (1 or 2). Default: the minimum the judge "
        "passed cases at (its rubric's pass_minimum, as its judgments record it), else 2; "
        "another value than the judge's is refused.",
    ),
    weights: str = typer.Option(
        "linear", "--weights", help="Weighted kappa's weights: linear or quadratic."
    ),
    confidence: float = CONFIDENCE,
    interval: str = INTERVAL,
    store: str | None = store_option("JUDGED"),
) -> None:
    """Compare a grader's verdicts with human labels: how many labelled cases were judged
    and which are ungraded; false accepts (judge passes, human fails) over human-fail
    cases and false rejects over human-pass cases, each with its exact interval; the 3×3
    confusion of scores; Cohen's weighted kappa with an interval; agreement per slice;
    every disagreement with both rationales."""
    from assay.cli._options import interval_setting, output_format
    from assay.errors import AssayConfigError
    from assay.formats import formats
    from assay.load import judged_identity, load_labels, load_report_file, rows_from_report
    from assay.render import render
    from assay.report import build_calibration

    format = output_format(format, output, formats("calibration"))
    setting = interval_setting(confidence, interval)
    if pass_minimum is not None and pass_minimum not in (1, 2):
        raise AssayConfigError(f"--pass-minimum {pass_minimum}: must be 1 or 2")
    if weights not in ("linear", "quadratic"):
        raise AssayConfigError(f"--weights {weights}: choose linear or quadratic")
    inputs = [labels] + ([Path(judged)] if names_a_file(Path(judged)) else [])
    if output is not None:
        from assay.cli._output import check_output

        check_output(output, inputs)
    human = load_labels(labels)
    identity: dict[str, str] = {}
    if names_a_file(Path(judged)):
        report = load_report_file(Path(judged))
        identity = _recorded(report, store)
    else:
        report, identity = _stored(judged, store)
    graders = [f"{g.name} v{g.version}" for g in report.graders]
    judge = {**judged_identity(report), **identity}
    pass_minimum = _pass_minimum(pass_minimum, judge.get("pass_minimum"), judged)
    result = build_calibration(
        human,
        rows_from_report(report),
        labels_file=str(labels),
        judged_from=judged,
        graders=graders,
        judge=judge,
        pass_minimum=pass_minimum,
        weights="linear" if weights == "linear" else "quadratic",
        interval=setting,
    )
    emit(render(result, format), output, inputs)


def _pass_minimum(given: int | None, judged_at: str | None, judged: str) -> int:
    """The human score that counts as a pass: the judge's own minimum, which a different
    --pass-minimum may not contradict (the verdicts would be measured at another
    threshold than the one they were made at)."""
    from assay.errors import AssayConfigError

    if judged_at is None:
        return 2 if given is None else given
    if given is not None and str(given) != judged_at:
        raise AssayConfigError(
            f"--pass-minimum {given}: the judge in {judged} passed cases at score {judged_at} "
            "(its rubric's pass_minimum); a calibration must count a human pass at the same "
            f"score (omit --pass-minimum, or judge again with pass_minimum: {given})"
        )
    return int(judged_at)


def _stored(run_id: str, store_url: str | None) -> tuple[Report, dict[str, str]]:
    """The stored run's report and what its judge's version covers (as recorded)."""
    from assay.errors import AssayInputError
    from assay.runs import report_for_run
    from assay.store import open_store

    if Path(run_id).suffix or len(Path(run_id).parts) > 1:
        raise AssayInputError(f"{run_id}: no such report file")
    runs = open_store(store_url, create=False)
    try:
        info = runs.get_run(run_id)
        return report_for_run(runs, info.id), _identity(info)
    finally:
        runs.close()


def _identity(info: RunInfo) -> dict[str, str]:
    """What the version of stored run ``info``'s model judge covers, as the run recorded
    it (model, prompt and rubric versions, request settings, pass minimum)."""
    import json

    judge = next((g for g in info.graders if g.get("name") == "judge"), {})
    identity = {k: v for k, v in judge.items() if k not in ("name", "version", "config", "rubric")}
    rubric = judge.get("rubric")
    if isinstance(rubric, str) and '"pass_minimum"' in rubric:
        identity["pass_minimum"] = str(json.loads(rubric)["pass_minimum"])
    return identity


def _recorded(report: Report, store_url: str | None) -> dict[str, str]:
    """For a report file of a stored run, what that run recorded of its judge, as for the
    run itself, when the store holds the run and its judge is the report's (same
    version); nothing otherwise (a results file, another store, a run judged again)."""
    from assay.errors import AssayError
    from assay.store import open_store

    judge = next((g for g in report.graders if g.name == "judge"), None)
    if report.run_id is None or judge is None:
        return {}
    try:
        runs = open_store(store_url, create=False, read_only=True)
    except AssayError:
        return {}  # no store here: the rows' own labels are all there is
    try:
        info = runs.get_run(report.run_id)
    except AssayError:
        return {}
    finally:
        runs.close()
    stored = next((g for g in info.graders if g.get("name") == "judge"), {})
    return _identity(info) if stored.get("version") == judge.version else {}
