"""The pytest plugin: ``pytest --assay SUITE`` runs a suite inside a test session.

Each case of the suite becomes one pytest item: passed cases pass, failed cases fail with
the grader's reason, errors and missing outcomes are pytest errors, ungraded cases are
xfail with the reason. The run is stored like any ``assay run``; the suite's gates fail
the session; ``--assay-report FILE`` writes the report (JSON for ``.json``, Markdown for
``.md``, text otherwise). ``-k`` and ``-x`` work: only the selected cases run.

Tests can also run a suite themselves through the ``assay_run`` fixture::

    def test_policy_assistant(assay_run):
        report = assay_run("examples/policy/suite.yaml")
        assert report.task_success.value >= 0.3
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from assay.report import Report

_STATE = pytest.StashKey["_Session"]()
_WORST = ("error", "missing", "failed", "ungraded", "passed")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("assay", "assay: evaluate an LLM application's suite")
    group.addoption(
        "--assay",
        action="append",
        default=[],
        metavar="SUITE",
        help="Run this assay suite: one test per case (repeatable).",
    )
    group.addoption(
        "--assay-store",
        default=None,
        metavar="URL",
        help="Run store URL (default $ASSAY_STORE or sqlite:///.assay/assay.db).",
    )
    group.addoption(
        "--assay-report",
        default=None,
        metavar="FILE",
        help="Write the report of each suite here (.json, .md or text).",
    )


class _Session:
    """The suites of this pytest session: loaded at collection, run once when first needed."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.suites: dict[str, Any] = {}
        self.selected: dict[str, list[str]] = {}
        self.reports: dict[str, Report] = {}
        self.run_ids: dict[str, str] = {}
        self.gates_failed: list[str] = []

    def report(self, suite: str) -> Report:
        """The suite's report, running the selected cases the first time it is asked for."""
        if suite not in self.reports:
            # deferred: pytest loads this plugin in every session; assay loads when a suite runs
            from assay.runner import Selection, run_suite
            from assay.store import open_store

            store = open_store(self.config.getoption("--assay-store"))
            try:
                ids = tuple(self.selected.get(suite, ()))
                every = self.suites[suite].load_dataset().ids
                chosen = Selection() if set(ids) == set(every) else Selection(ids=ids)
                result = run_suite(self.suites[suite], store, selection=chosen)
            finally:
                store.close()
            self.reports[suite] = result.report
            self.run_ids[suite] = result.run_id
        return self.reports[suite]


