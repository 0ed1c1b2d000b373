"""The JSON Schema of the report, generated from the ``Report`` model."""

from __future__ import annotations

from typing import Any

from assay._json_schema import model_schema
from assay.report._model import SCHEMA_VERSION, Report


def report_schema() -> dict[str, Any]:
    """The JSON Schema that every ``--format json`` report conforms to (every key of every
    object required, null when not known; except the blocks a report writes only when
    they apply, which are omitted otherwise).

    Published as docs/report.schema.json (``scripts/gen_schemas.py`` writes it).
    """
    return model_schema(
        Report,
        title=f"assay report, schema_version {SCHEMA_VERSION}",
        every_key_required=True,
    )
