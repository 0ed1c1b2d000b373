"""The matrix page in a real browser: the variants side by side, the pairwise table with
Holm's adjustment named, and the case × variant grid filtering to disagreements."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from assay.compare import VariantInput, build_matrix
from assay.grading import StructuredGrader, grade
from assay.outcomes import Answer, Record, Results
from assay.render import render
from assay.report import build_report

from .conftest import Watch

pytestmark = pytest.mark.browser


def _variant(name: str, wrong: set[str], dataset: object) -> VariantInput:
    from assay.cases import Dataset

    assert isinstance(dataset, Dataset)
    found = Results(
        tuple(
            Record(case_id=c.id, outcome=Answer(fact="nope" if c.id in wrong else c.expected_fact))
            for c in dataset.cases
        )
    )
    report = build_report(dataset, grade(dataset.cases, found, StructuredGrader()))
    return VariantInput(name, f"run-{name}", "completed", {"target.model": name}, report)


def _page(tmp_path: Path) -> Path:
    from assay.cases import Case, Dataset

    cases = tuple(
        Case(
            id=f"c{i}",
            slice="odd" if i % 2 else "even",
            question=f"<script>alert({i})</script>",
            expected_behavior="answer",
            expected_fact="f",
        )
        for i in range(1, 41)
    )
    dataset = Dataset(name="d", cases=cases)
    variants = [
        _variant("small", {"c1", "c2", "c3"}, dataset),
        _variant("big", set(), dataset),
        _variant("<b>x</b>", {"c1"}, dataset),
    ]
    out = tmp_path / "matrix.html"
    out.write_text(render(build_matrix("mx-1", variants), "html"), encoding="utf-8")
    return out


def test_the_grid_filters_to_the_cases_where_variants_disagree(
    page: Page, watch: Watch, tmp_path: Path, artifacts: Path
) -> None:
    page.goto(_page(tmp_path).as_uri())
    cards = page.locator("#variants .card")
    expect(cards).to_have_count(3)
    expect(cards.nth(0)).to_contain_text("small")
    expect(cards.nth(0).locator("[data-field=fraction]")).to_have_text("37/40")
    expect(page.locator("#holm-note")).to_contain_text("Holm")
    expect(page.locator("#pairs tbody tr")).to_have_count(3)
    rows = page.locator("#grid tbody tr")
    expect(rows).to_have_count(40)
    expect(page.locator("#grid-shown")).to_have_text("40")
    page.locator("#only-disagree").check()
    visible = page.locator("#grid tbody tr:visible td.id")
    expect(visible).to_have_text(["c1", "c2", "c3"])
    expect(page.locator("#grid-shown")).to_have_text("3")
    page.screenshot(path=str(artifacts / "matrix-disagreements.png"), full_page=True)
    page.locator("#only-disagree").uncheck()
    expect(page.locator("#grid tbody tr:visible")).to_have_count(40)
    # The variant name is shown as text, never as markup; nothing from the data runs.
    expect(page.locator("#variants b")).to_have_count(0)
    expect(cards.nth(2)).to_contain_text("<b>x</b>")
    assert watch.dialogs == [] and watch.errors == []
    assert all(url.startswith("file:") for url in watch.requests)
