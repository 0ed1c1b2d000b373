"""The JSON Schema of the report, generated from the ``Report`` model."""

from __future__ import annotations

from typing import Any

from assay._json_schema import model_schema
from assay.report._model import SCHEMA_VERSION, Report


def report_schema() -> dict[str, Any]:
    """The JSON Schema that every ``--format json`` report conforms to (every key of every
    object required: a JSON report writes each field, null when empty; except the keys a
    report writes only when they apply, ``answered_unknown``, ``unknown_bounds``,
    ``judge_correction`` and ``judge_noise``, and a split block's ``answered_unknown`` and
    ``unknown_bounds``).

    Published as docs/report.schema.json (``scripts/gen_schemas.py`` writes it).
    """
    schema = model_schema(
        Report,
        title=f"assay report, schema_version {SCHEMA_VERSION}",
        every_key_required=True,
    )
    schema["required"] = [k for k in schema["required"] if k not in ONLY_WHEN_THEY_APPLY]
    split = schema["$defs"]["SplitBlock"]
    split["required"] = [k for k in split["required"] if k not in ONLY_WHEN_THEY_APPLY]
    return schema


ONLY_WHEN_THEY_APPLY = ("answered_unknown", "unknown_bounds", "judge_correction", "judge_noise")
"""Report keys written only when they apply, so that a report without them is unchanged."""
