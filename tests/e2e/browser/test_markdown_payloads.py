"""The injection payloads of tests/payloads.py, written by every Markdown output and then
rendered to HTML the way a forge would (CommonMark with raw HTML on, tables), run nothing
in Chromium: no dialog, no request, no script, image, frame, base or refresh element."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from markdown_it import MarkdownIt
from playwright.sync_api import Page
from tests.e2e.browser.conftest import Watch
from tests.payloads import ALL


def _assay(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "assay", *args], cwd=cwd, capture_output=True, text=True, check=False
    )


@pytest.fixture(scope="module")
def markdown_outputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    root = tmp_path_factory.mktemp("md")
    cases, outcomes = [], []
    for i, payload in enumerate(ALL):
        case_id = f"P{i} {payload}"
        cases.append(
            {
                "id": case_id,
                "slice": payload[:40],
                "question": payload,
                "expected_behavior": "answer",
                "expected_fact": "fact",
            }
        )
        kind = ("error", "abstain", "answer")[i % 3]
        extra = {"error": {"message": payload}, "abstain": {"reason": payload}}
        outcomes.append(
            {"id": case_id, "kind": kind, **extra.get(kind, {"fact": "x", "text": payload})}
        )
    name = "<img src=x onerror=alert(1)>`x|y [a](javascript:alert(2))"
    (root / "cases.json").write_text(json.dumps({"name": name, "cases": cases}))
    (root / "results.jsonl").write_text("".join(json.dumps(o) + "\n" for o in outcomes))
    _assay(root, "score", "cases.json", "results.jsonl", "-f", "json", "-o", "r.json")
    out = {
        "score": _assay(root, "score", "cases.json", "results.jsonl", "-f", "markdown").stdout,
        "composite": _assay(
            root, "composite", "cases.json", "results.jsonl", "-f", "markdown"
        ).stdout,
        "compare": _assay(root, "compare", "r.json", "r.json", "-f", "markdown").stdout,
    }
    _assay(root, "gate", "r.json", "-r", "task_success>=0.99", "--markdown", "g.md")
    out["gate"] = (root / "g.md").read_text(encoding="utf-8")
    for name, text in out.items():
        assert "alert" in text, name  # the payloads are there, escaped, not dropped
    return out


@pytest.mark.parametrize("name", ["score", "composite", "compare", "gate"])
def test_markdown_payloads_run_nothing_in_chromium(
    page: Page, watch: Watch, tmp_path: Path, markdown_outputs: dict[str, str], name: str
) -> None:
    html = MarkdownIt("commonmark").enable("table").render(markdown_outputs[name])
    path = tmp_path / f"{name}.html"
    path.write_text(f"<!doctype html><meta charset=utf-8><body>{html}</body>", encoding="utf-8")
    page.goto(path.as_uri())
    page.wait_for_timeout(300)
    assert watch.dialogs == []
    assert watch.errors == []
    assert all(url.startswith("file://") for url in watch.requests), watch.requests
    dangerous = "script, img, iframe, object, embed, base, meta[http-equiv], svg, a[href]"
    assert page.locator(dangerous).count() == 0
    assert page.url == path.as_uri()  # no refresh or redirect happened
