"""What a notebook shows for a report, a comparison, a matrix, a trend, a calibration or
a diagnosis: the blocks its Markdown rendering draws, as a compact HTML fragment with its
own scoped styles (the HTML report's colours and type), readable without any script; and
for ``rich``, the text the CLI prints."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from rich.text import Text

from assay.render import Rendered, kind_of, render
from assay.render.calibration import calibration_document
from assay.render.comparison import comparison_document
from assay.render.diagnosis import finding_document, groups_document
from assay.render.document import Document
from assay.render.html_writer import write_html
from assay.render.matrix import matrix_document
from assay.render.report_document import report_document
from assay.render.trend import trend_document
from assay.report import Report, TracedReport

if TYPE_CHECKING:
    from assay.compare import Comparison, MatrixReport
    from assay.diagnose import Diagnosis, Finding
    from assay.report._calibration import CalibrationReport
    from assay.trend import Trend

FRAGMENT_CLASS = "assay-fragment"

# The HTML report's palette and type (templates/report.css), every rule scoped to the
# fragment so that nothing else on the notebook's page changes.
STYLE = f"""
.{FRAGMENT_CLASS} {{
  --fg: #1f2328; --muted: #656d76; --line: #d0d7de; --soft: #f6f8fa;
  --passed: #1a7f37; --failed: #cf222e; --error: #8250df; --missing: #bf8700;
  --ungraded: #57606a;
  font: 13px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial,
    sans-serif;
  color: var(--fg); max-width: 1000px;
}}
.{FRAGMENT_CLASS} h2, .{FRAGMENT_CLASS} h3, .{FRAGMENT_CLASS} h4,
.{FRAGMENT_CLASS} h5, .{FRAGMENT_CLASS} h6 {{ font-size: 14px; margin: 12px 0 6px; }}
.{FRAGMENT_CLASS} h2 {{ font-size: 16px; }}
.{FRAGMENT_CLASS} p {{ margin: 4px 0; }}
.{FRAGMENT_CLASS} ul {{ margin: 4px 0; padding-left: 20px; }}
.{FRAGMENT_CLASS} code, .{FRAGMENT_CLASS} pre {{
  font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace;
  font-size: 12px;
}}
.{FRAGMENT_CLASS} pre {{ white-space: pre-wrap; margin: 4px 0; }}
.{FRAGMENT_CLASS} .table-wrap {{ overflow-x: auto; }}
.{FRAGMENT_CLASS} table {{ border-collapse: collapse; font-size: 12.5px; margin: 4px 0; }}
.{FRAGMENT_CLASS} th, .{FRAGMENT_CLASS} td {{
  text-align: left; padding: 3px 10px; border-bottom: 1px solid var(--line);
  vertical-align: top;
}}
.{FRAGMENT_CLASS} th {{
  font-weight: 600; color: var(--muted); font-size: 11.5px; text-transform: uppercase;
  letter-spacing: .04em;
}}
.{FRAGMENT_CLASS} .num {{ text-align: right; font-variant-numeric: tabular-nums; }}
.{FRAGMENT_CLASS} .banner {{
  font-weight: 700; border-left: 3px solid var(--missing); padding-left: 8px;
}}
.{FRAGMENT_CLASS} .c-passed {{ color: var(--passed); font-weight: 600; }}
.{FRAGMENT_CLASS} .c-failed {{ color: var(--failed); font-weight: 600; }}
.{FRAGMENT_CLASS} .c-error {{ color: var(--error); font-weight: 600; }}
.{FRAGMENT_CLASS} .c-missing {{ color: var(--missing); font-weight: 600; }}
.{FRAGMENT_CLASS} .c-ungraded {{ color: var(--ungraded); font-weight: 600; }}
"""


def document_of(obj: object) -> Document:
    """The document ``obj``'s Markdown rendering draws (what its fragment shows)."""
    if isinstance(obj, Report):
        return report_document(obj)
    if isinstance(obj, TracedReport):
        return report_document(obj.report)
    kind = kind_of(cast(Rendered, obj))
    if kind == "comparison":
        return comparison_document(cast("Comparison", obj))
    if kind == "matrix":
        return matrix_document(cast("MatrixReport", obj))
    if kind == "calibration":
        return calibration_document(cast("CalibrationReport", obj))
    if kind == "trend":
        return trend_document(cast("Trend", obj))
    if kind == "diagnosis" and hasattr(obj, "findings"):
        diagnosis = cast("Diagnosis", obj)
        return groups_document(diagnosis.run_id, list(diagnosis.findings))
    if kind == "diagnosis":
        return finding_document(cast("Finding", obj))
    raise TypeError(f"assay shows no {type(obj).__name__} in a notebook")


def html_fragment(obj: object) -> str:
    """``obj`` as an HTML fragment for a notebook: a ``<div>`` with its own scoped
    ``<style>``, no script, no page around it."""
    body = write_html(document_of(obj))
    return f'<div class="{FRAGMENT_CLASS}">\n<style>{STYLE}</style>\n{body}\n</div>\n'


def rich_text(obj: object, color: bool) -> Any:
    """``obj`` as the CLI prints it (coloured when ``color``), as a ``rich.text.Text``."""
    return Text.from_ansi(render(cast(Rendered, obj), "text", color=color).removesuffix("\n"))


__all__ = ["FRAGMENT_CLASS", "document_of", "html_fragment", "rich_text"]
