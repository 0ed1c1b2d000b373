"""The report as one self-contained HTML page: inline CSS, JS and SVG, no network.

Every value from a dataset or an outcome reaches the page either through Jinja's
autoescaping or as JSON inside ``<script type="application/json">`` (with ``<``, ``>`` and
``&`` escaped so no value can close the element); the page's script writes values with
``textContent`` only.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import json
import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import jinja2
from markupsafe import Markup

import assay.render._format as f
from assay.grading import STATUSES
from assay.metrics import StatusCounts
from assay.outcomes import Span
from assay.render._trials import judge_noise_lines, trial_lines, trial_sections
from assay.render.packed import packed_blocks, packed_meta, rows_adapter
from assay.report import Report, budget_lines

_SCHEME = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.\-]*):")
_CHART_WIDTH = 880
_CHART_LABEL = 160
_CHART_RIGHT = 250
_CHART_ROW = 30


@functools.cache
def environment() -> jinja2.Environment:
    """The Jinja environment of assay's page templates (autoescaping on)."""
    return jinja2.Environment(
        loader=jinja2.PackageLoader("assay.render", "templates"),
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
    )


def _template(name: str) -> str:
    env = environment()
    assert env.loader is not None
    source, _, _ = env.loader.get_source(env, name)
    return source


def _filled(name: str, source: str, slots: Sequence[tuple[str, str]]) -> str:
    for slot, piece in slots:
        if source.count(slot) != 1:
            raise RuntimeError(f"{name} no longer has the slot {slot.strip()!r}")
        source = source.replace(slot, piece)
    return source


_TABLE_SLOT = "  /* the case table */\n"


@functools.cache
def page_script() -> tuple[Markup, str]:
    """The page's script and its CSP hash: only this exact script may run on the page."""
    table = (_TABLE_SLOT, _template("case_table.js"))
    return allowed_script(_filled("report.js", _template("report.js"), [table]))


def allowed_script(source: str) -> tuple[Markup, str]:
    """``source`` as a page's script, with the CSP hash that lets this script alone run."""
    digest = base64.b64encode(hashlib.sha256(source.encode("utf-8")).digest()).decode("ascii")
    return Markup(source), f"sha256-{digest}"


_DATA_LINE = 'var DATA = JSON.parse(document.getElementById("assay-data").textContent);'
_HELPERS = ("  var STATUSES = DATA.statuses;", _TABLE_SLOT)
_DRAWER = ("  // ---- the case drawer ----", "  var real = DATA.cases.filter(")


def _between(source: str, start: str, end: str) -> str:
    if (
        source.count(start) != 1
        or source.count(end) != 1
        or source.index(start) > source.index(end)
    ):
        raise RuntimeError(f"report.js no longer has {start!r} once before {end!r}")
    return source[source.index(start) : source.index(end)]


@functools.cache
def packed_page_script() -> tuple[Markup, str]:
    """The script of a page whose case rows are packed (see ``PACKED_ABOVE``) and its CSP
    hash: the plain page's helpers, case table and case drawer around a reading of rows that
    keeps a few columns in memory and unpacks a part of full rows only when it needs one."""
    report = _template("report.js")
    if report.count(_DATA_LINE) != 1:
        raise RuntimeError("report.js no longer reads its data in the one expected line")
    slots = [
        ("  /* the shared helpers */\n", _between(report, *_HELPERS)),
        (_TABLE_SLOT, _template("case_table.js")),
        ("  /* the case drawer */\n", _between(report, *_DRAWER)),
    ]
    return allowed_script(_filled("report_packed.js", _template("report_packed.js"), slots))


PACKED_ABOVE = 20_000
"""A report with more case rows than this embeds them packed: a few columns of codes the
page keeps in memory (``packed_index``), and the full rows compressed in parts
(``packed_rows``) that the page unpacks one at a time, when it needs one."""


def is_packed(report: Report) -> bool:
    """Whether the page of ``report`` embeds its case rows packed."""
    return len(report.cases) > PACKED_ABOVE


def script_json(value: object) -> Markup:
    """``value`` as JSON safe inside a ``<script>`` element (cannot end it or open a comment)."""
    return _script_safe(json.dumps(value, ensure_ascii=False, separators=(",", ":")))


