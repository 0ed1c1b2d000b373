"""A stored agent run end to end: ``assay report`` states the same counts as the run's own
report, ``assay trace`` prints the trajectory, ``assay diagnose`` names the step behind a
failure and ``assay compare`` where two runs' trajectories part."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.agent_runs import XSS, agent_report, store_agent_runs
from tests.conftest import RunAssay

from assay.render import render


@pytest.fixture
def store(tmp_path: Path) -> str:
    return store_agent_runs(f"sqlite:///{tmp_path / 'assay.db'}")


@pytest.mark.parametrize("run_id", ["agents-base", "agents-fixed"])
def test_a_stored_run_states_the_counts_of_its_own_report(
    run_assay: RunAssay, store: str, run_id: str
) -> None:
    own = json.loads(render(agent_report(run_id), "json"))
    done = run_assay("report", run_id, "--store", store, "--format", "json")
    assert done.returncode == 0, done.stderr
    stored = json.loads(done.stdout)
    assert stored["agent"] == own["agent"] and stored["agent"]["case_trials"] == 2
    assert [r.get("agent") for r in stored["cases"]] == [r.get("agent") for r in own["cases"]]
    assert [r.get("trajectory") for r in stored["cases"]] == [
        r.get("trajectory") for r in own["cases"]
    ]
    for fmt in ("text", "markdown"):
        shown = run_assay("report", run_id, "--store", store, "--format", fmt).stdout
        assert _agents(shown) == _agents(render(agent_report(run_id), fmt))
        assert "11 steps · 5 tool calls" in _agents(shown)


def _agents(text: str) -> str:
    """The agents' section of a text or Markdown report."""
    return text.split("Agents", 1)[1].split("Slices", 1)[0]


def test_trace_prints_the_trajectory_of_a_case_without_spans(
    run_assay: RunAssay, store: str
) -> None:
    done = run_assay("trace", "agents-base", "refund", "--store", store)
    assert done.returncode == 0, done.stderr
    assert "step 4 · tool issue_refund · error" in done.stdout
    assert "error: payment service unavailable" in done.stdout
    assert XSS in done.stdout and "state after:" in done.stdout
    plain = run_assay("trace", "agents-base", "plain", "--store", store)
    assert plain.returncode == 2 and "Traceback" not in plain.stderr


def test_diagnose_names_the_step(run_assay: RunAssay, store: str) -> None:
    done = run_assay("diagnose", "agents-base", "refund", "--store", store, "-f", "json")
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert (found["stage"], found["step"]) == ("tool_handling", 4)
    every = run_assay("diagnose", "agents-base", "--all", "--store", store)
    assert "step 4 (tool execution): issue_refund" in every.stdout
    assert "the loop stopped at the step limit after 6 steps" in every.stdout


def test_compare_says_where_the_trajectories_part(run_assay: RunAssay, store: str) -> None:
    done = run_assay("compare", "agents-base", "agents-fixed", "--store", store, "-f", "json")
    assert done.returncode == 0, done.stderr
    (fixed,) = json.loads(done.stdout)["fixed"]
    assert fixed["divergence"]["call"] == 2
    assert fixed["divergence"]["candidate"]["arguments"]["method"] == "card"
    text = run_assay("compare", "agents-base", "agents-fixed", "--store", store).stdout
    assert "call 2: baseline step 4 issue_refund" in text
