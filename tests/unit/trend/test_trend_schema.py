"""docs/trend.schema.json is generated from the model and kept fresh; output conforms."""

from __future__ import annotations

import json
from pathlib import Path

from tests.trend_stores import V1, V2

from assay.render.trend import render_json
from assay.trend import Trend, build_trend, trend_schema

from .helpers import suite_run

SCHEMA_FILE = Path(__file__).resolve().parents[3] / "docs" / "trend.schema.json"


def test_schema_file_is_fresh() -> None:
    expected = json.dumps(trend_schema(), indent=2, sort_keys=True) + "\n"
    assert SCHEMA_FILE.read_text(encoding="utf-8") == expected, (
        "docs/trend.schema.json is stale: run .venv/bin/python scripts/gen_schemas.py"
    )


def test_json_output_conforms() -> None:
    runs = [suite_run("a", 1, V1, range(30)), suite_run("b", 2, V2, range(20), cost_usd=0.1)]
    for metric in ("task_success", "cost_usd"):
        data = json.loads(render_json(build_trend("s", runs, metric)))
        assert Trend.model_validate(data).model_dump(mode="json") == data
        assert set(data) == set(trend_schema()["properties"])
        assert data["points"][1]["change"]["paired"] is False
