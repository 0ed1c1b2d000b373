"""The HTML report in a real browser: figures match the JSON report, the table filters,
the drawer opens, 10,000 cases stay usable, and nothing from the data ever runs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from assay.cases import Case, Dataset
from assay.grading import grade_all
from assay.outcomes import Answer, Error, Record, Span
from assay.render.html import render_html
from assay.report import build_report

from .conftest import Watch

pytestmark = pytest.mark.browser
ROOT = Path(__file__).resolve().parents[3]
POLICY = ROOT / "examples" / "policy"


def _score(tmp_path: Path, fmt: str, dataset: str = "policy-e7.jsonl") -> Path:
    out = tmp_path / f"report.{fmt}"
    done = subprocess.run(
        [sys.executable, "-m", "assay", "score", str(POLICY / dataset),
         str(POLICY / "results.jsonl"), "--format", fmt, "--output", str(out)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return out


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value * 100:.1f}%"


def _rows(page: Page) -> list[str]:
    return page.locator("#cases-table tbody tr[data-index] td.id").all_inner_texts()


def test_figures_on_the_page_match_the_json_report(
    page: Page, watch: Watch, tmp_path: Path, artifacts: Path
) -> None:
    report = json.loads(_score(tmp_path, "json").read_text(encoding="utf-8"))
    page.goto(_score(tmp_path, "html").as_uri())
    expect(page.locator("html[data-ready=true]")).to_have_count(1)
    for key in ("task_success", "answer_coverage", "answered_accuracy"):
        rate = report[key]
        card = page.locator(f'[data-metric="{key}"]')
        expect(card.locator("[data-field=value]")).to_have_text(_pct(rate["value"]))
        fraction = f"{rate['numerator']}/{rate['denominator']}"
        expect(card.locator("[data-field=fraction]")).to_have_text(fraction)
        low, high = rate["ci"]
        expect(card.locator("[data-field=ci]")).to_have_text(f"[{_pct(low)}, {_pct(high)}]")
        expect(card).to_contain_text(rate["denominator_name"])
    for status, count in report["statuses"].items():
        legend = page.locator(f'#statuses .legend li[data-status="{status}"] [data-field=count]')
        expect(legend).to_have_text(str(count))
        segment = page.locator(f'#statuses .seg[data-status="{status}"]')
        expect(segment).to_have_count(1 if count else 0)
    drawn = page.locator("#statuses .seg[data-count]").evaluate_all(
        "segs => segs.reduce((n, s) => n + Number(s.dataset.count), 0)"
    )
    assert drawn == report["total"] == 7
    for name, sl in report["slices"].items():
        row = page.locator(f'#slices table tr[data-slice="{name}"] td')
        rate = sl["task_success"]
        expect(row.nth(1)).to_have_text(f"{rate['numerator']}/{rate['denominator']}")
        expect(row.nth(2)).to_have_text(_pct(rate["value"]))
        expect(page.locator(f'svg.wide .slice-row[data-slice="{name}"] .whisker')).to_have_count(3)
    assert _rows(page) == [c["id"] for c in report["cases"]]
    page.screenshot(path=str(artifacts / "html-report.png"), full_page=True)
    assert watch.errors == [] and watch.dialogs == []
    assert all(url.startswith("file://") for url in watch.requests)


def test_the_slice_chart_is_readable_at_400_pixels(
    page: Page, watch: Watch, tmp_path: Path, artifacts: Path
) -> None:
    page.set_viewport_size({"width": 400, "height": 900})
    page.goto(_score(tmp_path, "html").as_uri())
    expect(page.locator("#slices svg.wide")).to_be_hidden()
    narrow = page.locator("#slices svg.narrow")
    expect(narrow).to_be_visible()
    sizes = narrow.locator("text").evaluate_all(
        "ts => ts.map(t => t.getBoundingClientRect().height)"
    )
    assert sizes and min(sizes) >= 11  # on-screen text height in CSS pixels
    label = narrow.locator('.slice-row[data-slice="standard"] .slice-label')
    expect(label).to_have_text("1/3 · 33.3% · [0.8%, 90.6%]")
    box, chart = label.bounding_box(), narrow.bounding_box()
    assert box is not None and chart is not None
    assert box["x"] + box["width"] <= chart["x"] + chart["width"] + 0.5  # nothing cut off
    page.locator("#slices").screenshot(path=str(artifacts / "html-report-slices-400px.png"))
    page.set_viewport_size({"width": 1200, "height": 900})
    expect(page.locator("#slices svg.wide")).to_be_visible()
    expect(narrow).to_be_hidden()
    assert watch.errors == []


def test_filter_sort_search_and_drawer(
    page: Page, watch: Watch, tmp_path: Path, artifacts: Path
) -> None:
    page.goto(_score(tmp_path, "html").as_uri())
    failed = page.locator('#cases-status .chip[data-status="failed"]')
    failed.click()  # the chip shows only its status
    expect(failed).to_have_attribute("aria-pressed", "true")
    assert _rows(page) == ["E2", "E4", "E6"]
    page.locator('#cases-status .chip[data-status="error"]').click()
    assert _rows(page) == ["E2", "E4", "E5", "E6"]
    page.select_option("#cases-slice", "exception")
    assert _rows(page) == ["E2", "E6"]
    page.select_option("#cases-slice", "")
    page.locator('#cases-status .chip[data-status="error"]').click()
    failed.click()  # nothing selected: every status again
    assert _rows(page) == ["E1", "E2", "E3", "E4", "E5", "E6", "E7"]
    page.select_option("#cases-slice", "")
    page.fill("#cases-search", "mug")
    expect(page.locator("#cases-table tbody tr[data-index]")).to_have_count(1)
    assert _rows(page) == ["E6"]
    page.fill("#cases-search", "")
    expect(page.locator("#cases-table tbody tr[data-index]")).to_have_count(7)
    page.locator('#cases-table th[data-sort="status"]').click()
    statuses = page.locator("#cases-table tbody tr[data-index]").evaluate_all(
        "rows => rows.map(r => r.dataset.status)"
    )
    assert statuses == ["passed", "passed", "failed", "failed", "failed", "error", "missing"]

    page.locator("#cases-table tbody tr", has_text="E2").click()
    drawer = page.locator("#drawer")
    expect(drawer).to_be_visible()
    expect(drawer.locator("[data-field=title]")).to_have_text("E2")
    for text in (
        "Can a custom-printed product use the standard return window?",
        "The supplied exception explicitly excludes custom-printed products.",
        "return_window_30_days",
        "expected fact 'custom_excluded'; answered 'return_window_30_days'",
        "structured v1",
    ):
        expect(drawer).to_contain_text(text)
    page.screenshot(path=str(artifacts / "html-report-drawer.png"))
    page.keyboard.press("Escape")
    expect(drawer).to_be_hidden()
    assert watch.errors == []


def test_drawer_draws_spans_as_a_waterfall(page: Page, tmp_path: Path, artifacts: Path) -> None:
    case = Case(id="E2", slice="exception", question="q", expected_behavior="abstain")
    data = Dataset(name="traced", cases=(case,))
    report = build_report(data, grade_all(data, [Record(case_id="E2", outcome=Answer(fact="x"))]))
    spans = [
        Span(trace_id="t", span_id="r", name="assay.request", start_ns=0, end_ns=90_000_000,
             case_id="E2", trial=1),
        Span(trace_id="t", span_id="a", parent_id="r", name="retrieve", start_ns=5_000_000,
             end_ns=30_000_000, case_id="E2", trial=1, attributes={"retrieval.selected": ["s1"]}),
        Span(trace_id="t", span_id="b", parent_id="r", name="generate", start_ns=30_000_000,
             end_ns=88_000_000, case_id="E2", trial=1, status="error", status_message="boom"),
    ]  # fmt: skip
    path = tmp_path / "traced.html"
    path.write_text(render_html(report, spans=spans), encoding="utf-8")
    page.goto(path.as_uri() + "#case=E2")
    drawer = page.locator("#drawer")
    expect(drawer).to_be_visible()
    rows = drawer.locator(".waterfall .wf-row")
    expect(rows).to_have_count(3)
    expect(rows.nth(1)).to_contain_text("retrieve")
    expect(rows.nth(1)).to_contain_text("25.0 ms")
    expect(rows.nth(2).locator(".wf-bar.error")).to_have_count(1)
    page.screenshot(path=str(artifacts / "html-report-waterfall.png"))


PAYLOADS = (
    "<script>window.__pwned = 1; alert('script')</script>",
    '"><img src=x onerror="window.__pwned=2;alert(2)">',
    "'><svg onload=alert(3)>",
    "javascript:window.__pwned=4;alert(4)",
    "</script><script>window.__pwned=5;alert(5)</script><!--",
)


def test_nothing_from_the_data_runs(page: Page, watch: Watch, tmp_path: Path) -> None:
    cases = tuple(
        Case(
            id=f"X{i}",
            slice=payload,
            question=payload,
            expected_behavior="answer",
            expected_fact=payload,
            rationale=payload,
        )
        for i, payload in enumerate(PAYLOADS)
    )
    data = Dataset(name=PAYLOADS[1], cases=cases)
    records = [
        Record(case_id=c.id, outcome=Answer(fact="wrong", text=c.question)) for c in cases[:-1]
    ] + [Record(case_id=cases[-1].id, outcome=Error(message=PAYLOADS[0], error_class=PAYLOADS[1]))]
    report = build_report(
        data, grade_all(data, records), run_id=PAYLOADS[3], metadata={PAYLOADS[1]: PAYLOADS[0]}
    )
    path = tmp_path / "escape.html"
    path.write_text(render_html(report, links={PAYLOADS[0]: PAYLOADS[3]}), encoding="utf-8")
    page.goto(path.as_uri())
    expect(page.locator("html[data-ready=true]")).to_have_count(1)
    for i in range(len(PAYLOADS)):
        page.locator("#cases-table tbody tr", has_text=f"X{i}").first.click()
        expect(page.locator("#drawer")).to_be_visible()
        expect(page.locator("#drawer .drawer-body")).to_contain_text(PAYLOADS[i])
        page.keyboard.press("Escape")
    page.fill("#cases-search", "onerror")
    expect(page.locator("#cases-table tbody tr[data-index]")).to_have_count(2)
    assert page.evaluate("window.__pwned") is None
    assert page.locator("img, svg:not(.chart) , iframe, object, embed").count() == 0
    assert page.locator("script").count() == 2
    assert watch.dialogs == []
    assert all(url.startswith("file://") for url in watch.requests)
    assert page.locator("nav.links a").get_attribute("href") == "#"
    page.locator("nav.links a").click()
    page.wait_for_timeout(200)
    assert page.evaluate("window.__pwned") is None and watch.dialogs == []


def test_ten_thousand_cases_are_paged(page: Page, watch: Watch, tmp_path: Path) -> None:
    cases = tuple(
        Case(id=f"C{i:05d}", slice=f"s{i % 7}", question=f"question {i}",
             expected_behavior="answer", expected_fact="f")
        for i in range(10_000)
    )  # fmt: skip
    data = Dataset(name="big", cases=cases)
    records = [
        Record(case_id=c.id, outcome=Answer(fact="f" if i % 3 else "g"))
        for i, c in enumerate(cases)
        if i % 50
    ]
    report = build_report(data, grade_all(data, records))
    path = tmp_path / "big.html"
    path.write_text(render_html(report), encoding="utf-8")
    page.goto(path.as_uri())
    pager = page.locator("#cases-pager [data-field=count]")
    expect(pager).to_have_text("Showing 1–100 of 10,000 matching (10,000 cases)")
    expect(page.locator("#cases-table tbody tr[data-index]")).to_have_count(100)
    page.locator('#cases-status .chip[data-status="missing"]').click()
    expect(pager).to_have_text(
        f"Showing 1–100 of {report.statuses.missing} matching (10,000 cases)"
    )
    page.fill("#cases-search", "C09950")
    expect(page.locator("#cases-table tbody tr[data-index]")).to_have_count(1)
    assert watch.errors == []


def test_composite_page_shows_every_check_in_the_drawer(
    page: Page, watch: Watch, tmp_path: Path, artifacts: Path
) -> None:
    golden = ROOT / "examples" / "golden17"
    out = tmp_path / "composite.html"
    done = subprocess.run(
        [sys.executable, "-m", "assay", "composite", str(golden / "golden17.jsonl"),
         str(golden / "checks.jsonl"), "--format", "html", "--output", str(out)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    page.goto(out.as_uri() + "#case=golden_002")
    drawer = page.locator("#drawer")
    expect(drawer).to_be_visible()
    checks = drawer.locator(".judgment")
    expect(checks).to_have_count(1 + 7)  # the verdict, then the seven checks
    failed = drawer.locator(".judgment", has=page.locator(".badge.st-failed"))
    expect(failed.nth(1)).to_contain_text("content_present")
    page.screenshot(path=str(artifacts / "composite-drawer.png"))
    assert watch.errors == []
