"""The HTML report: self-contained, escaped, figures from the same Report as every format."""

from __future__ import annotations

import base64
import gzip
import json
import re

import pytest
from tests.unit.report.conftest import synthetic_report

from assay.outcomes import Span
from assay.render import FORMATS, render, render_chunks
from assay.render import html as html_module
from assay.render import packed as packed_module
from assay.render.html import page_data, page_json, render_html, script_json
from assay.report import Report
from assay.report._model import CaseRow
from assay.report._rows import ROW_FIELDS, CaseRows

PAYLOAD = '</script><script>alert(1)</script>"><img src=x onerror=alert(1)>'


def _embedded(html: str) -> dict[str, object]:
    match = re.search(
        r'<script type="application/json" id="assay-data">(.*?)</script>', html, re.DOTALL
    )
    assert match is not None
    data = json.loads(match.group(1))
    assert isinstance(data, dict)
    return data


def test_html_is_a_format() -> None:
    assert "html" in FORMATS and "junit" in FORMATS


def test_page_is_self_contained(report: Report) -> None:
    html = render(report, "html")
    assert html.startswith("<!doctype html>")
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", html)
    assert "@import" not in html and "url(" not in html
    assert "default-src 'none'" in html


def test_headline_and_counts_match_the_report(report: Report) -> None:
    html = render_html(report)
    assert "2/6" in html and "33.3%" in html and "[4.3%, 77.7%]" in html
    assert "passing answers / substantive answers" in html
    assert "passed 2 + failed 3 + error 1 + missing 0 + ungraded 0 = 6 cases (adds up)" in html
    assert [c["id"] for c in _embedded(html)["cases"]] == [c.id for c in report.cases]  # type: ignore[index]


def test_script_json_cannot_close_the_element() -> None:
    text = str(script_json({"text": PAYLOAD + "<!-- \u2028 &amp;"}))
    assert "<" not in text and ">" not in text and "&" not in text
    assert json.loads(text) == {"text": PAYLOAD + "<!-- \u2028 &amp;"}


def test_every_value_is_escaped(report: Report) -> None:
    row = report.cases[0].model_copy(update={"text": PAYLOAD, "reason": PAYLOAD})
    nasty = report.model_copy(
        update={
            "cases": [row, *report.cases[1:]],
            "dataset": report.dataset.model_copy(update={"name": PAYLOAD}),
            "metadata": {PAYLOAD: PAYLOAD, "nested": {"x": PAYLOAD}},
            "run_id": PAYLOAD,
        }
    )
    html = render_html(nasty)
    assert "<img" not in html
    assert html.count("<script") == 2  # the JSON data block and the page's own script
    assert _embedded(html)["cases"][0]["text"] == PAYLOAD  # type: ignore[index]


def test_synthetic_section_apart_from_real_totals() -> None:
    report = synthetic_report()
    html = render_html(report)
    assert "SYNTHETIC — NOT A REAL RUN" in html
    assert 'class="synthetic"' in html
    assert "1/1" in html  # real task success counts the real case only


def test_no_synthetic_section_without_synthetic_cases(report: Report) -> None:
    html = render_html(report)
    assert "NOT A REAL RUN" not in html and 'id="synthetic"' not in html


def test_na_rate_shows_na_with_its_reason(abstain_only: Report) -> None:
    html = render_html(abstain_only)
    assert "n/a: no substantive answers" in html


def test_spans_are_grouped_per_case_trial(report: Report) -> None:
    spans = [
        Span(trace_id="t", span_id="a", name="assay.request", start_ns=0, end_ns=10, case_id="E2"),
        Span(
            trace_id="t",
            span_id="b",
            parent_id="a",
            name="retrieve",
            start_ns=1,
            end_ns=4,
            case_id="E2",
            trial=1,
        ),
        Span(trace_id="t", span_id="c", name="orphan", start_ns=0, end_ns=1),
    ]
    data = page_data(report, spans)
    assert [s["name"] for s in data["spans"]["E2#1"]] == ["assay.request", "retrieve"]
    assert list(data["spans"]) == ["E2#1"]


def test_links_make_a_navigation_bar(report: Report) -> None:
    html = render_html(report, links={"Runs": "/", "JSON": "/runs/x/report.json"})
    assert '<a href="/runs/x/report.json">JSON</a>' in html


@pytest.mark.parametrize("trials", [1, 3])
def test_output_is_deterministic(report: Report, trials: int) -> None:
    again = report.model_copy(update={"trials": trials})
    assert render_html(again) == render_html(again)


@pytest.mark.parametrize(
    ("url", "safe"),
    [
        ("/runs/abc", "/runs/abc"),
        ("https://example.org/x", "https://example.org/x"),
        ("javascript:alert(1)", "#"),
        (" JavaScript:alert(1)", "#"),
        ("data:text/html,<b>", "#"),
        ("runs?a=b:c", "runs?a=b:c"),
    ],
)
def test_links_only_allow_relative_or_http(url: str, safe: str) -> None:
    from assay.render.html import safe_url

    assert safe_url(url) == safe


