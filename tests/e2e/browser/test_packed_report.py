"""A large HTML report in a real browser: its case rows embedded packed (columns in
memory, full rows and searched text in compressed parts unpacked when needed), then paged,
filtered, sorted and searched across every part, as a small report is. A few thousand rows
in small parts stand for a million in parts of two thousand (bench/html_scale.py measures
the large page)."""

from __future__ import annotations

import gc
import json
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect
from tests.conftest import RunAssay

from assay.cases import Case, Dataset
from assay.grading import grade_all
from assay.outcomes import Abstain, Answer, Error, Record
from assay.render import packed as packed_module
from assay.render.html import render_html
from assay.report import Report, build_report

from .conftest import Watch

pytestmark = pytest.mark.browser
ROOT = Path(__file__).resolve().parents[3]
N = 2_500
PART = 400


def _rows(page: Page) -> list[str]:
    return page.locator("#cases-table tbody tr[data-index] td.id").all_inner_texts()


@pytest.fixture(scope="module")
def large(tmp_path_factory: pytest.TempPathFactory) -> tuple[Report, Path]:
    gc.disable()  # as `assay score` does: each collection would walk every case and row
    try:
        return _large(tmp_path_factory)
    finally:
        gc.enable()


def _large(tmp_path_factory: pytest.TempPathFactory) -> tuple[Report, Path]:
    cases = tuple(
        Case(id=f"C{i:06d}", slice=f"s{i % 7}", question=f"question {i}",
             expected_behavior="abstain" if i % 5 == 0 else "answer",
             expected_fact=None if i % 5 == 0 else "f")
        for i in range(N)
    )  # fmt: skip
    records = []
    for i, case in enumerate(cases):
        if i % 97 == 0:
            continue  # missing
        outcome: Answer | Abstain | Error
        if i % 53 == 0:
            outcome = Error(message=f"timeout {i}")
        elif i % 5 == 0:
            outcome = Abstain()
        else:
            outcome = Answer(fact="f" if i % 3 else "g")
        records.append(Record(case_id=case.id, outcome=outcome))
    data = Dataset(name="large", cases=cases)
    report = build_report(data, grade_all(data, records), compact=True)
    path = tmp_path_factory.mktemp("packed") / "large.html"
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(packed_module, "PACKED_PART_ROWS", PART)
        patch.setattr(packed_module, "SEARCH_PART_ROWS", 1_200)
        path.write_text(render_html(report, packed=True), encoding="utf-8")
    return report, path