def _script_safe(text: str) -> Markup:
    for raw, escaped in (
        ("&", "\\u0026"),
        ("<", "\\u003c"),
        (">", "\\u003e"),
        ("\u2028", "\\u2028"),
        ("\u2029", "\\u2029"),
    ):
        text = text.replace(raw, escaped)
    return Markup(text)


def rate_view(label: str, key: str, r: f.Figure, clustered: bool = False) -> dict[str, Any]:
    """A rate's wording for the page: value, fraction, named denominator, interval."""
    return {
        "label": label,
        "key": key,
        "value": f.pct(r.value) if r.value is not None else "n/a",
        "na": r.value is None,
        "na_reason": r.na_reason,
        "fraction": f.fraction(r),
        "named": f.named(r),
        "ci": f.ci(r),
        "ci_label": f.ci_label(r, clustered),
    }


def status_view(counts: StatusCounts, total: int) -> list[dict[str, Any]]:
    """One segment per status, in the fixed order, with its share of the bar."""
    return [
        {
            "name": name,
            "count": getattr(counts, name),
            "share": (getattr(counts, name) / total * 100) if total else 0.0,
        }
        for name in STATUSES
    ]


def _x(value: float) -> float:
    return round(_CHART_LABEL + value * (_CHART_WIDTH - _CHART_LABEL - _CHART_RIGHT), 2)


def slice_chart(report: Report) -> dict[str, Any]:
    """Geometry of the per-slice chart: a dot at each rate, whiskers over its interval."""
    rows = []
    for i, (name, sl) in enumerate(report.slices.items()):
        r = sl.task_success
        y = 28 + i * _CHART_ROW
        row: dict[str, Any] = {"name": name, "y": y, "label": f"{f.fraction(r)}  {f.value(r)}"}
        if r.value is not None and r.ci is not None:
            row |= {"x": _x(r.value), "lo": _x(r.ci[0]), "hi": _x(r.ci[1])}
            row["label"] = f"{f.fraction(r)} · {f.pct(r.value)} · {f.ci(r)}"
        rows.append(row)
    ticks = [{"x": _x(t / 100), "label": f"{t}%"} for t in (0, 25, 50, 75, 100)]
    height = 28 + len(rows) * _CHART_ROW
    return {
        "rows": rows,
        "ticks": ticks,
        "width": _CHART_WIDTH,
        "height": height,
        "track_end": _x(1.0),
        "label_x": _x(1.0) + 10,
    }


_NARROW_WIDTH = 360
_NARROW_ROW = 44


def narrow_slice_chart(report: Report) -> dict[str, Any]:
    """The per-slice chart for a narrow screen: each slice's name and figures on a line of
    their own above a bar as wide as the chart, so the text stays at reading size."""
    left, right = 8.0, _NARROW_WIDTH - 8.0

    def x(value: float) -> float:
        return round(left + value * (right - left), 2)

    rows = []
    for i, (name, sl) in enumerate(report.slices.items()):
        r = sl.task_success
        y = 8 + i * _NARROW_ROW
        row: dict[str, Any] = {"name": name, "text_y": y + 12, "y": y + 28}
        row["label"] = f"{f.fraction(r)} · {f.value(r)}"
        if r.value is not None and r.ci is not None:
            row |= {"x": x(r.value), "lo": x(r.ci[0]), "hi": x(r.ci[1])}
            row["label"] = f"{f.fraction(r)} · {f.pct(r.value)} · {f.ci(r)}"
        rows.append(row)
    return {
        "rows": rows,
        "width": _NARROW_WIDTH,
        "height": 12 + len(rows) * _NARROW_ROW,
        "left": left,
        "right": right,
        "ticks": [{"x": x(t / 100)} for t in (0, 25, 50, 75, 100)],
    }


def _metadata(report: Report) -> list[tuple[str, str, bool]]:
    """(label, text, preformatted) rows of run metadata, what the report has."""
    d = report.dataset
    rows: list[tuple[str, str, bool]] = [
        ("dataset", f"{d.name} · {d.cases} real cases", False),
        ("dataset version", d.version, False),
        ("source revisions", ", ".join(d.source_revisions) or "—", False),
        ("graders", ", ".join(f"{g.name} v{g.version}" for g in report.graders) or "—", False),
        ("trials", f"{report.trials} per case", False),
        ("trial policy", _trial_policy(report), False),
        ("assay version", report.assay_version, False),
        ("report schema", str(report.schema_version), False),
    ]
    if report.run_id:
        rows.insert(0, ("run", report.run_id, False))
    cached = f.cache_line(report)
    if cached is not None:
        rows.append(("cache", cached.removeprefix("Cache: "), False))
    for key, value in report.metadata.items():
        if isinstance(value, dict):
            rows += [_meta_row(f"{key}.{sub}", inner) for sub, inner in value.items()]
        else:
            rows.append(_meta_row(str(key), value))
    return rows


