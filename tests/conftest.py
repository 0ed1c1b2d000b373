"""Fixtures shared by every test: the repository's paths and a runner for the real CLI."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from tests.inprocess import run_cli, run_process
from tests.loopback import serve
from tests.otlp_receiver import otlp_receiver
from tests.real_model import real_model, real_tool_model

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
POLICY = EXAMPLES / "policy"

__all__ = ["otlp_receiver", "real_model", "real_tool_model", "serve"]

# Properties are checked, never timed: on a shared CI machine generating examples or running
# one can be slow for reasons that say nothing about the code under test.
settings.register_profile("assay", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("assay")

RunAssay = Callable[..., subprocess.CompletedProcess[str]]


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups off the items
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test of the local model runs on one worker: each worker that ran one would
    start its own model servers, two of them competing for the machine's two cores."""
    for item in items:
        if item.get_closest_marker("real_model") is not None:
            item.add_marker(pytest.mark.xdist_group("real_model"))


@pytest.fixture
def root() -> Path:
    """The repository's root directory."""
    return ROOT


@pytest.fixture
def policy_dir() -> Path:
    """examples/policy: the seed's six cases, the E7 variant and the recorded outcomes."""
    return POLICY


@pytest.fixture
def run_assay() -> RunAssay:
    """Run ``assay ARGS`` in this process as a fresh process would, and capture its output
    (``ASSAY_TEST_PROCESS=1``: in a subprocess, to tell an in-process difference apart)."""
    return run_process if os.environ.get("ASSAY_TEST_PROCESS") == "1" else run_cli


@pytest.fixture
def run_assay_process() -> RunAssay:
    """Run ``python -m assay ARGS`` in a subprocess: for signals, terminals and start-up."""
    return run_process


# The seed's "Predict the report" table, both columns, as fractions and counts.
SEED_TABLE: dict[str, dict[str, str | int]] = {
    "policy": {
        "task_success": "2/6",
        "answer_coverage": "3/6",
        "answered_accuracy": "1/3",
        "errors": 1,
        "missing": 0,
        "slice standard": "1/2",
        "slice exception": "0/2",
        "slice missing": "1/2",
    },
    "policy-e7": {
        "task_success": "2/7",
        "answer_coverage": "3/7",
        "answered_accuracy": "1/3",
        "errors": 1,
        "missing": 1,
        "slice standard": "1/3",
        "slice exception": "0/2",
        "slice missing": "1/2",
    },
}


def _fraction(rate: dict[str, object]) -> str:
    return f"{rate['numerator']}/{rate['denominator']}"


def seed_figures_of(report: dict[str, object]) -> dict[str, str | int]:
    """The seed table's figures read from a summary or JSON report (same field names)."""
    slices = report["slices"]
    assert isinstance(slices, dict)
    figures: dict[str, str | int] = {
        "task_success": _fraction(report["task_success"]),  # type: ignore[arg-type]
        "answer_coverage": _fraction(report["answer_coverage"]),  # type: ignore[arg-type]
        "answered_accuracy": _fraction(report["answered_accuracy"]),  # type: ignore[arg-type]
        "errors": report["errors"],  # type: ignore[dict-item]
        "missing": report["missing"],  # type: ignore[dict-item]
    }
    for name, item in slices.items():
        figures[f"slice {name}"] = _fraction(item["task_success"])
    return figures


@pytest.fixture
def seed_table() -> dict[str, dict[str, str | int]]:
    """Expected figures for examples/policy/policy.jsonl and policy-e7.jsonl."""
    return SEED_TABLE


@pytest.fixture
def seed_figures() -> Callable[[dict[str, object]], dict[str, str | int]]:
    """Reads the seed table's figures out of a summary dump or a JSON report."""
    return seed_figures_of
