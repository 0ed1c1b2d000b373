"""What ``assay gate`` is asked to check: a report file, a stored run, a matrix variant or
a suite's newest run against rules (or a matrix's best variant against one), its options
checked together before anything is read (``AssayConfigError`` naming the flags); and the
check carried out."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from assay.compare import best_not_worse
from assay.errors import AssayConfigError, AssayInputError, did_you_mean
from assay.gates import Baseline, GateOutcome, evaluate_gates, needs_baseline, parse_rule
from assay.grading.judge import CalibrationBounds
from assay.load import CalibrationCheck, composite_report_file, judged_identity, names_a_file
from assay.metrics import DEFAULT_INTERVAL, IntervalSetting
from assay.report import CompositeReport, Report
from assay.runner._matrix import matrix_report, matrix_runs
from assay.runner._trend import gate_suite
from assay.runs import (
    corrected,
    open_run_store,
    report_and_run,
    stored_calibration,
    suite_baseline,
)
from assay.store import RunInfo, open_store

__all__ = ["GateRequest", "GateVerdict", "gate_request"]


@dataclass(frozen=True)
class GateRequest:
    """A check of ``source`` (a JSON report file, a run id, or a matrix id with
    ``variant``), or of the newest run of suite ``trend``, against ``rules``; or, with
    ``best_not_worse_than``, of matrix ``source``'s best other variant against that one.
    Made, it refuses options that contradict each other."""

    source: str | None = None
    rules: tuple[str, ...] = ()
    trend: str | None = None
    store: str | None = None
    variant: str | None = None
    best_not_worse_than: str | None = None
    interval: IntervalSetting | None = None
    """The level of every interval (None: not asked, 0.95 Clopper–Pearson; a composite
    report is then read as written)."""
    baseline: str | None = None
    """The run or report file ``not_worse_than_baseline(MARGIN)`` compares ``source`` with."""
    calibration: Path | None = None
    """The judge calibration report to require, within the bounds below."""
    max_false_accept_upper: float | None = None
    max_false_reject_upper: float | None = None
    min_kappa_lower: float | None = None
    junit: Path | None = None
    """Where the JUnit XML goes (the report is then read with its case rows)."""
    markdown: Path | None = None

    def __post_init__(self) -> None:
        if (self.calibration is None) != (self.max_false_accept_upper is None):
            raise AssayConfigError("--calibration and --max-false-accept-upper go together")
        for name, value in (
            ("--max-false-accept-upper", self.max_false_accept_upper),
            ("--max-false-reject-upper", self.max_false_reject_upper),
        ):
            if value is not None and not 0 < value <= 1:
                raise AssayConfigError(f"{name} {value:g}: must be above 0 and at most 1")
        kappa = self.min_kappa_lower
        if kappa is not None and not -1 <= kappa <= 1:
            raise AssayConfigError(f"--min-kappa-lower {kappa:g}: must be from -1 to 1")
        if self.calibration is None and (self.max_false_reject_upper, kappa) != (None, None):
            raise AssayConfigError(
                "--max-false-reject-upper and --min-kappa-lower go with --calibration"
            )
        if self.best_not_worse_than is not None:
            if (
                self.source is None
                or self.trend is not None
                or self.rules
                or self.variant is not None
                or self.junit
                or self.markdown
                or self.calibration
                or self.baseline
            ):
                raise AssayConfigError(
                    "--best-not-worse-than is a check of its own on a matrix id: give it "
                    "without --trend, --rule, --variant, --junit, --markdown, --calibration "
                    "or --baseline"
                )
            return
        if (self.source is None) == (self.trend is None):
            raise AssayConfigError(
                "give either SOURCE (a report file or a run id) or --trend SUITE, not both"
                if self.source is not None
                else "give SOURCE (a report file or a run id) or --trend SUITE"
            )
        if not self.rules:
            raise AssayConfigError("give at least one --rule (or --best-not-worse-than VARIANT)")
        if self.trend is not None and self.baseline is not None:
            raise AssayConfigError(
                "--baseline names what SOURCE is compared with; with --trend, "
                "not_worse_than_baseline(MARGIN) compares the newest run with the run tagged "
                "baseline"
            )

    @property
    def setting(self) -> IntervalSetting:
        """The level every interval is read at."""
        return DEFAULT_INTERVAL if self.interval is None else self.interval

    @property
    def files(self) -> list[Path]:
        """The report files read (``source``, ``baseline``): never written over."""
        named = [self.source, self.baseline] if self.best_not_worse_than is None else []
        return [Path(p) for p in named if p is not None and names_a_file(Path(p))]

    @property
    def bounds(self) -> CalibrationBounds | None:
        """The bounds the calibration options set (None without --max-false-accept-upper)."""
        if self.max_false_accept_upper is None:
            return None
        return CalibrationBounds(
            max_false_accept_upper=self.max_false_accept_upper,
            max_false_reject_upper=self.max_false_reject_upper,
            min_kappa_lower=self.min_kappa_lower,
        )


@dataclass(frozen=True)
class GateVerdict:
    """How a gate ended: the rules' outcome, or what is said instead of one."""

    outcome: GateOutcome | None
    """Every rule's result (the calibration's first), when rules were checked."""
    message: str | None = None
    """What the check says when no rule was: the matrix's best variant, or that the suite
    has no run to gate."""
    passed: bool = False


