"""Trend invariants over arbitrary series: paired counts agree with the rates, breaks and
flags follow the rule."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from tests.trend_stores import dataset
from tests.unit.trend.helpers import suite_run

from assay.trend import build_trend

CASES = 12
VERSIONS = [dataset(CASES), dataset(CASES, reworded={3})]

runs_strategy = st.lists(
    st.tuples(
        st.sets(st.integers(0, CASES - 1)),  # passing cases
        st.integers(0, 1),  # dataset version
        st.sampled_from(["c1", "c2"]),  # configuration
    ),
    min_size=1,
    max_size=6,
)


@settings(max_examples=40, deadline=None)
@given(runs_strategy)
def test_paired_counts_match_the_rates_and_flags_follow_the_rule(
    spec: list[tuple[set[int], int, str]],
) -> None:
    runs = [
        suite_run(f"r{i}", i, VERSIONS[version], passing, config=config)
        for i, (passing, version, config) in enumerate(spec)
    ]
    trend = build_trend("s", runs)
    assert [p.run_id for p in trend.points] == [r.id for r in runs]
    for before, after in zip(trend.points, trend.points[1:], strict=False):
        change = after.change
        assert change is not None and change.previous == before.run_id
        assert change.paired == (before.dataset_version == after.dataset_version)
        if not change.paired:
            assert change.fixed is None and not change.flagged and change.dataset_change
            continue
        assert change.fixed is not None and change.broken is not None
        assert after.rate is not None and before.rate is not None
        assert change.fixed - change.broken == after.rate.numerator - before.rate.numerator
        assert change.p_value is not None and 0 < change.p_value <= 1
        beyond = change.spread is None or abs(change.delta or 0) > change.spread
        agree = (change.fixed - change.broken) * (change.delta or 0) > 0
        assert change.flagged == (change.p_value < trend.alpha and agree and beyond)