def test_several_trials_get_a_trials_section() -> None:
    from assay.cases import Case, Dataset
    from assay.grading import grade_all
    from assay.outcomes import Answer, Record
    from assay.report import build_report

    case = Case(id="T1", slice="s", question="q", expected_behavior="answer", expected_fact="f")
    data = Dataset(name="trials", cases=(case,))
    records = [
        Record(case_id="T1", trial=t, outcome=Answer(fact="f" if t < 3 else "g")) for t in (1, 2, 3)
    ]
    report = build_report(data, grade_all(data, records))
    html = render_html(report)
    assert 'id="trials"' in html and "Flaky cases" in html and "clustered by case" in html
    assert report.trial_summary is not None
    assert f"<dt>trial policy</dt><dd>{report.trial_summary.label}</dd>" in html
    single = render_html(synthetic_report())
    assert 'id="trials"' not in single and "<dt>trial policy</dt><dd>single trial</dd>" in single


def test_page_json_is_page_data(report: Report) -> None:
    spans = [
        Span(trace_id="t", span_id="a", name="assay.request", start_ns=0, end_ns=5,
             case_id="E2", trial=1),
    ]  # fmt: skip
    text = str(page_json(report, spans, "/case?id="))
    assert json.loads(text) == page_data(report, spans, "/case?id=")
    assert text == str(script_json(page_data(report, spans, "/case?id=")))


def _blocks(html: str) -> dict[str, str]:
    block = r'<script type="application/octet-stream" id="assay-([a-z0-9-]+)">([A-Za-z0-9+/=]*)<'
    return dict(re.findall(block, html))


def _inflate(text: str) -> bytes:
    return gzip.decompress(base64.b64decode(text))


def _unpacked(html: str) -> list[dict[str, object]]:
    """The packed rows as the plain page embeds them (a block that does not apply, null in
    a packed row, left out)."""
    packing = _embedded(html)["packed"]
    assert isinstance(packing, dict)
    blocks = _blocks(html)
    rows: list[dict[str, object]] = []
    for k in range(packing["parts"]):
        arrays = json.loads(_inflate(blocks[f"rows-{k}"]))
        rows += [dict(zip(packing["fields"], values, strict=True)) for values in arrays]
    assert len(rows) == packing["rows"] and f"rows-{packing['parts']}" not in blocks
    return [{k: v for k, v in row.items() if v is not None or k not in _OMITTED} for row in rows]


_OMITTED = {name for name, f in CaseRow.model_fields.items() if f.exclude_if is not None}


def _columns(html: str) -> dict[str, list[object]]:
    """Each index column's value per row, read back from its distinct values and codes."""
    blocks = _blocks(html)
    index = json.loads(_inflate(blocks["index"]))
    columns: dict[str, list[object]] = {}
    for name, values in index["values"].items():
        if name in index["fields"]:  # a column of several fields: arrays of them
            values = [dict(zip(index["fields"][name], v, strict=True)) for v in values]
        width = index["widths"].get(name)
        if width is None:
            assert f"codes-{name}" not in blocks
            columns[name] = values
            continue
        raw = _inflate(blocks[f"codes-{name}"])
        codes = [int.from_bytes(raw[i : i + width], "little") for i in range(0, len(raw), width)]
        columns[name] = [values[c] for c in codes]
    return columns


def test_packed_rows_unpack_to_the_plain_rows(report: Report) -> None:
    plain = _embedded(render_html(report))
    page = render_html(report, packed=True)
    packed = _embedded(page)
    assert packed["cases"] == [] and plain["cases"]
    assert _unpacked(page) == plain["cases"]
    assert {k: v for k, v in packed.items() if k not in ("cases", "packed")} == {
        k: v for k, v in plain.items() if k != "cases"
    }
    assert render_html(report, packed=True) == page  # no timestamp


