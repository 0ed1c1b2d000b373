"""The viewer's suite page in a real browser: the figures it shows are the trend's JSON,
links lead to each run and to each comparison, and the store is unchanged afterwards."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect
from tests.trend_stores import fill_series

from assay.store import open_store

from .conftest import Watch, serve_viewer

pytestmark = pytest.mark.browser


@pytest.fixture
def series_store(tmp_path: Path) -> tuple[str, Path]:
    path = tmp_path / "assay.db"
    url = fill_series(f"sqlite:///{path}")
    store = open_store(url)
    try:
        store.tag_run("b1", "baseline")
    finally:
        store.close()
    return url, path


@pytest.fixture
def viewer(series_store: tuple[str, Path]) -> Iterator[str]:
    with serve_viewer(series_store[0]) as url:
        yield url


def test_suite_page_shows_the_trend_json(
    page: Page, watch: Watch, viewer: str, series_store: tuple[str, Path], artifacts: Path
) -> None:
    before = hashlib.sha256(series_store[1].read_bytes()).hexdigest()
    page.goto(viewer + "/")
    page.click("nav.links a[href='/suites']")
    expect(page.locator("#suites tbody tr")).to_have_count(2)
    expect(page.locator('tr[data-suite="nightly"]')).to_contain_text("baseline: b1")
    page.click('tr[data-suite="nightly"] a')
    trend = json.loads(page.request.get(viewer + "/suites/nightly/trend.json").text())
    rows = page.locator("#trend-runs tbody tr")
    expect(rows).to_have_count(len(trend["points"]))
    for i, point in enumerate(trend["points"]):
        row = rows.nth(i)
        expect(row).to_have_attribute("data-run", point["run_id"])
        cell = row.locator("[data-field=value]")
        assert float(cell.get_attribute("data-value") or "nan") == point["value"]
        assert float(cell.get_attribute("data-low") or "nan") == point["low"]
        assert float(cell.get_attribute("data-high") or "nan") == point["high"]
        expect(cell).to_have_text(point["shown"])
        dot = page.locator(f'#trend-chart circle[data-run="{point["run_id"]}"]')
        assert float(dot.get_attribute("data-value") or "nan") == point["value"]
        change = point.get("change")
        if change is None:
            expect(row).to_have_attribute("data-state", "first")
            continue
        state = "flagged" if change["flagged"] else "paired" if change["paired"] else "break"
        expect(row).to_have_attribute("data-state", state)
        expect(row.locator("[data-field=change]")).to_contain_text(change["verdict"])
    assert [p["run_id"] for p in trend["points"] if p.get("change") and p["change"]["flagged"]] == [
        "b1",
        "b3",
    ]
    expect(page.locator("#trend-chart circle.flagged")).to_have_count(2)
    expect(page.locator("#trend-chart .band")).to_have_count(2)  # cut at the dataset change
    expect(page.locator('#trend-chart [data-marker="dataset"]')).to_have_count(1)
    expect(page.locator('#trend-chart [data-marker="config"]')).to_have_count(1)
    expect(page.locator("#summary")).to_have_text(trend["summary"])
    expect(rows.nth(3).locator("[data-tag=baseline]")).to_have_text("baseline")
    page.screenshot(path=str(artifacts / "view-trend.png"), full_page=True)

    rows.nth(5).locator("a", has_text="compare with the previous run").click()
    expect(page.locator("#broken-table tbody tr")).to_have_count(8)
    page.go_back()
    page.locator("#trend-runs tbody tr").nth(0).locator("a").first.click()
    expect(page).to_have_url(viewer + "/runs/a1")

    page.goto(viewer + "/suites/nightly?metric=latency_p95_s")
    latency = json.loads(
        page.request.get(viewer + "/suites/nightly/trend.json?metric=latency_p95_s").text()
    )
    cells = page.locator("#trend-runs [data-field=value]")
    expect(cells.nth(0)).to_have_text("n/a (the run recorded no latency)")
    expect(cells.nth(3)).to_have_text(latency["points"][3]["shown"])
    assert watch.errors == [] and watch.dialogs == []
    assert all(url.startswith(viewer) for url in watch.requests)
    assert hashlib.sha256(series_store[1].read_bytes()).hexdigest() == before
