"""The registry of writers: for each kind of thing assay draws and each of its formats
(``assay.formats.FORMATS``), the function that writes it and what that function takes.

A new format is a writer module and its entry here. Writers are named, not imported: a
command loads only the writer it uses (the HTML writers load Jinja, the listings rich).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping
from typing import Any, NamedTuple

from assay.formats import formats


class Writer(NamedTuple):
    """One format's writer: ``function`` of module ``assay.render.<module>``, called with
    the object (and the format, when ``fmt``) and the options it takes (``options``: the
    option's name in ``render`` → the writer's keyword); it returns the text, or yields it
    in pieces when ``chunks``. ``written``: a writer of the same text whose pieces may be
    files another process wrote (``WrittenText``)."""

    module: str
    function: str
    chunks: bool = False
    fmt: bool = False
    options: Mapping[str, str] = {}
    written: str | None = None

    def pieces(self, obj: Any, fmt: str, given: Mapping[str, Any], written: bool) -> Iterator[Any]:
        """The text of ``obj`` in ``fmt``, in pieces (one, for a writer that returns it
        whole)."""
        name = self.written if written and self.written is not None else self.function
        write: Callable[..., Any] = getattr(
            importlib.import_module(f"assay.render.{self.module}"), name
        )
        args = (obj, fmt) if self.fmt else (obj,)
        keywords = {kw: given[option] for option, kw in self.options.items() if option in given}
        made = write(*args, **keywords)
        if self.chunks or name == self.written:
            yield from made
        else:
            yield made


def _each(formats_of: str, writer: Writer) -> dict[str, Writer]:
    """The same writer (told the format) for every format of kind ``formats_of``."""
    return dict.fromkeys(formats(formats_of), writer._replace(fmt=True))


_COLOR = {"color": "color"}

WRITERS: dict[str, dict[str, Writer]] = {
    "report": {
        "text": Writer("text", "render_text", options=_COLOR),
        "json": Writer("json", "render_json_chunks", chunks=True, written="render_json_written"),
        "markdown": Writer("markdown", "render_markdown"),
        "html": Writer("html", "render_html_chunks", chunks=True, options={"spans": "spans"}),
        "junit": Writer("junit", "render_junit_chunks", chunks=True),
    },
    "comparison": {
        **_each("comparison", Writer("comparison", "render_comparison")),
        "html": Writer("compare_html", "render_compare_html"),
    },
    "composite": _each("composite", Writer("composite", "render_composite", options=_COLOR)),
    "matrix": {
        **_each("matrix", Writer("matrix", "render_matrix")),
        "html": Writer("matrix_html", "render_matrix_html"),
    },
    "calibration": _each("calibration", Writer("calibration", "render_calibration")),
    "trend": {
        "text": Writer("trend", "render_text"),
        "json": Writer("trend", "render_json"),
        "markdown": Writer("trend", "render_markdown"),
        "html": Writer("trend_html", "render_trend_html", options={"links": "viewer"}),
    },
    "coverage": _each("coverage", Writer("coverage", "render_coverage")),
    "plan": _each("plan", Writer("plan", "render_plan")),
    "gate": _each("gate", Writer("gates", "render_gate_outcome")),
    "diagnosis": _each("diagnosis", Writer("diagnosis", "render_diagnosis")),
    "trace": _each("trace", Writer("trace", "render_trace_view")),
    **{
        kind: _each(kind, Writer("listings", "render_listing", options=_COLOR))
        for kind in ("runs", "validation", "duplicates", "dataset-diff", "cache-stats")
    },
}
"""Each kind's writer for each of its formats."""

KINDS: dict[str, str] = {
    "Report": "report",
    "TracedReport": "report",
    "Comparison": "comparison",
    "CompositeReport": "composite",
    "MatrixReport": "matrix",
    "CalibrationReport": "calibration",
    "Trend": "trend",
    "Coverage": "coverage",
    "Plan": "plan",
    "GateOutcome": "gate",
    "Finding": "diagnosis",
    "Diagnosis": "diagnosis",
    "TraceView": "trace",
    "RunListing": "runs",
    "Validation": "validation",
    "Duplicates": "duplicates",
    "DatasetChanges": "dataset-diff",
    "CacheContents": "cache-stats",
}
"""The kind of each class assay draws (a subclass is drawn as its class), by name: the
classes live in the layers below, which need not be loaded to draw a report."""


def kind_of(obj: object) -> str:
    """The key of ``obj``'s kind in ``assay.formats.FORMATS``."""
    for cls in type(obj).__mro__:
        if cls.__module__.startswith("assay.") and cls.__name__ in KINDS:
            return KINDS[cls.__name__]
    raise TypeError(f"assay cannot render a {type(obj).__name__}")


def writer_for(kind: str, fmt: str) -> Writer:
    """Kind ``kind``'s writer of format ``fmt``; ``ValueError`` naming the choices when
    the kind has no such format."""
    found = WRITERS[kind].get(fmt)
    if found is None:
        raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(formats(kind))}")
    return found