def _trial_policy(report: Report) -> str:
    if report.trial_summary is not None:
        return report.trial_summary.label
    return "single trial" if report.trials == 1 else "per trial: every trial counted on its own"


def _meta_row(label: str, value: object) -> tuple[str, str, bool]:
    if isinstance(value, str | int | float | bool) or value is None:
        return (label, "—" if value is None else str(value), False)
    return (label, json.dumps(value, indent=2, sort_keys=True, default=str), True)


def _span_data(spans: Sequence[Span]) -> dict[str, list[dict[str, Any]]]:
    grouped: dict[str, list[dict[str, Any]]] = {}
    for s in sorted(spans, key=lambda s: (s.start_ns, s.end_ns)):
        if s.case_id is None:
            continue
        grouped.setdefault(f"{s.case_id}#{s.trial or 1}", []).append(
            s.model_dump(mode="json", exclude={"case_id", "trial", "trace_id"})
        )
    return grouped


def safe_url(url: str) -> str:
    """``url`` when it is relative or http(s); ``#`` for any other scheme (``javascript:``)."""
    scheme = _SCHEME.match(url.strip())
    if scheme and scheme.group(1).lower() not in ("http", "https"):
        return "#"
    return url


def page_data(
    report: Report, spans: Sequence[Span] = (), case_link: str | None = None
) -> dict[str, Any]:
    """What the page's script reads: every case row (whatever fields it carries), spans,
    and where a case's page across runs is (the viewer's), when there is one."""
    return {
        **_page_head(report, case_link),
        "cases": [row.model_dump(mode="json") for row in report.cases],
        "spans": _span_data(spans),
    }


def _page_head(report: Report, case_link: str | None) -> dict[str, Any]:
    return {
        "case_link": safe_url(case_link) if case_link else None,
        "trials": report.trials,
        "statuses": list(STATUSES),
    }


def page_json(
    report: Report,
    spans: Sequence[Span] = (),
    case_link: str | None = None,
    packed: bool = False,
) -> Markup:
    """``page_data`` as script-safe JSON, the case rows serialized in one pass (a report of
    100,000 cases renders in about a second); ``packed``: no rows (``cases`` empty) but
    ``packed``, what the packed page script needs to read them from ``packed_blocks``."""
    head = json.dumps(_page_head(report, case_link), ensure_ascii=False, separators=(",", ":"))
    spans_text = json.dumps(_span_data(spans), ensure_ascii=False, separators=(",", ":"))
    if packed:
        meta = packed_meta(len(report.cases))
        packing = json.dumps(meta, separators=(",", ":"))
        return _script_safe(f'{head[:-1]},"cases":[],"packed":{packing},"spans":{spans_text}}}')
    rows_text = rows_adapter().dump_json(list(report.cases)).decode("utf-8")
    return _script_safe(f'{head[:-1]},"cases":{rows_text},"spans":{spans_text}}}')


# Where the packed blocks go in a page rendered in pieces: a "<" from the data is always
# escaped on the page, so this text can only be the slot.
_BLOCKS_SLOT = "<assay-packed-rows>"


def render_html_chunks(
    report: Report,
    *,
    spans: Sequence[Span] = (),
    links: Mapping[str, str] | None = None,
    case_link: str | None = None,
    packed: bool | None = None,
) -> Iterator[str]:
    """``render_html``'s text in pieces: a packed page's data blocks one at a time, so
    that a report of a million rows is written without its page whole in memory."""
    if packed is None:
        packed = is_packed(report)
    if not packed:
        yield render_html(report, spans=spans, links=links, case_link=case_link, packed=False)
        return
    data = page_json(report, spans, case_link, packed=True)
    page = _page(report, data, links=links, blocks=Markup(_BLOCKS_SLOT))
    if page.count(_BLOCKS_SLOT) != 1:
        raise RuntimeError("the page template no longer holds its data blocks exactly once")
    head, tail = page.split(_BLOCKS_SLOT)
    yield head
    yield from packed_blocks(report)
    yield tail


