"""The viewer in a real browser: run list, run page, picking two runs, a case across runs;
the store file is unchanged afterwards."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from .conftest import Watch, serve_viewer

pytestmark = pytest.mark.browser


@pytest.fixture
def viewer(run_store: tuple[str, Path]) -> Iterator[str]:
    """The viewer on a free loopback port, in this process; stopped after the test."""
    with serve_viewer(run_store[0]) as url:
        yield url


def test_browse_runs_compare_and_follow_a_case(
    page: Page, watch: Watch, viewer: str, run_store: tuple[str, Path], artifacts: Path
) -> None:
    before = hashlib.sha256(run_store[1].read_bytes()).hexdigest()
    page.goto(viewer + "/")
    runs = page.locator("table.runs tbody tr")
    expect(runs).to_have_count(2)
    base = page.locator('tr[data-run="base"] [data-metric="task_success"]')
    expect(base.locator("[data-field=value]")).to_have_text("33.3%")
    expect(base.locator("[data-field=fraction]")).to_have_text("2/6")
    page.screenshot(path=str(artifacts / "view-runs.png"), full_page=True)

    page.click('tr[data-run="cand"] a')
    expect(page.locator("html[data-ready=true]")).to_have_count(1)
    report = json.loads(page.request.get(viewer + "/runs/cand/report.json").text())
    card = page.locator('[data-metric="task_success"]')
    rate = report["task_success"]
    expect(card.locator("[data-field=fraction]")).to_have_text(
        f"{rate['numerator']}/{rate['denominator']}"
    )
    expect(card.locator("[data-field=value]")).to_have_text(f"{rate['value'] * 100:.1f}%")
    others = page.locator('#cases-status .chip:not([data-status="passed"])')
    for i in range(others.count()):  # each chip shows only its status: all but passed
        others.nth(i).click()
    expect(page.locator("#cases-table tbody tr[data-index]")).to_have_count(2)
    page.locator("#cases-table tbody tr", has_text="E3").click()
    expect(page.locator("#drawer")).to_contain_text("gift_wrap_free")
    page.keyboard.press("Escape")
    for i in range(others.count()):  # no chip chosen: every case again
        others.nth(i).click()
    page.locator("#cases-table tbody tr", has_text="E2").click()
    expect(page.locator("#drawer .waterfall .wf-row")).to_have_count(3)
    page.screenshot(path=str(artifacts / "view-run.png"))
    page.locator("#drawer a.follow").click()
    expect(page.locator("#across tbody tr")).to_have_count(2)
    expect(page.locator("h1")).to_have_text("Case E2")

    page.goto(viewer + "/")
    page.check('input[name="baseline"][value="base"]')
    page.check('input[name="candidate"][value="cand"]')
    page.click("#compare-form button[type=submit]")
    expect(page.locator("#fixed-table tbody tr")).to_have_count(3)
    expect(page.locator("#broken-table tbody tr")).to_have_count(1)
    expect(page.locator("#broken-table")).to_contain_text("E3")
    page.screenshot(path=str(artifacts / "view-compare.png"), full_page=True)

    page.goto(viewer + "/")
    page.fill("#case-id", "E5")
    page.click("#case-form button[type=submit]")
    rows = page.locator("#across tbody tr")
    expect(rows).to_have_count(2)
    expect(rows.nth(0)).to_have_attribute("data-status", "missing")
    expect(rows.nth(1)).to_have_attribute("data-status", "error")
    rows.nth(1).locator("a").click()
    expect(page.locator("#drawer")).to_be_visible()
    expect(page.locator("#drawer [data-field=title]")).to_have_text("E5")
    assert watch.errors == [] and watch.dialogs == []
    assert hashlib.sha256(run_store[1].read_bytes()).hexdigest() == before
