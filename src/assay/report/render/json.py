"""The JSON report: the schema every other format is rendered from."""

from __future__ import annotations

from assay.report._model import Report


def render_json(report: Report) -> str:
    """The report as indented JSON text (schema: docs/report.schema.json)."""
    return report.model_dump_json(indent=2) + "\n"