def test_a_large_report_opens_pages_and_filters_across_every_part(
    page: Page, watch: Watch, large: tuple[Report, Path]
) -> None:
    report, path = large
    html = path.read_text(encoding="utf-8")
    assert html.count('<script type="application/octet-stream" id="assay-rows-') == -(-N // PART)
    page.goto(path.as_uri())
    expect(page.locator("html[data-ready=true]")).to_have_count(1, timeout=120_000)
    pager = page.locator("#cases-pager [data-field=count]")
    expect(pager).to_have_text(f"Showing 1–100 of {N:,} matching ({N:,} cases)")
    assert _rows(page)[:2] == ["C000000", "C000001"]
    page.locator("#cases-pager [data-page=next]").click()
    expect(pager).to_have_text(f"Showing 101–200 of {N:,} matching ({N:,} cases)")
    assert _rows(page)[0] == "C000100"
    expect(page.locator("#cases-pager [data-field=page]")).to_have_text(f"page 2 of {N // 100}")

    missing = page.locator('#cases-status .chip[data-status="missing"]')
    expect(missing).to_contain_text(f"missing {report.statuses.missing}")
    missing.click()
    expect(pager).to_contain_text(f"of {report.statuses.missing:,} matching")
    page.select_option("#cases-slice", "s3")
    in_s3 = sum(1 for r in report.cases if r.status == "missing" and r.slice == "s3")
    expect(pager).to_contain_text(f"of {in_s3:,} matching")
    missing.click()
    page.select_option("#cases-slice", "")

    last = f"C{N - 1:06d}"  # in the last compressed part
    page.fill("#cases-search", last)
    expect(page.locator("#cases-table tbody tr[data-index]")).to_have_count(1)
    page.locator("#cases-table tbody tr", has_text=last).click()
    drawer = page.locator("#drawer")
    expect(drawer).to_be_visible()
    expect(drawer.locator("[data-field=title]")).to_have_text(last)
    expect(drawer).to_contain_text(f"question {N - 1}")
    page.keyboard.press("Escape")

    page.fill("#cases-search", f"question {N - 2}")  # only in the searched text parts
    expect(page.locator("#cases-table tbody td.id")).to_have_text([f"C{N - 2:06d}"])
    page.fill("#cases-search", "timeout 53")  # a grader's reason, in the index
    expect(pager).to_contain_text("of 1 matching")
    page.fill("#cases-search", "")
    expect(pager).to_have_text(f"Showing 1–100 of {N:,} matching ({N:,} cases)")

    page.locator("#cases-table th[data-sort=status]").click()
    order = {s: i for i, s in enumerate(("passed", "failed", "error", "missing", "ungraded"))}
    ranked = sorted(report.cases, key=lambda r: order[r.status])  # stable: ties in row order
    assert _rows(page) == [r.id for r in ranked[:100]]
    page.locator("#cases-table th[data-sort=status]").click()
    down = sorted(report.cases, key=lambda r: -order[r.status])
    assert _rows(page) == [r.id for r in down[:100]]
    page.locator("#cases-pager [data-page=next]").click()
    assert _rows(page) == [r.id for r in down[100:200]]
    page.locator("#cases-table th[data-sort=id]").click()
    assert _rows(page)[:2] == ["C000000", "C000001"]
    page.locator("#cases-table th[data-sort=id]").click()
    assert _rows(page)[:2] == [last, f"C{N - 2:06d}"]
    assert watch.errors == []


def test_a_large_report_opens_the_case_in_its_address(
    page: Page, watch: Watch, large: tuple[Report, Path]
) -> None:
    _, path = large
    page.goto(path.as_uri() + "#case=C001234")
    expect(page.locator("html[data-ready=true]")).to_have_count(1)
    expect(page.locator("#drawer [data-field=title]")).to_have_text("C001234")
    expect(page.locator("#drawer")).to_contain_text("question 1234")
    assert watch.errors == []


def test_a_packed_page_behaves_as_the_plain_page(
    page: Page, watch: Watch, tmp_path: Path, run_assay: RunAssay
) -> None:
    policy = ROOT / "examples" / "policy"
    out = tmp_path / "report.json"
    done = run_assay(
        "score", str(policy / "policy-e7.jsonl"), str(policy / "results.jsonl"),
        "--format", "json", "--output", str(out),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    report = Report.model_validate(json.loads(out.read_text(encoding="utf-8")))
    seen = {}
    for packed in (False, True):
        path = tmp_path / f"page-{packed}.html"
        path.write_text(render_html(report, packed=packed), encoding="utf-8")
        page.goto(path.as_uri() + "#case=E2")
        expect(page.locator("html[data-ready=true]")).to_have_count(1)
        expect(page.locator("#drawer [data-field=title]")).to_have_text("E2")
        page.keyboard.press("Escape")
        page.locator('#cases-status .chip[data-status="failed"]').click()
        failed = _rows(page)
        page.locator('#cases-status .chip[data-status="failed"]').click()
        page.fill("#cases-search", "mug")
        expect(page.locator("#cases-table tbody tr[data-index]")).to_have_count(1)
        searched = _rows(page)
        page.fill("#cases-search", "")
        real = sum(1 for r in report.cases if not r.synthetic)
        expect(page.locator("#cases-table tbody tr[data-index]")).to_have_count(real)
        page.locator("#cases-table th[data-sort=got]").click()
        page.locator("#cases-table th[data-sort=got]").click()
        by_got = _rows(page)
        page.locator("#cases-table th[data-sort=expected]").click()
        by_expected = _rows(page)
        page.locator("#cases-table th[data-sort=reason]").click()
        by_reason = page.locator("#cases-table tbody").inner_text()
        controls = (
            page.locator("#cases-status").inner_text() + page.locator("#cases-slice").inner_text()
        )
        seen[packed] = (failed, searched, controls, by_got, by_expected, by_reason)
    assert seen[True] == seen[False]
    assert seen[True][0] == ["E2", "E4", "E6"]
    assert page.locator("script:not([type])").count() == 1
    assert watch.errors == []
