"""Keeping a run within its budget: no case-trial starts once it could exceed it."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from assay.errors import AssayConfigError
from assay.load import PriceTable
from assay.outcomes import Record
from assay.report import Price, record_cost, served_from_cache
from assay.runner._execute import WorkItem


class BudgetMonitor:
    """A run's budget (``max_cost`` USD, ``max_calls``, ``max_tokens``) against what its
    finished case-trials spent. A case-trial starts only while the spending so far, plus
    the in-flight ones and itself each at the most one finished call spent, stays within
    every limit; before any call has finished, one starts and the others wait for it. Once
    one is refused, none starts again (those in flight finish and are recorded)."""

    def __init__(self, limits: Mapping[str, Any], price: Price | None) -> None:
        self.max_cost = _limit(limits.get("max_cost"))
        self.max_calls = _limit(limits.get("max_calls"))
        self.max_tokens = _limit(limits.get("max_tokens"))
        self.price = price
        self.calls = 0
        self.tokens = 0
        self.cost = 0.0
        self.most = (0.0, 0.0, 0.0)
        """The most one finished call spent: (calls, tokens, cost)."""
        self.finished = 0
        self.in_flight = 0
        self.reached = False
        self._changed: asyncio.Event | None = None

    def _fits(self, starting: int) -> bool:
        calls, tokens, cost = self.most
        spent = ((self.calls, self.max_calls), (self.tokens, self.max_tokens))
        for (now, limit), each in zip(spent, (calls, tokens), strict=True):
            if limit is not None and now + starting * each > limit:
                return False
        return self.max_cost is None or self.cost + starting * cost <= self.max_cost

    async def admit(self, item: WorkItem) -> bool:
        """Whether ``item`` may start: waits while in-flight calls decide it."""
        while not self.reached:
            if self.finished == 0 and self.in_flight == 0:
                break  # no measure yet: start one
            if self.finished > 0 and self._fits(self.in_flight + 1):
                break
            if self.in_flight == 0:
                self.reached = True
                break
            if self._changed is None:
                self._changed = asyncio.Event()
            changed = self._changed
            await changed.wait()
        if self.reached:
            return False
        self.in_flight += 1
        return True

    def done(self, record: Record) -> None:
        """A case-trial this run started has finished (emitted with ``record``)."""
        self.in_flight = max(0, self.in_flight - 1)
        self.finished += 1
        called = not served_from_cache(record)
        usage = record.usage
        tokens = 0
        if called and usage is not None:
            tokens = (usage.input_tokens or 0) + (usage.output_tokens or 0)
        cost = 0.0
        if called and self.price is not None:
            cost = record_cost(record, self.price) or 0.0
        self.calls += int(called)
        self.tokens += tokens
        self.cost += cost
        m = self.most
        self.most = (max(m[0], float(called)), max(m[1], tokens), max(m[2], cost))
        if self._changed is not None:  # wake the waiting workers to decide again
            self._changed.set()
            self._changed = None


def _limit(value: Any) -> float | None:
    return None if value is None else float(value)


def budget_limits(
    suite_limits: Mapping[str, Any], given: Mapping[str, Any]
) -> dict[str, Any] | None:
    """The run's budget: each limit given on the command line over the suite's (None
    when neither sets one)."""
    limits = {k: given.get(k) if given.get(k) is not None else v for k, v in suite_limits.items()}
    return limits if any(v is not None for v in limits.values()) else None


def budget_price(
    limits: Mapping[str, Any], prices: PriceTable | None, model: str | None
) -> Price | None:
    """The price a ``max_cost`` is spent at; ``AssayConfigError`` when it has none."""
    if limits.get("max_cost") is None:
        return None
    if prices is None:
        raise AssayConfigError(
            "max_cost needs a price table: give the suite a prices key, or --prices"
        )
    found = prices.prices.get(model) if model is not None else None
    if found is None:
        raise AssayConfigError(
            f"max_cost: the price table {prices.source} has no price for the target's model "
            f"{model!r}"
        )
    return found
