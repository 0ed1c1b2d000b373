"""A run request refuses options that contradict each other before anything runs, and
says which run it makes: a matrix, one suite's run or its resume."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.errors import AssayConfigError
from assay.load import load_suite
from assay.runner import Overrides, RunRequest, Selection

SUITE = Path(__file__).resolve().parents[3] / "examples" / "policy" / "suite.yaml"


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ({}, "give a suite file to run, or --resume RUN_ID"),
        (
            {"resume": "r1", "overrides": Overrides(max_calls=3)},
            "--max-cost, --max-calls and --max-tokens budget a new run",
        ),
        (
            {"resume": "r1", "overrides": Overrides(prices="p.yaml")},
            "(re-price it with: assay report r1 --prices p.yaml)",
        ),
        (
            {"resume": "r1", "overrides": Overrides(seed=3)},
            "--until-decided and --seed start a sequential run",
        ),
        ({"suite": SUITE, "pilot": "r0"}, "--pilot gives a dry run's forecast its usage"),
        ({"resume": "r1", "dry_run": True}, "--dry-run needs a suite file"),
        ({"suite": SUITE, "overrides": Overrides(seed=2**63)}, "--seed 9223372036854775808:"),
        ({"resume": "mx-1", "sets": ("grader=a,b",)}, "--resume finishes the stored matrix"),
    ],
)
def test_contradicting_options_are_refused_naming_them(
    given: dict[str, object], message: str
) -> None:
    with pytest.raises(AssayConfigError) as refused:
        RunRequest(**given)  # type: ignore[arg-type]
    assert message in str(refused.value)


def test_a_matrix_refuses_what_only_one_run_takes() -> None:
    sets = ("target.model=a,b",)
    assert RunRequest(suite=SUITE, sets=sets).is_matrix(None)
    assert RunRequest(resume="mx-1").is_matrix(None)
    assert not RunRequest(resume="r1").is_matrix(None)
    assert not RunRequest(suite=SUITE).is_matrix(load_suite(SUITE))
    with pytest.raises(AssayConfigError, match="--name names one run"):
        RunRequest(suite=SUITE, sets=sets, name="n").is_matrix(None)
    with pytest.raises(AssayConfigError, match="--until-decided runs one suite"):
        RunRequest(suite=SUITE, sets=sets, overrides=Overrides(until_decided=True)).is_matrix(None)
    with pytest.raises(AssayConfigError, match="--executor ray runs one suite"):
        RunRequest(suite=SUITE, sets=sets, overrides=Overrides(executor="ray")).is_matrix(None)


def test_a_resumed_run_keeps_its_own_cases_and_name() -> None:
    with pytest.raises(AssayConfigError, match="drop --limit/--slice/--ids"):
        RunRequest(resume="r1", selection=Selection(limit=2)).single(None)
    with pytest.raises(AssayConfigError, match="a resumed run keeps its name"):
        RunRequest(resume="r1", name="n").single(None)
    assert RunRequest(resume="r1").single(None) is None


def test_receiving_spans_records_them_and_a_cache_path_turns_the_cache_on() -> None:
    request = RunRequest(suite=SUITE, receive_spans=True, overrides=Overrides(trace=False))
    assert request.run_overrides.trace is True
    cached = RunRequest(suite=SUITE, overrides=Overrides(cache_path="c.db")).run_overrides
    assert cached.cache is True
    kept_off = Overrides(cache=False, cache_path="c.db")
    assert RunRequest(suite=SUITE, overrides=kept_off).run_overrides.cache is False


def test_the_progress_label_names_the_suite_file_or_the_run_resumed() -> None:
    assert RunRequest(suite=SUITE).label == "policy/suite.yaml"
    assert RunRequest(resume="r1").label == "run r1"