def _quiet(_: str) -> None:
    pass


def gate_request(request: GateRequest, notify: Callable[[str], None] = _quiet) -> GateVerdict:
    """Check what ``request`` names against its rules; ``notify`` hears that a report
    file's intervals were recomputed at the asked level."""
    if request.best_not_worse_than is not None:
        assert request.source is not None  # refused when made
        return _best(request.source, request.best_not_worse_than, request)
    if request.trend is not None:
        return _trend(request.trend, request)
    assert request.source is not None
    source = request.source
    if request.variant is not None:
        source = _variant_run(source, request.variant, request.store)
    composite = composite_report_file(Path(source))
    if composite is not None:
        return _composite(source, composite, request)
    rules = [parse_rule(text) for text in request.rules]
    compared = needs_baseline(rules)
    if request.baseline is not None and not compared:
        raise AssayConfigError(
            "--baseline is what not_worse_than_baseline(MARGIN) compares with: give "
            "that rule with it"
        )
    # The rules read figures only; the case rows are for --junit's test cases, the
    # judge identity --calibration checks and the pairing with a baseline.
    rows = request.junit is not None or request.calibration is not None or compared
    report, run = report_and_run(source, request.store, request.setting, rows, notify)
    check = _calibration_check(report, source, run is None, request, run)
    report = corrected(report, check)
    against = _baseline(source, run, request, notify) if compared else None
    results = evaluate_gates(report, rules, against)
    if check is not None:
        results = [*check.results(), *results]
    return _verdict(GateOutcome.of(results, report))


def _verdict(outcome: GateOutcome) -> GateVerdict:
    return GateVerdict(outcome, passed=outcome.passed)


def _best(matrix_id: str, baseline: str, request: GateRequest) -> GateVerdict:
    runs = open_store(request.store, create=False)
    try:
        m = matrix_report(runs, matrix_id, interval=request.setting)
    finally:
        runs.close()
    check = best_not_worse(m, baseline)
    return GateVerdict(None, check.message, check.passed)


def _trend(suite: str, request: GateRequest) -> GateVerdict:
    """The suite's newest run against every trend rule (and the calibration its suite
    requires)."""
    opened = open_store(request.store, create=False)
    try:
        latest, results = gate_suite(opened, suite, list(request.rules), interval=request.setting)
    finally:
        opened.close()
    if latest is None:
        return GateVerdict(None, f"FAIL  no finished run of suite {suite!r} to gate")
    report = latest.report
    if request.calibration is not None:
        raise AssayConfigError(
            "--calibration checks SOURCE's judge; with --trend the newest run's suite "
            "names the calibration it requires"
        )
    if report.run_id is not None:
        check = _calibration_check(report, report.run_id, False, request)
        if check is not None:
            results = [*check.results(), *results]
    return _verdict(GateOutcome.of(results, report))