class AssayCase(pytest.Item):
    """One case of a suite, as a pytest item."""

    def __init__(self, *, suite: str, case_id: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.suite = suite
        self.case_id = case_id

    def _rows(self) -> list[Any]:
        state = self.config.stash[_STATE]
        report = state.report(self.suite)
        return [row for row in report.cases if row.id == self.case_id]

    def setup(self) -> None:
        rows = self._rows()
        bad = [r for r in rows if r.status in ("error", "missing")]
        if bad:  # a failure outside the test call: pytest reports it as an error
            pytest.fail("; ".join(_line(r) for r in bad), pytrace=False)

    def runtest(self) -> None:
        rows = self._rows()
        failed = [r for r in rows if r.status == "failed"]
        if failed:
            pytest.fail("; ".join(_line(r) for r in failed), pytrace=False)
        ungraded = [r for r in rows if r.status == "ungraded"]
        if ungraded:
            pytest.xfail("; ".join(_line(r) for r in ungraded))

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return Path(self.suite), None, f"assay case {self.case_id}"


def _line(row: Any) -> str:
    trial = f" (trial {row.trial})" if row.trial > 1 else ""
    if str(row.reason).startswith(row.status):
        return f"{row.id}{trial}: {row.reason}"
    return f"{row.id}{trial}: {row.status}: {row.reason}"


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    suites = config.getoption("--assay")
    if not suites:
        return
    # deferred: pytest loads this plugin in every session; assay loads when a suite runs
    from assay.errors import AssayError
    from assay.load import load_suite

    state = config.stash[_STATE]
    for path in suites:
        try:
            suite = load_suite(Path(path))
            cases = suite.load_dataset().cases
        except AssayError as err:  # the same message `assay run` gives, without a traceback
            raise pytest.UsageError(f"--assay {path}: {err}") from None
        key = str(Path(path))
        state.suites[key] = suite
        name = Path(path).stem
        for case in cases:
            items.append(
                AssayCase.from_parent(
                    session, name=f"{name}::{case.id}", suite=key, case_id=case.id
                )
            )


def pytest_collection_finish(session: pytest.Session) -> None:
    state = session.config.stash.get(_STATE, None)
    if state is None:
        return
    for item in session.items:  # after -k / -m deselection: only these cases run
        if isinstance(item, AssayCase):
            state.selected.setdefault(item.suite, []).append(item.case_id)


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("--assay") and getattr(config.option, "numprocesses", None):
        raise pytest.UsageError(
            "--assay runs each suite once, in this process: run without xdist (-n 0)"
        )
    config.stash[_STATE] = _Session(config)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    state = session.config.stash.get(_STATE, None)
    if state is None or not state.reports:
        return
    # deferred: pytest loads this plugin in every session; assay loads when a suite runs
    from assay.gates import evaluate_gates, gates_passed

    for key, report in state.reports.items():
        rules = state.suites[key].gate_rules()
        if rules and not gates_passed(evaluate_gates(report, rules)):
            state.gates_failed.append(key)
        destination = session.config.getoption("--assay-report")
        if destination:
            _write_report(report, Path(destination), len(state.reports) > 1, key)
    if state.gates_failed and session.exitstatus == 0:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def _write_report(report: Report, destination: Path, several: bool, suite: str) -> None:
    # deferred: pytest loads this plugin in every session; assay loads when a suite runs
    from assay.render import render

    if several:
        destination = destination.with_name(f"{Path(suite).stem}-{destination.name}")
    fmt = {".json": "json", ".md": "markdown"}.get(destination.suffix, "text")
    destination.parent.mkdir(parents=True, exist_ok=True)
    destination.write_text(render(report, fmt), encoding="utf-8")


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    state = config.stash.get(_STATE, None)
    if state is None or not state.reports:
        return
    # deferred: pytest loads this plugin in every session; assay loads when a suite runs
    from assay.gates import GateOutcome, evaluate_gates
    from assay.render import render

    terminalreporter.section("assay")
    for key, report in state.reports.items():
        rate = report.task_success
        counts = report.statuses
        terminalreporter.write_line(
            f"{key}: run {state.run_ids[key]}: task success {rate.numerator}/{rate.denominator}"
            f" · passed {counts.passed} + failed {counts.failed} + error {counts.error} + "
            f"missing {counts.missing} + ungraded {counts.ungraded} = {report.total}"
        )
        rules = state.suites[key].gate_rules()
        if rules:
            outcome = GateOutcome.of(evaluate_gates(report, rules), report)
            for line in render(outcome, "text").splitlines():
                terminalreporter.write_line(f"  {line}")
    if state.gates_failed:
        terminalreporter.write_line(f"assay gates failed: {', '.join(state.gates_failed)}")


@pytest.fixture(scope="session")
def assay_run(pytestconfig: pytest.Config) -> Callable[..., Report]:
    """Run a suite file inside a test and get its report (stored like ``assay run``)."""
    # deferred: pytest loads this plugin in every session; assay loads only when asked for
    from assay.runner import Selection, run_suite
    from assay.store import open_store

    def run(suite: str | Path, *, ids: tuple[str, ...] = (), store: str | None = None) -> Report:
        opened = open_store(store or pytestconfig.getoption("--assay-store"))
        try:
            return run_suite(Path(suite), opened, selection=Selection(ids=ids)).report
        finally:
            opened.close()

    return run