@pytest.mark.parametrize("chunk", [2, 20_000])
def test_the_index_columns_hold_each_rows_table_fields(
    report: Report, chunk: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(packed_module, "PACKED_PART_ROWS", 2)
    monkeypatch.setattr(packed_module, "SEARCH_PART_ROWS", chunk)  # the rows read a chunk at a time
    page = render_html(report, packed=True)
    rows = _unpacked(page)
    columns = _columns(page)
    assert set(columns) == set(packed_module.INDEX_COLUMNS)
    for name, fields in packed_module.INDEX_COLUMNS.items():
        assert len(columns[name]) == len(rows)
        for row, value in zip(rows, columns[name], strict=True):
            if len(fields) == 1:
                assert value == row[fields[0]]
            else:
                assert isinstance(value, dict)
                assert value == {f: row.get(f) for f in fields}
    texts = []
    for k in range(-(-len(rows) // packed_module.SEARCH_PART_ROWS)):
        texts += json.loads(_inflate(_blocks(page)[f"search-{k}"]))
    assert texts == ["\n".join(str(r[f] or "") for f in packed_module.SEARCH_FIELDS) for r in rows]


def test_index_codes_widen_with_the_distinct_values() -> None:
    rows = [
        CaseRow(id=f"c{i}", slice=f"s{i % 300}", trial=1 + i % 2, expected_behavior="answer",
                outcome=None, status="missing", reason=f"r{i % 70_000}", grader="g")
        for i in range(70_002)
    ]  # fmt: skip
    values, codes = packed_module.packed_index(rows)
    assert "id" not in codes and len(values["id"]) == len(rows)  # every id distinct
    assert {name: width for name, (width, _) in codes.items()} == {
        "trial": 1, "synthetic": 1, "slice": 2, "status": 1, "reason": 4,
        "expected": 1, "got": 1,
    }  # fmt: skip
    assert len(_inflate(codes["reason"][1])) == 4 * len(rows)
    assert values["got"] == [(None, None, None)]  # outcome_label, outcome, fact


def test_search_parts_hold_whole_parts_of_rows(
    report: Report, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(packed_module, "SEARCH_PART_ROWS", 3_000)
    with pytest.raises(ValueError, match="multiple of PACKED_PART_ROWS"):
        render_html(report, packed=True)


def test_packed_parts_hold_a_bounded_number_of_rows(
    report: Report, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(packed_module, "PACKED_PART_ROWS", 2)
    monkeypatch.setattr(packed_module, "SEARCH_PART_ROWS", 4)
    parts = list(packed_module.packed_rows(report.cases))
    searched = list(packed_module.packed_search(report.cases))
    assert [len(json.loads(_inflate(p))) for p in searched] == [4, 2]
    assert len(parts) == -(-len(report.cases) // 2)
    assert [len(json.loads(_inflate(p))) for p in parts[:-1]] == [2] * (len(parts) - 1)
    page = render_html(report, packed=True)
    assert _unpacked(page) == _embedded(render_html(report))["cases"]
    widths = json.loads(_inflate(_blocks(page)["index"]))["widths"]
    assert len(_blocks(page)) == 1 + len(widths) + len(parts) + len(searched)


def test_a_large_report_is_packed_by_default(
    report: Report, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert not html_module.is_packed(report)
    assert "packed" not in _embedded(render_html(report))
    monkeypatch.setattr(html_module, "PACKED_ABOVE", len(report.cases) - 1)
    page = render_html(report)
    assert _unpacked(page) == _embedded(render_html(report, packed=False))["cases"]
    script, digest = html_module.packed_page_script()
    assert f"'{digest}'" in page and str(script) in page
    plain, _ = html_module.page_script()
    assert f"'{html_module.page_script()[1]}'" not in page
    report_js = html_module._template("report.js")
    for start, end in (html_module._HELPERS, html_module._DRAWER):
        shared = report_js[report_js.index(start) : report_js.index(end)]
        assert shared in str(plain) and shared in str(script)  # the helpers and drawer, once
    table = html_module._template("case_table.js")
    assert "function CaseTable(" in table and "CaseTable.prototype.draw =" in table
    assert table in str(plain) and table in str(script)  # one case table for both pages
    for name in ("report.js", "report_packed.js"):
        assert "function CaseTable(" not in html_module._template(name)  # not a second copy


def test_a_packed_page_without_rows_has_no_parts(report: Report) -> None:
    empty = report.model_copy(update={"cases": []})
    data = json.loads(str(page_json(empty, packed=True)))
    assert data["cases"] == [] and data["packed"] == {
        "rows": 0, "part_rows": 2_000, "fields": list(ROW_FIELDS), "parts": 0,
        "search_rows": 20_000, "search_parts": 0,
    }  # fmt: skip
    page = render_html(empty, packed=True)
    assert _unpacked(page) == [] and set(_blocks(page)) == {"index"}  # no parts, no codes


@pytest.mark.parametrize("packed", [False, True])
def test_the_page_in_pieces_is_the_page(report: Report, packed: bool) -> None:
    spans = [Span(trace_id="t", span_id="a", name="x", start_ns=0, end_ns=5, case_id="E2")]
    pieces = list(
        html_module.render_html_chunks(report, spans=spans, case_link="/c?a=1&b=<", packed=packed)
    )
    whole = render_html(report, spans=spans, case_link="/c?a=1&b=<", packed=packed)
    assert "".join(pieces) == whole
    blocks = len(_blocks(whole))
    assert len(pieces) == (2 + blocks if packed else 1) and (blocks > 2 if packed else not blocks)
    assert "".join(render_chunks(report, "html")) == render(report, "html")


def test_rows_held_as_values_are_packed_as_the_rows_are(
    report: Report, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(packed_module, "PACKED_PART_ROWS", 2)
    monkeypatch.setattr(packed_module, "SEARCH_PART_ROWS", 4)
    values = CaseRows(tuple(getattr(row, name) for name in ROW_FIELDS) for row in report.cases)
    held = report.model_copy(update={"cases": values})
    assert render_html(held, packed=True) == render_html(report, packed=True)
