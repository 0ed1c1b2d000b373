"""The JSON Schema of the report, generated from the ``Report`` model."""

from __future__ import annotations

from typing import Any

from assay.report._model import SCHEMA_VERSION, Report

JSON_SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"


def _all_required(node: dict[str, Any]) -> dict[str, Any]:
    # A JSON report always writes every field (null when empty), so a consumer may rely on
    # each key being present: the schema says so, for the report and every nested object.
    if isinstance(node.get("properties"), dict):
        node["required"] = list(node["properties"])
    return node


def report_schema() -> dict[str, Any]:
    """The JSON Schema that every ``--format json`` report conforms to.

    Published as docs/report.schema.json (``scripts/gen_schema.py`` writes it).
    """
    schema = Report.model_json_schema(mode="serialization")
    defs = {name: _all_required(sub) for name, sub in schema.pop("$defs", {}).items()}
    return {
        "$schema": JSON_SCHEMA_DIALECT,
        **_all_required(schema),
        "title": f"assay report, schema_version {SCHEMA_VERSION}",
        "$defs": defs,
    }
