"""The comparison page: newly fixed and newly broken first, slice deltas, the paired test."""

from __future__ import annotations

from tests.unit.report.conftest import seed_report

from assay.compare import RunSide, compare_runs
from assay.render.compare_html import (
    delta_text,
    disagreement,
    pairing_note,
    render_compare_html,
)
from assay.report import Report

PAYLOAD = '"><img src=x onerror=alert(1)><script>alert(2)</script>'


def _candidate(report: Report) -> Report:
    fixed = {"E2": "custom_excluded", "E6": "custom_excluded"}
    rows = []
    for row in report.cases:
        if row.id in fixed:
            row = row.model_copy(
                update={"status": "passed", "fact": fixed[row.id], "reason": PAYLOAD}
            )
        elif row.id == "E3":
            row = row.model_copy(update={"status": "failed", "outcome": "answer", "fact": "x"})
        rows.append(row)
    return report.model_copy(update={"cases": rows})


def test_sections_in_order_and_escaped() -> None:
    base = seed_report()
    comparison = compare_runs(
        RunSide.from_report(base, ref="base.json"),
        RunSide.from_report(_candidate(base), ref=PAYLOAD),
    )
    html = render_compare_html(comparison, links={"Runs": "/", "bad": "javascript:alert(1)"})
    assert html.index('id="fixed"') < html.index('id="broken"') < html.index('id="slices"')
    assert html.index('id="slices"') < html.index('id="test"')
    fixed = html.split('id="fixed-table"')[1].split("</table>")[0]
    assert 'data-case="E2"' in fixed and 'data-case="E6"' in fixed
    assert 'data-case="E3"' in html.split('id="broken-table"')[1].split("</table>")[0]
    assert "exact McNemar" in html and f"p = {comparison.mcnemar.p_value:.3g}" in html
    assert "<img" not in html and "<script" not in html
    assert 'href="#"' in html and "javascript:" not in html


def test_delta_text_says_na_without_pairs() -> None:
    from assay.compare import Delta

    assert delta_text(Delta(value=None, ci=None, method="m")) == "n/a (no paired cases)"
    assert delta_text(Delta(value=0.25, ci=(-0.1, 0.5), method="m")) == (
        "+25.0 pp [-10.0 pp, +50.0 pp]"
    )


def test_what_was_left_out_is_said_near_the_top() -> None:
    base = seed_report()
    rows = [
        row.model_copy(update={"case_hash": "sha256:changed"}) if row.id in ("E1", "E4") else row
        for row in base.cases
        if row.id != "E6"
    ]
    changed = base.model_copy(
        update={"cases": rows, "dataset": base.dataset.model_copy(update={"version": "v2"})}
    )
    comparison = compare_runs(
        RunSide.from_report(base, ref="a"),
        RunSide.from_report(changed, ref="b"),
        matching_only=True,
    )
    note = pairing_note(comparison, "cases")
    assert note.startswith("3 cases paired. 3 cases left out and counted on neither side (")
    assert "2 case definition differs" in note and "1 only in the baseline" in note
    html = render_compare_html(comparison)
    assert html.index('id="pairing"') < html.index('id="fixed"') < html.index('id="excluded"')
    left_out = html.split('id="excluded"')[1]
    assert all(f'data-case="{case}"' in left_out for case in ("E1", "E4", "E6"))


def test_nothing_left_out_is_said_too() -> None:
    base = seed_report()
    comparison = compare_runs(
        RunSide.from_report(base, ref="a"), RunSide.from_report(_candidate(base), ref="b")
    )
    assert (
        pairing_note(comparison, "cases") == "Every case paired: 6 cases compared, none left out."
    )
    assert 'id="excluded"' not in render_compare_html(comparison)


def test_interval_and_test_disagreeing_is_said() -> None:
    from assay.compare import Delta, McNemar

    base = seed_report()
    comparison = compare_runs(
        RunSide.from_report(base, ref="a"), RunSide.from_report(_candidate(base), ref="b")
    )
    agree = comparison.model_copy(
        update={"task_success_delta": Delta(value=0.3, ci=(-0.1, 0.6), method="m")}
    )
    assert disagreement(agree) is None and 'data-field="disagreement"' not in (
        render_compare_html(agree)
    )
    apart = comparison.model_copy(
        update={
            "task_success_delta": Delta(value=0.32, ci=(0.007, 0.56), method="m"),
            "mcnemar": McNemar(fixed=10, broken=3, p_value=0.092),
        }
    )
    note = disagreement(apart)
    assert note is not None and note.startswith("The 95% interval of the delta excludes 0")
    assert "p = 0.092 is above 0.05" in note
    assert 'data-field="disagreement"' in render_compare_html(apart)
    assert (
        disagreement(
            apart.model_copy(update={"mcnemar": McNemar(fixed=9, broken=0, p_value=0.004)})
        )
        is None
    )
