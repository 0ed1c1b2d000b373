"""Usage and cost of a run: tokens, latency and money, with how many case-trials reported
each. Unknown usage is never counted as 0: totals are over the case-trials that reported,
and the report says how many of the recorded ones that is."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from pydantic import BaseModel, ConfigDict, Field

from assay.outcomes import Record


class Price(BaseModel):
    """One model's price in US dollars per million input and output tokens."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    input: float = Field(ge=0, description="USD per million input (prompt) tokens")
    output: float = Field(ge=0, description="USD per million output (completion) tokens")


class PriceInfo(BaseModel):
    """The price table a cost was computed with: where it came from, its hash, the price
    used (null when the table has no price for the run's model)."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    source: str | None = None
    hash: str
    model: str | None = None
    price: Price | None = None


class Latency(BaseModel):
    """Latency of the final attempt of each case-trial that recorded one, in seconds."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    count: int
    p50_s: float
    p95_s: float
    max_s: float


class UsageSummary(BaseModel):
    """Tokens, latency and cost over the recorded case-trials.

    Tokens and cost are what the run paid: over the case-trials that called the target
    (``case_trials - cached``). A case-trial served from the response cache keeps the usage
    of the run that made its reply; its cost is counted apart, as ``cost_avoided_usd``,
    never as paid again. ``usage_reported`` of the calling case-trials reported token
    usage; ``input_tokens`` and ``output_tokens`` are sums over those that reported each
    (null when none did). ``cost_usd`` is the sum over the ``cost_reported`` case-trials
    whose cost is known (both token counts and a price); null, with ``cost_note`` saying
    why, otherwise. Latency is over every recorded case-trial (a served reply keeps the
    latency measured when it was made).
    """

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    case_trials: int = Field(description="Case-trials with a recorded outcome")
    cached: int = Field(
        default=0,
        description="Of those, how many were served from the response cache (their tokens "
        "and cost are not counted as paid)",
    )
    usage_reported: int = Field(
        description="Of the case-trials that called the target, how many reported token usage"
    )
    input_tokens: int | None = None
    input_reported: int = 0
    output_tokens: int | None = None
    output_reported: int = 0
    latency: Latency | None = None
    cost_usd: float | None = None
    cost_reported: int = 0
    cost_note: str | None = None
    cost_avoided_usd: float | None = Field(
        default=None,
        description="What the cached case-trials' replies cost when they were made (priced "
        "with the same table): avoided by the cache, not paid again; null when none was "
        "served from the cache or their cost is unknown",
    )
    cost_avoided_reported: int = Field(
        default=0, description="Cached case-trials whose cost is known (in cost_avoided_usd)"
    )
    prices: PriceInfo | None = None

    @property
    def called(self) -> int:
        """Case-trials that called the target (not served from the cache)."""
        return self.case_trials - self.cached

    @property
    def latency_p95_s(self) -> float | None:
        return self.latency.p95_s if self.latency is not None else None