def _composite(source: str, report: CompositeReport, request: GateRequest) -> GateVerdict:
    """Rules on a composite report file's figures (``composite_pass>=0.8``,
    ``strict_pass.low>=0.5``, ``statuses.error==0``), read at the level it was written at."""
    if request.baseline is not None:
        raise AssayConfigError(
            f"{source} is a composite report: --baseline goes with a run or a report"
        )
    if request.junit is not None or request.markdown is not None:
        raise AssayConfigError(
            f"{source} is a composite report: --junit and --markdown summarize a report of "
            "`assay score` or `assay run`; gate the composite without them"
        )
    if request.interval is not None:
        raise AssayConfigError(
            f"{source} is a composite report: its intervals are read as written; rescore "
            "with `assay composite --confidence/--interval` for another level"
        )
    parsed = [parse_rule(text, CompositeReport) for text in request.rules]
    return _verdict(GateOutcome.of(evaluate_gates(report, parsed)))


def _variant_run(matrix_id: str, variant: str, store: str | None) -> str:
    """The run id of ``variant`` in matrix ``matrix_id``."""
    runs = open_store(store, create=False)
    try:
        found = matrix_runs(runs, matrix_id)
    finally:
        runs.close()
    names = {str(r.metadata["matrix"]["variant"]): r.id for r in found}
    if variant not in names:
        raise AssayInputError(
            f"--variant {variant}: matrix {matrix_id} has no such variant"
            f"{did_you_mean(variant, list(names))}; its variants: {', '.join(names)}"
        )
    return names[variant]


def _calibration_check(
    report: Report,
    source: str,
    from_file: bool,
    request: GateRequest,
    run: RunInfo | None = None,
) -> CalibrationCheck | None:
    """The judge calibration to require of ``source``: the one --calibration names, else
    the one the suite of a stored run requires (none for a report file); ``run``: the
    stored run's details when already read."""
    bounds = request.bounds
    if request.calibration is None or bounds is None:
        if from_file:
            return None
        if run is not None:
            return stored_calibration(run)
        runs = open_store(request.store, create=False)
        try:
            return stored_calibration(runs.get_run(report.run_id or source))
        finally:
            runs.close()
    judge = next((g for g in report.graders if g.name == "judge"), None)
    if judge is None:
        found = ", ".join(f"{g.name} v{g.version}" for g in report.graders) or "none recorded"
        raise AssayConfigError(
            f"--calibration: {source} was not graded by a model judge (its graders: {found})"
        )
    identity = judged_identity(report)
    at = identity.get("pass_minimum")
    return CalibrationCheck(
        request.calibration, bounds, f"judge v{judge.version}", identity, int(at) if at else None
    )


def _baseline(
    source: str, run: RunInfo | None, request: GateRequest, notify: Callable[[str], None]
) -> Baseline:
    """What ``not_worse_than_baseline(MARGIN)`` compares ``source`` with: the run or
    report --baseline names, else the suite baseline of a stored run; a report file without
    --baseline is refused."""
    named = request.baseline
    if named is not None:
        found, stored = report_and_run(named, request.store, request.setting, notify=notify)
        return Baseline(found, f"run {stored.id}" if stored is not None else f"report {named}")
    if run is None:
        raise AssayConfigError(
            f"not_worse_than_baseline(MARGIN) compares {source} with a baseline, and a report "
            "file names none: give --baseline RUN_OR_REPORT"
        )
    opened = open_run_store(source, request.store)
    try:
        return suite_baseline(opened, run.id, request.setting)
    finally:
        opened.close()
