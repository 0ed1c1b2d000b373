"""Tags and the trend read from the store, on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import timedelta

import pytest
from tests.trend_stores import START, V1, add_run, fill_series

from assay.errors import AssayInputError
from assay.runner import gate_suite, report_for_run, suite_runs, trend_for_suite
from assay.store import open_store


def test_tags_move_within_a_suite_and_stay_out_of_the_configuration(store_url: str) -> None:
    store = open_store(fill_series(store_url))
    try:
        assert store.tag_run("a3", "baseline") is None
        assert store.get_run("a3").tags == ["baseline"]
        assert store.tag_run("b1", "baseline") == "a3"
        assert store.get_run("a3").tags == [] and store.get_run("b1").tags == ["baseline"]
        assert store.tag_run("other1", "baseline") is None  # another suite: its own tag
        assert store.get_run("b1").tags == ["baseline"]
        store.tag_run("b1", "release-1.4")
        assert store.get_run("b1").tags == ["baseline", "release-1.4"]
        assert store.untag_run("b1", "baseline") is True
        assert store.untag_run("b1", "baseline") is False
        assert store.get_run("b1").tags == ["release-1.4"]
        report = report_for_run(store, "b1")
        assert "assay.tags" not in report.metadata["run"].get("metadata", {})
        with pytest.raises(AssayInputError, match="a tag is 1 to 64 letters"):
            store.tag_run("b1", "no spaces")
    finally:
        store.close()


def test_trend_read_from_the_store(store_url: str) -> None:
    store = open_store(fill_series(store_url))
    try:
        store.tag_run("b1", "baseline")
        trend = trend_for_suite(store, "nightly")
        assert [p.run_id for p in trend.points] == ["a1", "a2", "a3", "b1", "b2", "b3"]
        assert [p.value for p in trend.points] == [0.75, 0.775, 0.75, 0.95, 0.95, 0.75]
        assert trend.points[3].tags == ["baseline"]
        assert [p.change.flagged for p in trend.points[1:] if p.change] == [
            False,
            False,
            True,
            False,
            True,
        ]
        assert trend.points[0].config_hash == trend.points[2].config_hash
        assert trend.points[0].config_hash != trend.points[3].config_hash
        assert trend.points[0].git_commit == "commit01"
        cost = trend_for_suite(store, "nightly", "cost_usd")
        assert [p.value for p in cost.points][3:] == [0.04, 0.05, 0.06]
        latency = trend_for_suite(store, "nightly", "latency_p95_s")
        assert latency.points[3].value == pytest.approx((400 + 37) / 1000)
        since = trend_for_suite(store, "nightly", since=START + timedelta(days=4))
        assert [p.run_id for p in since.points] == ["b1", "b2", "b3"]
        with pytest.raises(AssayInputError, match=r"no run of suite 'nightl'.*nightly, other"):
            trend_for_suite(store, "nightl")
    finally:
        store.close()


def test_a_suite_without_a_name_is_its_file_stem(store_url: str) -> None:
    store = open_store(store_url)
    try:
        add_run(store, "s1", 1, V1, range(5), suite="")
        assert [i.id for i in suite_runs(store, "-file")] == ["s1"]
    finally:
        store.close()


def test_gate_against_the_last_run_and_the_baseline(store_url: str) -> None:
    store = open_store(fill_series(store_url))
    try:
        store.tag_run("a3", "baseline")
        latest, results = gate_suite(
            store,
            "nightly",
            [
                "no_new_failures_vs_last",
                "task_success.low>baseline.low",
                "task_success>=baseline-0.01",
                "no_new_failures_vs_baseline allow_na",
                "task_success>=release.low",
            ],
        )
        assert latest is not None and latest.id == "b3"
        assert [r.passed for r in results] == [False, False, True, True, False]
        assert results[0].message.startswith("b3 vs b2: 8 newly failing: C30, C31")
        assert results[1].rule.text == "task_success.low>baseline.low"
        assert "baseline = a3: task_success.low = 0.588" in results[1].message
        assert "do not pair" in results[3].message and "(allowed)" in results[3].message
        assert results[4].message == "n/a: no run tagged 'release' in this suite"
    finally:
        store.close()


def test_viewer_suite_pages_read_only(store_url: str) -> None:
    import warnings

    from assay.view import create_app

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # starlette would rather have httpx2
        from starlette.testclient import TestClient

    fill_series(store_url)
    store = open_store(store_url)
    try:
        store.tag_run("b1", "baseline")
        expected = trend_for_suite(store, "nightly", "odd.task_success").model_dump(mode="json")
    finally:
        store.close()
    reader = open_store(store_url, read_only=True)
    try:
        with TestClient(create_app(reader), base_url="http://127.0.0.1") as client:
            listing = client.get("/suites")
            assert listing.status_code == 200
            assert 'href="/suites/nightly"' in listing.text and "baseline: b1" in listing.text
            page = client.get("/suites/nightly?metric=odd.task_success")
            assert page.status_code == 200 and 'id="trend-chart"' in page.text
            got = client.get("/suites/nightly/trend.json?metric=odd.task_success").json()
            assert got == expected
            missing = client.get("/suites/nosuch")
            assert missing.status_code == 404 and "no run of suite" in missing.text
            bad = client.get("/suites/nightly?metric=speed")
            assert bad.status_code == 400 and "unknown metric" in bad.text
            assert client.get("/suites/nightly/trend.json?since=soon").status_code == 400
        assert reader.get_run("b1").tags == ["baseline"]
    finally:
        reader.close()
