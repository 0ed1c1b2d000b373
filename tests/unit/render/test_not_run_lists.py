"""The cases a sequential run never drew and the case-trials a budget left unrun: the text
and Markdown reports name the first ones and count the rest; JSON lists every one."""

from __future__ import annotations

import json

import pytest

from assay.render import render
from assay.render._lists import IDS_SHOWN
from assay.report import BudgetSection, Report, SequentialSection

CASES = 1000


def _cut(report: Report, undrawn: int, unrun: int) -> Report:
    sequential = SequentialSection(
        seed=7,
        alpha=0.05,
        cases=CASES,
        drawn=CASES - undrawn,
        decided_at=CASES - undrawn,
        stopped_early=undrawn > 0,
        verdict="pass",
        rules=[],
        not_drawn=[f"U{i:04d}" for i in range(undrawn)],
    )
    budget = BudgetSection(
        max_cost=None,
        max_calls=CASES - unrun,
        max_tokens=None,
        calls=CASES - unrun,
        tokens=0,
        cost_usd=None,
        reached=unrun > 0,
        case_trials=CASES,
        not_run=[f"B{i:04d}#1" for i in range(unrun)],
    )
    return report.model_copy(update={"sequential": sequential, "budget": budget})


@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_a_thousand_ids_show_the_first_and_count_the_rest(report: Report, fmt: str) -> None:
    out = render(_cut(report, undrawn=CASES, unrun=CASES), fmt)
    more = CASES - IDS_SHOWN
    assert out.count(f"… and {more:,} more (all listed in the JSON report)") == 2
    assert f"Cases not drawn: {CASES:,}" in out
    assert f"Case-trials not run (budget reached): {CASES:,}" in out
    for i in range(IDS_SHOWN):
        assert f"U{i:04d}" in out and f"B{i:04d}#1" in out
    assert f"U{IDS_SHOWN:04d}" not in out and f"B{IDS_SHOWN:04d}#1" not in out
    assert len(out.splitlines()) < 150


@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_a_short_list_is_named_whole(report: Report, fmt: str) -> None:
    out = render(_cut(report, undrawn=IDS_SHOWN, unrun=3), fmt)
    assert "more (all listed in the JSON report)" not in out
    assert f"U{IDS_SHOWN - 1:04d}" in out and "B0002#1" in out


def test_json_lists_every_id(report: Report) -> None:
    body = json.loads(render(_cut(report, undrawn=CASES, unrun=CASES), "json"))
    assert body["sequential"]["not_drawn"] == [f"U{i:04d}" for i in range(CASES)]
    assert body["budget"]["not_run"] == [f"B{i:04d}#1" for i in range(CASES)]