def _split_line(report: Report) -> str | None:
    """'Split: dev (held-out cases not run)' for a stored run that recorded its split and
    ran no held-out case (a held-out result has its own banner)."""
    run = report.metadata.get("run")
    meta = run.get("metadata") if isinstance(run, dict) else None
    label = f.run_split(meta) if isinstance(meta, dict) else None
    if label is None or report.heldout is not None:
        return None
    return f"Split: {label} (held-out cases not run)" if label == "dev" else f"Split: {label}"


def render_html(
    report: Report,
    *,
    spans: Sequence[Span] = (),
    links: Mapping[str, str] | None = None,
    case_link: str | None = None,
    packed: bool | None = None,
) -> str:
    """The report as a self-contained HTML page.

    ``spans`` (a run's recorded spans) are drawn as a waterfall in each case's drawer;
    ``links`` (label -> URL) adds a navigation bar and ``case_link`` (a URL prefix the case
    id is appended to) a link from each drawer to the case across runs, as the viewer does.
    ``packed`` embeds the case rows compressed (``packed_blocks``); by default a report of
    more than ``PACKED_ABOVE`` rows is packed.
    """
    if packed is None:
        packed = is_packed(report)
    if packed:
        return "".join(
            render_html_chunks(report, spans=spans, links=links, case_link=case_link, packed=True)
        )
    data = page_json(report, spans, case_link)
    return _page(report, data, links=links, blocks=None)


AGENT_TABLE_ROWS = 100
"""Most case-trials the agents' table lists; each case's drawer has its own counts."""


def _page(
    report: Report,
    data: Markup,
    *,
    links: Mapping[str, str] | None,
    blocks: Markup | None,
) -> str:
    """The page of ``report`` with ``data`` (``page_json``) as its data element's text and
    ``blocks`` (a packed page's data blocks) after it."""
    template = environment().get_template("report.html.j2")
    script, script_hash = packed_page_script() if blocks is not None else page_script()
    clustered = report.trial_summary is not None
    synthetic = report.synthetic
    return template.render(
        report=report,
        title=f"assay report · {f.title_name(report)}",
        heading=f.title_name(report),
        headline=[rate_view(label, key, r, clustered) for label, key, r in f.headline_keyed(report)]
        + [
            rate_view(label, key, r)
            for (label, r), key in zip(f.dimensions(report), report.judge_dimensions, strict=True)
        ],
        segments=status_view(report.statuses, report.total),
        status_sum=f.status_sum(report.statuses, report.total, f.unit(report)),
        adds_up=report.statuses.total == report.total,
        usage_lines=f.usage_lines(report.usage, report.judge_usage),
        agent_lines=f.agent_section_lines(report),
        agent_columns=f.AGENT_COLUMNS,
        agent_rows=(
            f.agent_rows(report)
            if report.agent is not None and report.agent.case_trials <= AGENT_TABLE_ROWS
            else []
        ),
        figure_lines=[x for x in (*f.bounds_lines(report), f.correction_line(report)) if x],
        unit=f.unit(report),
        slices=[
            (name, sl, rate_view(name, name, sl.task_success)) for name, sl in report.slices.items()
        ],
        chart=slice_chart(report),
        narrow_chart=narrow_slice_chart(report),
        synthetic=synthetic,
        synthetic_rate=rate_view("Task success", "synthetic", synthetic.task_success)
        if synthetic
        else None,
        synthetic_segments=status_view(synthetic.statuses, synthetic.total) if synthetic else [],
        heldout_line=f.heldout_line(report),
        split_line=_split_line(report),
        change_line=f.change_line(report),
        sequential_lines=f.sequential_lines(report),
        not_drawn=report.sequential.not_drawn if report.sequential else [],
        budget_lines=budget_lines(report.budget),
        not_run=report.budget.not_run if report.budget else [],
        split_rows=[(label, rate_view(label, label, r)) for label, r in f.split_rows(report)],
        split_sums=[
            (b.split, f.status_sum(b.statuses, b.total, f.unit(report)))
            for b in report.splits or []
        ],
        split_bounds=f.split_bounds_lines(report),
        metadata=_metadata(report),
        trial_lines=trial_lines(report),
        judge_noise_lines=judge_noise_lines(report),
        trial_sections=trial_sections(report),
        data=data,
        blocks=blocks,
        script=script,
        script_hash=script_hash,
        links={label: safe_url(url) for label, url in (links or {}).items()},
    )
