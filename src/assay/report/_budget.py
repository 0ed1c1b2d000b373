"""A run given a budget (``max_cost``, ``max_calls``, ``max_tokens``): what it may spend,
what it spent, and the case-trials it did not start once the next could exceed it.

What such a run records (``metadata["budget"]``), read here::

    {"max_cost": 0.5, "max_calls": 200, "max_tokens": null}

A case-trial not run because the budget was reached is not missing: the report's figures
are over the case-trials run, and its denominators say so.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from assay.report._denominators import name_denominators

BUDGET_KEY = "budget"
"""The run metadata key of a run's budget."""

BUDGET_LIMITS = ("max_cost", "max_calls", "max_tokens")
"""The limits a budget may set: USD (priced with the run's table), target calls, tokens."""


class BudgetSection(BaseModel):
    """A run's budget: its limits, what it spent, and whether it was cut short by them."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    max_cost: float | None = Field(description="The limit on cost, in USD (null: none)")
    max_calls: int | None = Field(description="The limit on the target's calls (null: none)")
    max_tokens: int | None = Field(description="The limit on tokens, input and output (null: none)")
    calls: int = Field(description="The target's calls the run made (case-trials run)")
    tokens: int = Field(description="Tokens, input and output, the case-trials run reported")
    cost_usd: float | None = Field(description="What the case-trials run cost (null: unpriced)")
    reached: bool = Field(
        description="The run stopped starting case-trials because the next could exceed the "
        "budget: its figures are over the case-trials run, and the rest are not missing"
    )
    case_trials: int = Field(description="The run's case-trials, run or not")
    not_run: list[str] = Field(
        default_factory=list,
        description="The case-trials not run because the budget was reached, as 'case#trial'",
    )


def budget_settings(metadata: Mapping[str, Any]) -> dict[str, Any] | None:
    """A run's budget from its metadata (None for a run without one)."""
    found = metadata.get(BUDGET_KEY)
    return found if isinstance(found, dict) else None


def budget_denominator(section: BudgetSection, slice_: bool = False) -> str:
    """'case-trials run before the budget was reached, 40 of 100': a cut run's denominator."""
    run = section.case_trials - len(section.not_run)
    what = "case-trials of the slice run" if slice_ else "case-trials run"
    return f"{what} before the budget was reached, {run:,} of {section.case_trials:,}"


def budget_limits_text(section: BudgetSection) -> str:
    """'max_cost $0.50, max_calls 200': the limits set."""
    parts = []
    if section.max_cost is not None:
        parts.append(f"max_cost ${section.max_cost:g}")
    if section.max_calls is not None:
        parts.append(f"max_calls {section.max_calls:,}")
    if section.max_tokens is not None:
        parts.append(f"max_tokens {section.max_tokens:,}")
    return ", ".join(parts)


def budget_lines(section: BudgetSection | None) -> list[str]:
    """What a run with a budget says: its limits, what it spent, and when it was cut short,
    the case-trials not run (empty without a budget)."""
    if section is None:
        return []
    cost = f"${section.cost_usd:.4f}" if section.cost_usd is not None else "cost unknown"
    spent = f"{section.calls:,} calls, {section.tokens:,} tokens, {cost}"
    if not section.reached:
        return [f"Budget ({budget_limits_text(section)}): not reached; spent {spent}."]
    run = section.case_trials - len(section.not_run)
    return [
        f"BUDGET REACHED ({budget_limits_text(section)}): the run was cut short after "
        f"{run:,} of {section.case_trials:,} case-trials; spent {spent}.",
        f"The figures below are over the {run:,} case-trials run; the "
        f"{len(section.not_run):,} not run because the budget was reached are not missing.",
    ]


def name_run(figures: dict[str, Any], section: BudgetSection) -> dict[str, Any]:
    """The fields of a report whose rates are over the case-trials run (``figures``: its
    ``task_success``, ``answer_coverage``, ``slices`` and ``trial_summary``) with each
    denominator named so, for a run the budget cut short."""
    return name_denominators(
        figures, budget_denominator(section), budget_denominator(section, slice_=True)
    )