class JudgeUsage(BaseModel):
    """The model judge's own calls and tokens, kept apart from the target's usage.

    ``asked`` case-trials were put to the judge (a request was built); ``cached`` of them
    were answered from the response cache, so ``asked - cached`` were sent, of which
    ``failed`` failed after every retry. Tokens are sums over the sent calls that reported
    each (``input_reported``, ``output_reported``; null when none did); ``attempts``
    counts every HTTP attempt of the sent calls, retries included.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    asked: int
    cached: int = 0
    failed: int = 0
    attempts: int = 0
    input_tokens: int | None = None
    input_reported: int = 0
    output_tokens: int | None = None
    output_reported: int = 0

    @property
    def sent(self) -> int:
        """Judge calls made by this run (not served from the cache)."""
        return self.asked - self.cached


def judge_usage(labels: Sequence[Sequence[str]], cache_hit: str) -> JudgeUsage | None:
    """The judge's usage from the labels of each judgment (None when no case-trial was put
    to a model judge): a judgment that called the judge carries ``rubric_version=…``,
    ``judge_input_tokens=N``, ``judge_output_tokens=N`` and ``judge_attempts=N`` (when
    retried); ``cache_hit`` marks a reply served from the cache."""
    asked = cached = failed = attempts = 0
    inputs: list[int] = []
    outputs: list[int] = []
    for own in labels:
        found = dict(label.split("=", 1) for label in own if "=" in label)
        if "rubric_version" not in found or "prompt_version" not in found:
            continue
        asked += 1
        if cache_hit in own:
            cached += 1
            continue
        attempts += int(found.get("judge_attempts", "1"))
        failed += "judge_score" not in found and "rejected" not in found
        if "judge_input_tokens" in found:
            inputs.append(int(found["judge_input_tokens"]))
        if "judge_output_tokens" in found:
            outputs.append(int(found["judge_output_tokens"]))
    if not asked:
        return None
    return JudgeUsage(
        asked=asked,
        cached=cached,
        failed=failed,
        attempts=attempts,
        input_tokens=sum(inputs) if inputs else None,
        input_reported=len(inputs),
        output_tokens=sum(outputs) if outputs else None,
        output_reported=len(outputs),
    )


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q`` quantile (0–1) of ``values``, interpolating linearly between the two
    closest ranks (numpy's default). ``values`` must not be empty."""
    ordered = sorted(values)
    position = (len(ordered) - 1) * q
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def latency_of(records: Sequence[Record]) -> Latency | None:
    """p50, p95 and max of the records' latencies (None when none recorded one)."""
    seconds = [r.latency_ms / 1000 for r in records if r.latency_ms is not None]
    if not seconds:
        return None
    return Latency(
        count=len(seconds),
        p50_s=round(percentile(seconds, 0.5), 6),
        p95_s=round(percentile(seconds, 0.95), 6),
        max_s=round(max(seconds), 6),
    )


def record_cost(record: Record, price: Price) -> float | None:
    """What one case-trial cost, or None when either token count is unknown."""
    usage = record.usage
    if usage is None or usage.input_tokens is None or usage.output_tokens is None:
        return None
    return (usage.input_tokens * price.input + usage.output_tokens * price.output) / 1_000_000


def served_from_cache(record: Record) -> bool:
    """Whether ``record`` is a reply served from the response cache."""
    note = record.extra.get("cache")
    return isinstance(note, dict) and note.get("hit") is True


def _total_cost(records: Sequence[Record], price: Price) -> tuple[float | None, int]:
    costs = [c for c in (record_cost(r, price) for r in records) if c is not None]
    return (round(math.fsum(costs), 10) if costs else None), len(costs)


def summarize_usage(
    records: Sequence[Record],
    prices: Mapping[str, Price] | None = None,
    model: str | None = None,
    price_source: str | None = None,
    price_hash: str | None = None,
) -> UsageSummary:
    """The usage section for ``records`` (cost from ``prices[model]`` when given)."""
    served = [r for r in records if served_from_cache(r)]
    called = [r for r in records if not served_from_cache(r)] if served else records
    usages = [r.usage for r in called if r.usage is not None]
    inputs = [u.input_tokens for u in usages if u.input_tokens is not None]
    outputs = [u.output_tokens for u in usages if u.output_tokens is not None]
    cost: float | None = None
    counted = 0
    avoided: float | None = None
    avoided_counted = 0
    note: str | None = None
    info: PriceInfo | None = None
    if prices is None:
        note = "no price table (give one with the suite's prices key or --prices)"
    else:
        price = prices.get(model) if model is not None else None
        info = PriceInfo(source=price_source, hash=price_hash or "", model=model, price=price)
        if price is None:
            note = f"the price table has no price for model {model!r}" if model else "no model"
        else:
            cost, counted = _total_cost(called, price)
            avoided, avoided_counted = _total_cost(served, price)
            if not called:
                cost, note = 0.0, "every case-trial was served from the cache: no call was paid"
            elif cost is None:
                note = (
                    "no case-trial that called the target reported both input and output tokens"
                    if served
                    else "no case-trial reported both input and output tokens"
                )
    return UsageSummary(
        case_trials=len(records),
        cached=len(served),
        usage_reported=len(usages),
        input_tokens=sum(inputs) if inputs else None,
        input_reported=len(inputs),
        output_tokens=sum(outputs) if outputs else None,
        output_reported=len(outputs),
        latency=latency_of(records),
        cost_usd=cost,
        cost_reported=counted,
        cost_note=note,
        cost_avoided_usd=avoided,
        cost_avoided_reported=avoided_counted,
        prices=info,
    )
