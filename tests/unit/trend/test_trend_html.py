"""The trend page: self-contained, escaped, links only where a viewer is given."""

from __future__ import annotations

from dataclasses import replace

from tests.trend_stores import V1, V2

from assay.render.trend_html import chart, render_trend_html
from assay.trend import build_trend

from .helpers import suite_run


def test_empty_trend_page() -> None:
    page = render_trend_html(build_trend("s", []))
    assert "no runs in this period" in page and "trend-chart" not in page


def test_names_are_escaped_and_no_script_runs() -> None:
    run = replace(suite_run("r<1>", 1, V1, range(3)), tags=("x\"'<b>",))
    page = render_trend_html(build_trend("<script>alert(1)</script>", [run]))
    assert "<script>alert" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "<b>" not in page and "r&lt;1&gt;" in page
    assert "<script" not in page


def test_links_to_a_viewer_only_when_given() -> None:
    runs = [suite_run("a", 1, V1, range(3)), suite_run("b", 2, V1, range(4))]
    trend = build_trend("s", runs)
    static = render_trend_html(trend)
    assert "assay compare a b" in static and 'href="/runs/' not in static
    linked = render_trend_html(trend, viewer="http://127.0.0.1:8765/")
    assert 'href="http://127.0.0.1:8765/runs/b"' in linked
    assert 'href="http://127.0.0.1:8765/compare?baseline=a&amp;candidate=b"' in linked
    hostile = render_trend_html(trend, viewer="javascript:alert(1)//")
    assert "javascript:" not in hostile


def test_bands_and_line_are_cut_at_a_dataset_change() -> None:
    runs = [
        suite_run("a", 1, V1, range(10)),
        suite_run("b", 2, V1, range(20)),
        suite_run("c", 3, V2, range(20)),
    ]
    drawn = chart(build_trend("s", runs))
    assert len(drawn["lines"]) == 2 and len(drawn["bands"]) == 2
    assert [m["label"] for m in drawn["markers"]] == ["dataset"]
    assert [p["value"] for p in drawn["points"]] == ["0.25", "0.5", "0.5"]
    ys = [p["y"] for p in drawn["points"]]
    assert ys[0] > ys[1] == ys[2]  # higher values are drawn higher
