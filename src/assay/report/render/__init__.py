"""Renderers: each turns a report (with or without its traces), a comparison, a composite
report, a matrix, a calibration report, a trend, a coverage matrix, a gate's outcome, a
diagnosis or a trace into a string in one of the formats ``assay.formats`` lists for it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Literal, Union, cast

from assay._written import WrittenText
from assay.formats import formats
from assay.report._model import Report
from assay.report._traced import TracedReport

if TYPE_CHECKING:
    from assay.cases import Coverage
    from assay.compare import Comparison, MatrixReport
    from assay.diagnose import Diagnosis, Finding, TraceView
    from assay.planning import Plan
    from assay.report._calibration import CalibrationReport
    from assay.report._composite import CompositeReport
    from assay.report._gate_outcome import GateOutcome
    from assay.report.render.listings import Listing
    from assay.trend import Trend

Format = Literal["text", "json", "markdown", "html", "junit"]
FORMATS: tuple[str, ...] = formats("report")


Rendered = Union[
    Report,
    TracedReport,
    "Comparison",
    "CompositeReport",
    "MatrixReport",
    "CalibrationReport",
    "Trend",
    "Coverage",
    "GateOutcome",
    "Finding",
    "Diagnosis",
    "TraceView",
    "Listing",
    "Plan",
]
"""What ``render`` draws: a report (or a report with its run's spans), a comparison, a
composite report, a matrix, a calibration report, a trend, a coverage matrix, a gate's
outcome, one case-trial's finding or a run's diagnosis, one case-trial's trace, or a
listing (``assay.report._listings``: stored runs, a dataset's problems, duplicates or
changes, the response cache), or a plan (``assay plan``)."""


def kind_of(obj: Rendered) -> str:
    """The key of ``obj``'s kind in ``assay.formats.FORMATS``."""
    if isinstance(obj, Report | TracedReport):
        return "report"
    # Imported here: a report's renderer need not load the comparison's model.
    from assay.cases import Coverage
    from assay.compare import Comparison, MatrixReport
    from assay.diagnose import Diagnosis, Finding, TraceView
    from assay.planning import Plan
    from assay.report._calibration import CalibrationReport
    from assay.report._composite import CompositeReport
    from assay.report._gate_outcome import GateOutcome
    from assay.trend import Trend

    if isinstance(obj, Plan):
        return "plan"
    if isinstance(obj, GateOutcome):
        return "gate"
    if isinstance(obj, Finding | Diagnosis):
        return "diagnosis"
    if isinstance(obj, TraceView):
        return "trace"
    if isinstance(obj, Comparison):
        return "comparison"
    if isinstance(obj, CompositeReport):
        return "composite"
    if isinstance(obj, MatrixReport):
        return "matrix"
    if isinstance(obj, CalibrationReport):
        return "calibration"
    if isinstance(obj, Trend):
        return "trend"
    if isinstance(obj, Coverage):
        return "coverage"
    listing = _listing_kind(obj)
    if listing is not None:
        return listing
    raise TypeError(f"assay cannot render a {type(obj).__name__}")


def render(obj: Rendered, fmt: str, *, color: bool = False, links: str | None = None) -> str:
    """``obj`` in format ``fmt``, one of the formats ``assay.formats`` lists for its kind
    (a report: text, json, markdown, html or junit). ``color`` colours terminal text;
    ``links`` is the viewer's URL a trend's HTML page links its runs to (None: the page
    names the commands instead)."""
    kind = kind_of(obj)
    if fmt not in formats(kind):
        raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(formats(kind))}")
    if isinstance(obj, Report):
        return _render_report(obj, fmt, color=color)
    if isinstance(obj, TracedReport):
        if fmt == "html":  # the one format that draws the traces
            from assay.report.render.html import render_html

            return render_html(obj.report, spans=obj.spans)
        return _render_report(obj.report, fmt, color=color)
    if kind == "gate":
        from assay.report.render.gates import render_gate_outcome

        return render_gate_outcome(cast("GateOutcome", obj), fmt)
    if kind == "diagnosis":
        from assay.report.render.diagnosis import render_diagnosis

        return render_diagnosis(cast("Finding | Diagnosis", obj), fmt)
    if kind == "trace":
        from assay.report.render.trace import render_trace_view

        return render_trace_view(cast("TraceView", obj), fmt)
    if kind == "comparison" and fmt == "html":
        from assay.report.render.compare_html import render_compare_html

        return render_compare_html(cast("Comparison", obj))
    if kind == "comparison":
        from assay.report.render.comparison import render_comparison

        return render_comparison(cast("Comparison", obj), fmt)
    if kind == "composite":
        from assay.report.render.composite import render_composite

        return render_composite(cast("CompositeReport", obj), fmt, color=color)
    if kind == "matrix" and fmt == "html":
        from assay.report.render.matrix_html import render_matrix_html

        return render_matrix_html(cast("MatrixReport", obj))
    if kind == "matrix":
        from assay.report.render.matrix import render_matrix

        return render_matrix(cast("MatrixReport", obj), fmt)
    if kind == "calibration":
        from assay.report.render.calibration import render_calibration

        return render_calibration(cast("CalibrationReport", obj), fmt)
    if kind == "trend":
        return _render_trend(cast("Trend", obj), fmt, links)
    if kind == "plan":
        from assay.report.render.plan import render_plan

        return render_plan(cast("Plan", obj), fmt)
    if kind in LISTINGS:
        from assay.report.render.listings import render_listing

        return render_listing(cast("Listing", obj), fmt, color=color)
    from assay.report.render.coverage import render_coverage

    return render_coverage(cast("Coverage", obj), fmt)


