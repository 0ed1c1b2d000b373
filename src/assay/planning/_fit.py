"""Whether a forecast run fits a budget (``max_cost``, ``max_calls``, ``max_tokens``), and
about how many of its case-trials would run when it does not."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from assay.planning._model import Forecast


class LimitCheck(BaseModel):
    """One limit of a budget against the forecast's figure for it."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    limit: str = Field(description="max_cost, max_calls or max_tokens")
    allowed: float = Field(description="The limit (USD, calls or tokens)")
    forecast: float | None = Field(
        description="The forecast's cost, calls or tokens (null: the pilot did not report it)"
    )
    runs: int | None = Field(
        description="About how many case-trials run within the limit, at the pilot's mean "
        "spending per call (all of them when it fits; null when unknown)"
    )

    @property
    def exceeded(self) -> bool:
        return self.forecast is not None and self.forecast > self.allowed


class BudgetFit(BaseModel):
    """A forecast against every limit a budget sets."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    case_trials: int
    checks: list[LimitCheck]

    @property
    def fits(self) -> bool | None:
        """True when every limit holds the forecast, False when one is exceeded, None when
        a limit cannot be checked and none is exceeded."""
        if any(c.exceeded for c in self.checks):
            return False
        return None if any(c.forecast is None for c in self.checks) else True

    @property
    def runs(self) -> int | None:
        """About how many case-trials would run: the fewest any exceeded limit lets run."""
        cut = [c.runs for c in self.checks if c.exceeded and c.runs is not None]
        return min(cut) if cut else (self.case_trials if self.fits else None)


def budget_fit(forecast: Forecast, limits: Mapping[str, Any]) -> BudgetFit:
    """``forecast`` against each limit ``limits`` sets (``max_cost`` USD, ``max_calls``,
    ``max_tokens`` input and output): a limit it exceeds lets about limit ÷ (the forecast's
    mean spending per call) case-trials run."""
    tokens = None
    if forecast.input_tokens is not None or forecast.output_tokens is not None:
        tokens = (forecast.input_tokens or 0) + (forecast.output_tokens or 0)
    figures: dict[str, float | None] = {
        "max_cost": forecast.cost_usd,
        "max_calls": float(forecast.calls),
        "max_tokens": None if tokens is None else float(tokens),
    }
    checks = []
    for name, figure in figures.items():
        allowed = limits.get(name)
        if allowed is None:
            continue
        checks.append(
            LimitCheck(
                limit=name,
                allowed=float(allowed),
                forecast=figure,
                runs=_runs_within(float(allowed), figure, forecast.calls),
            )
        )
    return BudgetFit(case_trials=forecast.calls, checks=checks)


def _runs_within(allowed: float, total: float | None, calls: int) -> int | None:
    if total is None:
        return None
    if total <= allowed or calls == 0:
        return calls
    per_call = total / calls
    # the tolerance keeps a limit met exactly (3 calls at $1.00 within $3.00) from losing one
    return min(calls, math.floor(allowed / per_call * (1 + 1e-9)))
