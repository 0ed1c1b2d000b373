"""docs/compare.schema.json is generated from the model and kept fresh; output conforms."""

from __future__ import annotations

import json
from pathlib import Path

from assay.compare import COMPARE_SCHEMA_VERSION, compare_runs, comparison_schema, render_comparison

from .helpers import case, side

SCHEMA_FILE = Path(__file__).resolve().parents[3] / "docs" / "compare.schema.json"


def test_schema_file_is_fresh() -> None:
    expected = json.dumps(comparison_schema(), indent=2, sort_keys=True) + "\n"
    assert SCHEMA_FILE.read_text(encoding="utf-8") == expected, (
        "docs/compare.schema.json is stale: run .venv/bin/python scripts/gen_compare_schema.py"
    )


def test_json_output_has_the_contract_names() -> None:
    cases = [case("A"), case("B"), case("C")]
    out = render_comparison(
        compare_runs(
            side(cases, {"A": "failed", "B": "error", "C": "passed"}),
            side(cases, {"A": "passed", "B": "failed", "C": "failed"}),
        ),
        "json",
    )
    data = json.loads(out)
    assert data["schema_version"] == COMPARE_SCHEMA_VERSION
    assert data["paired"] == 3
    assert data["excluded"] == []
    assert data["newly_fixed"] == ["A"]
    assert data["newly_broken"] == ["C"]
    assert data["moved"] == [{"id": "B", "trial": 1, "slice": "s", "from": "error", "to": "failed"}]
    assert set(data["mcnemar"]) >= {"fixed", "broken", "p_value"}
    assert set(data["task_success_delta"]) >= {"value", "ci95"}
    assert len(data["task_success_delta"]["ci95"]) == 2
    for key in ("baseline", "candidate"):
        assert {"ref", "dataset_version", "task_success"} <= set(data[key])
    required = set(comparison_schema()["required"])
    assert required <= set(data)