LISTINGS = ("runs", "validation", "duplicates", "dataset-diff", "cache-stats")


def _listing_kind(obj: object) -> str | None:
    from assay.report import _listings as listings

    kinds: dict[type, str] = {
        listings.RunListing: "runs",
        listings.Validation: "validation",
        listings.Duplicates: "duplicates",
        listings.DatasetChanges: "dataset-diff",
        listings.CacheContents: "cache-stats",
    }
    return kinds.get(type(obj))


def _render_trend(trend: Trend, fmt: str, links: str | None) -> str:
    if fmt == "html":
        from assay.report.render.trend_html import render_trend_html

        return render_trend_html(trend, viewer=links)
    from assay.report.render.trend import render_json, render_markdown, render_text

    renderers = {"text": render_text, "json": render_json, "markdown": render_markdown}
    return renderers[fmt](trend)


def _render_report(report: Report, fmt: str, *, color: bool) -> str:
    if fmt == "json":
        from assay.report.render.json import render_json

        return render_json(report)
    if fmt == "markdown":
        from assay.report.render.markdown import render_markdown

        return render_markdown(report)
    if fmt == "text":
        from assay.report.render.text import render_text

        return render_text(report, color=color)
    if fmt == "html":
        from assay.report.render.html import render_html

        return render_html(report)
    from assay.report.render.junit import render_junit

    return render_junit(report)


def render_chunks(report: Report | TracedReport, fmt: str, *, color: bool = False) -> Iterator[str]:
    """``render``'s text in pieces (a JSON report a few thousand cases at a time, a packed
    HTML page a compressed part at a time, JUnit XML a few thousand test cases at a
    time), for writing a large report without holding it whole."""
    if isinstance(report, TracedReport):
        if fmt == "html":
            from assay.report.render.html import render_html_chunks

            yield from render_html_chunks(report.report, spans=report.spans)
            return
        report = report.report
    if fmt == "json":
        from assay.report.render.json import render_json_chunks

        yield from render_json_chunks(report)
    elif fmt == "html":
        from assay.report.render.html import render_html_chunks

        yield from render_html_chunks(report)
    elif fmt == "junit":
        from assay.report.render.junit import render_junit_chunks

        yield from render_junit_chunks(report)
    else:
        yield render(report, fmt, color=color)


def render_written(
    report: Report | TracedReport, fmt: str, *, color: bool = False
) -> Iterator[str | WrittenText]:
    """``render_chunks``'s pieces, where a JSON report's rows that a second process
    rendered (a large stored run's) come as the file it wrote them to: for ``emit``,
    which copies it without reading it."""
    if fmt == "json" and not isinstance(report, TracedReport):
        from assay.report.render.json import render_json_written

        return render_json_written(report)
    return iter(render_chunks(report, fmt, color=color))


__all__ = [
    "FORMATS",
    "Format",
    "Rendered",
    "kind_of",
    "render",
    "render_chunks",
    "render_written",
]
