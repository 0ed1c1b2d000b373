"""An interval is ``ci``; its former name ``ci95`` is still read, written and warned about
until it goes (``CI95_REMOVED_IN``)."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from assay.compare._model import Delta
from assay.metrics import Rate, TrialRate, rate
from assay.metrics._former_ci95 import CI95_REMOVED_IN
from assay.report import report_schema

_RATE = {"numerator": 1, "denominator": 3, "denominator_name": "cases", "value": 1 / 3}


def test_ci95_reads_as_ci_with_a_deprecation_warning() -> None:
    r = rate(1, 3, "cases")
    assert r.ci is not None
    with pytest.warns(DeprecationWarning, match=rf"Rate\.ci95 .* {CI95_REMOVED_IN}; read \.ci"):
        assert r.ci95 == r.ci


def test_json_writes_ci95_beside_ci_with_the_same_value() -> None:
    data = json.loads(rate(1, 3, "cases").model_dump_json())
    keys = list(data)
    assert keys[keys.index("ci") + 1] == "ci95"
    assert data["ci95"] == data["ci"] and data["ci"] is not None
    assert json.loads(rate(0, 0, "cases").model_dump_json())["ci95"] is None


@pytest.mark.parametrize("model", [Rate, Delta, TrialRate])
def test_a_file_with_either_key_reads_the_same(model: type[Rate | Delta | TrialRate]) -> None:
    fields = {
        Rate: _RATE,
        Delta: {"value": 0.1, "method": "m"},
        TrialRate: {"policy": "mean", "label": "mean", "score_sum": 1.0, "cases": 3, "value": 0.3},
    }[model]
    new = model.model_validate({**fields, "ci": [0.1, 0.9]})
    old = model.model_validate({**fields, "ci95": [0.1, 0.9]})
    both = model.model_validate_json(json.dumps({**fields, "ci": [0.1, 0.9], "ci95": [0.1, 0.9]}))
    assert new == old == both
    assert new.ci == (0.1, 0.9)


def test_a_file_whose_ci_and_ci95_differ_is_refused() -> None:
    with pytest.raises(ValidationError, match=r"ci is \[0.1, 0.9\] but ci95 .* is \[0.2, 0.9\]"):
        Rate.model_validate({**_RATE, "ci": [0.1, 0.9], "ci95": [0.2, 0.9]})


def test_the_schema_lists_ci95_after_ci_as_deprecated() -> None:
    rate_schema = report_schema()["$defs"]["Rate"]
    names = list(rate_schema["properties"])
    assert names[names.index("ci") + 1] == "ci95"
    former = rate_schema["properties"]["ci95"]
    assert former["deprecated"] is True and CI95_REMOVED_IN in former["description"]
    assert {"ci", "ci95"} <= set(rate_schema["required"])
