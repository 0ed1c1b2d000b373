"""Write the JSON Schemas in docs/ from their models (run after changing a model).

.venv/bin/python scripts/gen_schemas.py
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from assay._json_schema import schema_text
from assay.compare import comparison_schema, matrix_schema
from assay.report import composite_schema, report_schema
from assay.report._calibration import calibration_schema
from assay.trend import trend_schema

DOCS = Path(__file__).resolve().parent.parent / "docs"

SCHEMAS: dict[str, Callable[[], dict[str, Any]]] = {
    "report.schema.json": report_schema,
    "compare.schema.json": comparison_schema,
    "composite.schema.json": composite_schema,
    "matrix.schema.json": matrix_schema,
    "calibration.schema.json": calibration_schema,
    "trend.schema.json": trend_schema,
}
"""Each published schema's file in docs/ and the function that makes it."""


if __name__ == "__main__":
    for name, make in SCHEMAS.items():
        (DOCS / name).write_text(schema_text(make()), encoding="utf-8")
        print(f"wrote {DOCS / name}")
