"""docs/compare.schema.json is generated from the model and kept fresh; output conforms."""

from __future__ import annotations

import json
from pathlib import Path

from assay.compare import COMPARE_SCHEMA_VERSION, compare_runs, comparison_schema
from assay.render.comparison import render_comparison

from .helpers import case, side

SCHEMA_FILE = Path(__file__).resolve().parents[3] / "docs" / "compare.schema.json"


def test_schema_file_is_fresh() -> None:
    expected = json.dumps(comparison_schema(), indent=2, sort_keys=True) + "\n"
    assert SCHEMA_FILE.read_text(encoding="utf-8") == expected, (
        "docs/compare.schema.json is stale: run .venv/bin/python scripts/gen_schemas.py"
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
    assert set(data["task_success_delta"]) >= {"value", "ci"}
    assert len(data["task_success_delta"]["ci"]) == 2
    for key in ("baseline", "candidate"):
        assert {"ref", "dataset_version", "task_success"} <= set(data[key])
    required = set(comparison_schema()["required"])
    assert required <= set(data)


def test_every_contract_name_and_type_with_an_exclusion() -> None:
    cases = [case("A"), case("B"), case("C"), case("D")]
    edited = [*cases[:3], case("D", revision="r2")]
    data = json.loads(
        render_comparison(
            compare_runs(
                side(cases, {"A": "failed", "B": "error", "C": "passed", "D": "passed"}),
                side(edited, {"A": "passed", "B": "failed", "C": "failed", "D": "passed"}),
                matching_only=True,
            ),
            "json",
        )
    )
    assert isinstance(data["baseline"], dict) and isinstance(data["candidate"], dict)
    assert data["paired"] == 3
    assert [{k: e[k] for k in ("id", "reason")} for e in data["excluded"]] == [
        {"id": "D", "reason": "source revision differs (r1 vs r2)"}
    ]
    assert (data["newly_fixed"], data["newly_broken"]) == (["A"], ["C"])
    assert [{k: m[k] for k in ("id", "from", "to")} for m in data["moved"]] == [
        {"id": "B", "from": "error", "to": "failed"}
    ]
    mcnemar = data["mcnemar"]
    assert (mcnemar["fixed"], mcnemar["broken"]) == (1, 1)
    assert isinstance(mcnemar["p_value"], float) and mcnemar["p_value"] == 1.0
    delta = data["task_success_delta"]
    assert delta["value"] == 0.0
    low, high = delta["ci"]
    assert isinstance(low, float) and isinstance(high, float) and low < 0 < high
