"""An agent's counts: one function reads them off a trajectory, every case row and the
report's totals (per slice too) come from it; a run without trajectories gains nothing."""

from __future__ import annotations

import json

import pytest
from tests.agent_runs import agent_report, looping, refund_failed

from assay.errors import AssayInputError
from assay.outcomes import Answer, Record, Trajectory
from assay.render import render
from assay.report import AgentCounts, agent_counts, agent_summary, counts_of


def test_counts_come_from_the_trajectory_s_own_properties() -> None:
    counts = agent_counts(looping())
    assert counts == AgentCounts(
        steps=6, tool_calls=3, tool_errors=0, malformed_calls=2, ended="step_limit"
    )
    assert agent_counts(refund_failed()).tool_errors == 1
    assert agent_counts(Trajectory()).steps == 0


def test_totals_add_every_case_trial_and_each_slice_apart() -> None:
    a, b = agent_counts(refund_failed()), agent_counts(looping())
    summary = agent_summary([("refunds", a), ("orders", b), ("orders", None), ("orders", b)])
    assert summary is not None
    assert (summary.case_trials, summary.steps, summary.tool_calls) == (3, 17, 8)
    assert (summary.tool_errors, summary.malformed_calls, summary.step_limit) == (1, 4, 2)
    assert summary.slices["orders"].case_trials == 2
    assert summary.slices["orders"].malformed_calls == 4
    assert summary.slices["refunds"].tool_errors == 1
    assert agent_summary([("s", None)]) is None


def test_report_rows_and_totals_carry_the_counts() -> None:
    report = agent_report()
    rows = {row.id: row for row in report.cases}
    assert rows["refund"].agent == agent_counts(refund_failed())
    assert rows["status"].agent == agent_counts(looping())
    assert rows["plain"].agent is None and rows["plain"].trajectory is None
    assert rows["refund"].trajectory == refund_failed()
    assert report.agent is not None
    assert (report.agent.case_trials, report.agent.steps, report.agent.tool_errors) == (2, 11, 1)
    assert report.agent.malformed_calls == 2 and report.agent.step_limit == 1


def test_a_run_without_trajectories_has_no_agent_section(report: object) -> None:
    data = json.loads(render(report, "json"))  # type: ignore[arg-type]
    assert "agent" not in data
    assert all("agent" not in row and "trajectory" not in row for row in data["cases"])
    text = render(report, "text")  # type: ignore[arg-type]
    assert "Agents" not in text and "tool call" not in text


def test_a_trajectory_that_is_not_one_is_refused_naming_the_case_trial() -> None:
    record = Record(
        case_id="C1", trial=2, outcome=Answer(fact="x"), extra={"trajectory": {"steps": 3}}
    )
    with pytest.raises(AssayInputError, match=r"case 'C1' trial 2: extra\.trajectory\.steps"):
        counts_of(record)
