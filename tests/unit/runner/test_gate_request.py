"""A gate request refuses options that contradict each other before anything is read, and
checks a report file against its rules, saying when its intervals are recomputed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from assay.errors import AssayConfigError
from assay.metrics import IntervalSetting
from assay.runner import GateRequest, gate_request

REPORT = Path(__file__).resolve().parents[2] / "golden" / "snapshots" / "abstain-synthetic.json"
CALIBRATION = Path("calibration.json")


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ({"source": "r1", "calibration": CALIBRATION}, "--calibration and --max-false-accept"),
        (
            {"source": "r1", "calibration": CALIBRATION, "max_false_accept_upper": 0.0},
            "--max-false-accept-upper 0: must be above 0 and at most 1",
        ),
        ({"source": "r1", "min_kappa_lower": 2.0}, "--min-kappa-lower 2: must be from -1 to 1"),
        ({"source": "r1", "max_false_reject_upper": 0.1}, "go with --calibration"),
        ({"best_not_worse_than": "a"}, "--best-not-worse-than is a check of its own"),
        ({"source": "mx-1", "best_not_worse_than": "a", "rules": ("errors==0",)}, "of its own"),
        ({"rules": ("errors==0",)}, "give SOURCE (a report file or a run id) or --trend SUITE"),
        ({"source": "r1", "trend": "s", "rules": ("errors==0",)}, "not both"),
        ({"source": "r1"}, "give at least one --rule"),
        ({"trend": "s", "rules": ("errors==0",), "baseline": "r0"}, "with --trend"),
    ],
)
def test_contradicting_options_are_refused_naming_them(
    given: dict[str, object], message: str
) -> None:
    with pytest.raises(AssayConfigError, match=re.escape(message)):
        GateRequest(**given)  # type: ignore[arg-type]


def test_a_report_file_passes_or_fails_its_rules() -> None:
    held = gate_request(GateRequest(source=str(REPORT), rules=("errors==0",)))
    failed = gate_request(GateRequest(source=str(REPORT), rules=("task_success>=1",)))
    assert held.passed and held.outcome is not None
    assert [r.rule.text for r in held.outcome.results] == ["errors==0"]
    assert not failed.passed


def test_a_report_file_read_at_another_level_says_so() -> None:
    heard: list[str] = []
    asked = IntervalSetting(0.9, "wilson")
    request = GateRequest(source=str(REPORT), rules=("errors==0",), interval=asked)
    done = gate_request(request, heard.append)
    assert done.outcome is not None and done.outcome.report is not None
    assert done.outcome.report.task_success.method == "wilson"
    assert heard == [
        f"{REPORT} was written at 0.95 (clopper-pearson); its intervals are recomputed "
        "from its counts at 0.9 (wilson)"
    ]


def test_the_files_read_are_the_source_and_baseline_that_name_files() -> None:
    request = GateRequest(source=str(REPORT), rules=("errors==0",), baseline="run-1")
    assert request.files == [REPORT]
