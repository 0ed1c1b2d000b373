"""Renderers: each turns a report (with or without its traces), a comparison, a composite
report, a matrix, a calibration report, a trend, a coverage matrix, a gate's outcome, a
diagnosis or a trace into a string in one of the formats ``assay.formats`` lists for it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Literal, Union, cast

from assay._lazy import lazy_exports
from assay._written import WrittenText
from assay.formats import formats
from assay.render._writers import kind_of, writer_for
from assay.report import Report, TracedReport

if TYPE_CHECKING:
    from assay.cases import Coverage
    from assay.compare import Comparison, MatrixReport
    from assay.diagnose import Diagnosis, Finding, TraceView
    from assay.gates import GateOutcome
    from assay.planning import Plan
    from assay.render._format import (
        agent_counts_text,
        ci,
        fraction,
        headline_keyed,
        run_split,
        short_version,
        tokens,
        value,
    )
    from assay.render._terminal import SafeConsole
    from assay.render._trajectory import ended_text, shown, step_views
    from assay.render.listings import Listing
    from assay.report._calibration import CalibrationReport
    from assay.report._composite import CompositeReport
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
changes, the response cache)."""


def render(obj: Rendered, fmt: str, *, color: bool = False, links: str | None = None) -> str:
    """``obj`` in format ``fmt``, one of the formats ``assay.formats`` lists for its kind
    (a report: text, json, markdown, html or junit). ``color`` colours terminal text;
    ``links`` is the viewer's URL a trend's HTML page links its runs to (None: the page
    names the commands instead)."""
    return "".join(render_chunks(obj, fmt, color=color, links=links))


def render_chunks(
    obj: Rendered, fmt: str, *, color: bool = False, links: str | None = None
) -> Iterator[str]:
    """``render``'s text in pieces (a JSON report a few thousand cases at a time, a packed
    HTML page a compressed part at a time, JUnit XML a few thousand test cases at a
    time), for writing a large report without holding it whole."""
    return cast("Iterator[str]", _pieces(obj, fmt, color, links, written=False))


def render_written(
    obj: Rendered, fmt: str, *, color: bool = False, links: str | None = None
) -> Iterator[str | WrittenText]:
    """``render_chunks``'s pieces, where a JSON report's rows that a second process
    rendered (a large stored run's, or a large results file's) come as the file it
    wrote them to: for ``emit``, which copies it without reading it."""
    return _pieces(obj, fmt, color, links, written=True)


def _pieces(
    obj: Rendered, fmt: str, color: bool, links: str | None, written: bool
) -> Iterator[str | WrittenText]:
    writer = writer_for(kind_of(obj), fmt)  # refused before anything is written
    given: dict[str, object] = {"color": color, "links": links}
    if isinstance(obj, TracedReport):  # drawn by the writers that take its spans
        given["spans"] = obj.spans
        obj = obj.report
    return writer.pieces(obj, fmt, given, written)


# Helpers the command line and the viewer share, loaded on first use (rich's console
# costs a command that writes no terminal text a tenth of a second).
_WHERE: dict[str, str] = {
    "agent_counts_text": "assay.render._format",
    "ci": "assay.render._format",
    "fraction": "assay.render._format",
    "headline_keyed": "assay.render._format",
    "run_split": "assay.render._format",
    "short_version": "assay.render._format",
    "tokens": "assay.render._format",
    "value": "assay.render._format",
    "SafeConsole": "assay.render._terminal",
    "ended_text": "assay.render._trajectory",
    "shown": "assay.render._trajectory",
    "step_views": "assay.render._trajectory",
}
__getattr__, __dir__ = lazy_exports(globals(), _WHERE)

__all__ = [
    "FORMATS",
    "Format",
    "Rendered",
    "SafeConsole",
    "agent_counts_text",
    "ci",
    "ended_text",
    "fraction",
    "headline_keyed",
    "kind_of",
    "render",
    "render_chunks",
    "render_written",
    "run_split",
    "short_version",
    "shown",
    "step_views",
    "tokens",
    "value",
]
