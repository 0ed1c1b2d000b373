"""The review page in a real browser: two answers labelled, the page reloaded and the
server restarted resume at the third; two browsers labelling at once lose no label."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect
from tests.review_runs import judged_store

from assay.load import read_labels
from assay.view import open_review

from .conftest import Watch, serve_viewer

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    return judged_store(tmp_path_factory.mktemp("judged"))


def _label(page: Page, verdict: str, note: str = "") -> str:
    """Label the answer on ``page``: every rubric item present, ``verdict``; its case id."""
    answer = page.locator("#answer")
    case = answer.get_attribute("data-case") or ""
    for item in page.locator("[data-item]").all():
        item.locator("input[value=present]").check()
    page.locator(f"input[name=verdict][value='{verdict}']").check()
    if note:
        page.fill("input[name=note]", note)
    page.click("button[type=submit]")
    return case


def test_label_two_reload_and_restart_resume_at_the_third(
    page: Page, watch: Watch, stored: tuple[str, str], tmp_path: Path, artifacts: Path
) -> None:
    labels = tmp_path / "labels.jsonl"

    def review(reader: object) -> object:
        return open_review(reader, "review", labels, seed=4)  # type: ignore[arg-type]

    with serve_viewer(stored[0], review) as base:
        page.goto(base + "/review?reviewer=rk")
        expect(page.locator("#answer")).to_have_attribute("data-position", "1")
        assert "keyword judge" not in page.content()
        page.screenshot(path=str(artifacts / "view-review.png"), full_page=True)
        first = _label(page, "2", note="all there")
        expect(page.locator("#answer")).to_have_attribute("data-position", "2")
        second = _label(page, "fail")
        expect(page.locator("#answer")).to_have_attribute("data-position", "3")
        page.reload()
        expect(page.locator("#answer")).to_have_attribute("data-position", "3")
        expect(page.locator("#answer")).to_have_attribute("data-done", "false")
    with serve_viewer(stored[0], review) as base:  # a restarted server reads the file
        page.goto(base + "/review?reviewer=rk")
        expect(page.locator("#answer")).to_have_attribute("data-position", "3")
        page.goto(base + "/review/1?reviewer=rk")
        expect(page.locator("#done")).to_contain_text("score 2 by rk")
        page.click("#reveal")
        expect(page.locator("#judge")).to_contain_text("keyword judge")
    lines = [json.loads(line) for line in labels.read_text().splitlines()]
    assert [(line["id"], line["reviewer"]) for line in lines] == [(first, "rk"), (second, "rk")]
    assert lines[0]["note"] == "all there" and lines[1]["human"] == "fail"
    assert watch.errors == [] and watch.dialogs == []


def test_two_browsers_labelling_at_once_lose_no_label(
    browser: Browser, stored: tuple[str, str], tmp_path: Path
) -> None:
    labels = tmp_path / "labels.jsonl"
    with serve_viewer(stored[0], lambda reader: open_review(reader, "review", labels)) as base:
        one = browser.new_context().new_page()
        two = browser.new_context().new_page()
        one.goto(base + "/review?reviewer=rk")
        two.goto(base + "/review?reviewer=mt")
        done: list[tuple[str, str]] = []
        for _ in range(3):  # each shows its answer before either sends its label
            expect(one.locator("#answer")).to_have_count(1)
            expect(two.locator("#answer")).to_have_count(1)
            done.append((_label(one, "2"), "rk"))
            done.append((_label(two, "0"), "mt"))
        expect(one.locator("#answer")).to_have_count(1)
        expect(two.locator("#answer")).to_have_count(1)
        one.context.close()
        two.context.close()
    assert len({case for case, _ in done}) == 6  # each browser was given other answers
    found = {(lab.id, lab.reviewer) for lab in read_labels(labels)}
    assert found == set(done)
