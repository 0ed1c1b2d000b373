"""An agent's trajectory in a real browser: the viewer's case page and the run page's
drawer show each step, and a tool result holding a script is shown, never run."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect
from tests.agent_runs import XSS, store_agent_runs

from .conftest import Watch, serve_viewer

pytestmark = pytest.mark.browser


@pytest.fixture
def viewer(tmp_path: Path) -> Iterator[str]:
    with serve_viewer(store_agent_runs(f"sqlite:///{tmp_path / 'agents.db'}")) as url:
        yield url


def test_the_case_page_and_the_drawer_show_each_step(
    page: Page, watch: Watch, viewer: str, artifacts: Path
) -> None:
    page.goto(viewer + "/case?id=refund")
    runs = page.locator("#trajectories details")
    expect(runs).to_have_count(2)
    newest = runs.nth(0)  # agents-fixed: the refund went through
    expect(newest).to_contain_text("5 steps · 2 tool calls · 0 tool errors")
    oldest = runs.nth(1)
    oldest.locator("summary").click()
    failed = oldest.locator('li.step[data-step="4"]')
    expect(failed).to_have_class("step failed-step")
    expect(failed).to_contain_text("step 4 · tool issue_refund · error")
    expect(failed).to_contain_text("error: payment service unavailable")
    expect(oldest.locator('li.step[data-step="2"]')).to_contain_text(XSS)
    expect(oldest.locator("pre.state-after")).to_contain_text('"refunded": []')
    page.screenshot(path=str(artifacts / "view-agent-case.png"), full_page=True)

    page.goto(viewer + "/runs/agents-base#case=refund")
    expect(page.locator("html[data-ready=true]")).to_have_count(1)
    expect(page.locator("#agents")).to_contain_text("11 steps · 5 tool calls · 1 tool error")
    drawer = page.locator("#drawer")
    expect(drawer).to_be_visible()
    steps = drawer.locator(".trajectory .step")
    expect(steps).to_have_count(5)
    expect(steps.nth(3)).to_have_attribute("data-status", "error")
    expect(steps.nth(1)).to_contain_text(XSS)
    page.screenshot(path=str(artifacts / "view-agent-drawer.png"))
    assert page.evaluate("window.__pwned") is None
    assert watch.errors == [] and watch.dialogs == []
