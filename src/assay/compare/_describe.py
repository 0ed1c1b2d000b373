"""What a comparison says besides its counts: the configuration that changed between the
runs, the verdict in plain words, and the two runs' usage side by side."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from assay.compare._model import ConfigChange, Delta, McNemar, UsageComparison, UsageSide
from assay.report import UsageSummary


def _flatten(config: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for key, value in config.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping) and value:
            flat.update(_flatten(value, f"{name}."))
        else:
            flat[name] = value
    return flat


# Facts about one execution, not its configuration: they always differ between runs.
VOLATILE = frozenset({"started_at", "ended_at", "status", "run_id", "suite"})


def config_diff(baseline: Mapping[str, Any], candidate: Mapping[str, Any]) -> list[ConfigChange]:
    """Every configuration value (dotted key) that differs between the two runs; when and
    how long each ran, its status and its suite file path are not configuration."""
    b, c = _flatten(baseline), _flatten(candidate)
    return [
        ConfigChange(key=k, baseline=b.get(k), candidate=c.get(k))
        for k in sorted(b.keys() | c.keys())
        if b.get(k) != c.get(k) and k.rsplit(".", 1)[-1] not in VOLATILE
    ]


def p_text(p: float, alpha: float) -> str:
    """The p-value with three significant digits, or as many more as it takes to read on
    the same side of ``alpha`` as the exact value (0.04996 is '0.04996', never '0.05')."""
    alpha = round(alpha, 12)  # 1 - 0.95 is 0.05000000000000004, above '0.05'
    for digits in range(3, 17):
        text = f"{p:.{digits}g}"
        if (float(text) < alpha) == (p < alpha):
            return text
    return repr(p)


def plain_words(
    test: McNemar,
    delta: Delta,
    paired: int,
    alpha: float,
    pass_moves: int = 0,
    listed: tuple[int, int] | None = None,
) -> str:
    """'7 fixed, 2 broken; p = 0.18: not distinguishable from noise at these counts'.

    ``listed`` is (fixed, broken) as the comparison lists them (case-trials that went from
    failed to passed and back); it leads the sentence, so the sentence and the tables give
    one count. ``pass_moves`` counts case-trials that moved between passed and error,
    missing or ungraded: listed as moved, yet part of the test on task success. When the
    test counts something else than the lists (those moves, or cases over several trials),
    the sentence says what it counts.
    """
    if paired == 0:
        return "nothing to compare: no paired cases"
    by_case = test.unit != "case-trials"
    fixed, broken = listed if listed is not None else (test.fixed, test.broken)
    unit = " case-trials" if by_case and listed is not None else (" cases" if by_case else "")
    head = f"{fixed}{unit} fixed, {broken} broken"
    if pass_moves:
        head += f", {pass_moves} moved to or from passed"
    if by_case and listed is not None:
        head += (
            f" (the test counts cases: {test.fixed} with more passing trials, "
            f"{test.broken} with fewer)"
        )
    elif (test.fixed, test.broken) != (fixed, broken):
        head += (
            f" (the test counts every move to or from passed: {test.fixed} up, {test.broken} down)"
        )
    if test.fixed + test.broken == 0:
        if fixed + broken + pass_moves == 0:
            return f"{head}: no case changed between passing and not passing"
        return f"{head}: no case passes more or fewer trials than before"
    return f"{head}; p = {p_text(test.p_value, alpha)}: {verdict_words(test, alpha)}"


def verdict_words(test: McNemar, alpha: float) -> str:
    """The test's verdict: 'the candidate is better beyond noise at the 95% level' (or
    worse), or 'not distinguishable from noise at these counts'."""
    if test.fixed + test.broken == 0 or test.p_value >= alpha:
        return "not distinguishable from noise at these counts"
    better = "the candidate is better" if test.fixed > test.broken else "the candidate is worse"
    return f"{better} beyond noise at the {1 - alpha:.0%} level"


def worst_case_words(test: McNemar, alpha: float, unknown: tuple[int, int], survives: bool) -> str:
    """Whether the verdict survives the worst case, with the worst case's counts and test;
    ``unknown`` is (baseline, candidate) unknown paired case-trials."""
    if unknown == (0, 0):
        return (
            "no paired case-trial is error, missing or ungraded: the verdict is its own worst case"
        )
    unit = " cases" if test.unit != "case-trials" else ""
    kept = "survives" if survives else "does not survive"
    return (
        f"the verdict {kept} the worst case (the candidate's {unknown[1]} error, missing or "
        f"ungraded paired case-trials counted failed, the baseline's {unknown[0]} counted "
        f"passed): {test.fixed}{unit} fixed, {test.broken} broken; "
        f"p = {p_text(test.p_value, alpha)}: {verdict_words(test, alpha)}"
    )


def _usage_side(usage: UsageSummary) -> UsageSide:
    return UsageSide(
        case_trials=usage.case_trials,
        usage_reported=usage.usage_reported,
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        cost_usd=usage.cost_usd,
        latency_p95_s=usage.latency_p95_s,
        cached=usage.cached,
        cost_avoided_usd=usage.cost_avoided_usd,
    )


def _minus(b: float | None, c: float | None) -> float | None:
    return None if b is None or c is None else c - b


def usage_comparison(
    baseline: UsageSummary | None, candidate: UsageSummary | None
) -> UsageComparison | None:
    """Both runs' usage and the deltas; None when neither run has a usage section."""
    if baseline is None and candidate is None:
        return None
    empty = UsageSummary(case_trials=0, usage_reported=0)
    b = _usage_side(baseline or empty)
    c = _usage_side(candidate or empty)
    tokens_in = _minus(b.input_tokens, c.input_tokens)
    tokens_out = _minus(b.output_tokens, c.output_tokens)
    cost = _minus(b.cost_usd, c.cost_usd)
    return UsageComparison(
        baseline=b,
        candidate=c,
        input_tokens_delta=int(tokens_in) if tokens_in is not None else None,
        output_tokens_delta=int(tokens_out) if tokens_out is not None else None,
        cost_usd_delta=round(cost, 10) if cost is not None else None,
        latency_p95_s_delta=_minus(b.latency_p95_s, c.latency_p95_s),
        cost_avoided_usd_delta=_rounded(_minus(b.cost_avoided_usd, c.cost_avoided_usd)),
    )


def _rounded(cost: float | None) -> float | None:
    return round(cost, 10) if cost is not None else None
