"""Commands load only what their work needs: the start-up cost a user pays per process."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
POLICY = ROOT / "examples" / "policy"

PROBE = """
import io, json, sys, contextlib
from assay.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    try:
        main({args!r})
    except SystemExit as done:
        code = done.code
print(json.dumps({{"code": code, "loaded": [m for m in {watched!r} if m in sys.modules]}}))
"""


def _loaded(args: list[str], watched: tuple[str, ...]) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(args=args, watched=watched)],
        capture_output=True,
        text=True,
        check=True,
    )
    got: dict[str, object] = json.loads(done.stdout.splitlines()[-1])
    return got


def test_score_of_a_small_dataset_loads_neither_numpy_nor_the_comparison() -> None:
    # Its 95% intervals are read from the table of scipy's limits (assay.metrics._beta_table).
    watched = (
        "numpy",
        "scipy",
        "scipy.special._ufuncs",
        "scipy.special",
        "assay.compare",
        "opentelemetry.sdk.metrics",
        "aiohttp",
    )
    seed = [str(POLICY / "policy.jsonl"), str(POLICY / "results.jsonl")]
    got = _loaded(["score", *seed, "--format", "json"], watched)
    assert got == {"code": 0, "loaded": []}
    # Wilson's interval at 95% needs only the normal quantile, also read from the table.
    got = _loaded(["score", *seed, "--format", "json", "--interval", "wilson"], watched)
    assert got == {"code": 0, "loaded": []}


def test_score_at_another_level_loads_the_special_functions_without_their_package() -> None:
    watched = ("scipy.special._ufuncs", "scipy.special", "numpy.f2py", "numpy.testing")
    seed = [str(POLICY / "policy.jsonl"), str(POLICY / "results.jsonl")]
    got = _loaded(["score", *seed, "--format", "json", "--confidence", "0.9"], watched)
    assert got == {"code": 0, "loaded": ["scipy.special._ufuncs"]}


def test_a_run_reported_as_json_loads_neither_rich_nor_the_metrics_sdk(tmp_path: Path) -> None:
    watched = (
        "numpy",
        "scipy.special._ufuncs",
        "scipy.special",
        "rich",
        "assay.compare",
        "opentelemetry.sdk.metrics",
    )
    suite = str(POLICY / "suite.yaml")
    store = f"sqlite:///{tmp_path / 'assay.db'}"
    got = _loaded(["run", suite, "--format", "json", "--store", store], watched)
    assert got == {"code": 0, "loaded": []}


def test_a_run_of_several_trials_loads_the_special_functions(tmp_path: Path) -> None:
    # Its intervals are clustered by case (Student's t): scipy computes them.
    watched = ("scipy.special._ufuncs", "scipy.special")
    suite = str(POLICY / "suite.yaml")
    store = f"sqlite:///{tmp_path / 'assay.db'}"
    args = ["run", suite, "--format", "json", "--store", store, "--trials", "2"]
    got = _loaded(args, watched)
    assert got == {"code": 0, "loaded": ["scipy.special._ufuncs"]}


def test_tracing_without_metrics_export_leaves_the_metrics_sdk_unloaded() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys\nfrom assay.tracing import start_tracing\n"
            "print('opentelemetry.sdk.metrics' in sys.modules)\n"
            "from assay.tracing import DIMENSIONS, start_metrics\n"
            "print('opentelemetry.sdk.metrics' in sys.modules)",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.split() == ["False", "True"]


# Modules of other commands' work: scoring a results file or re-rendering a stored run
# reads no suite, calls no target and no judge, and builds no coverage, diff or comparison.
OTHER_WORK = (
    "assay.cases._coverage",
    "assay.cases._diff",
    "assay.cases._lint",
    "assay.cases._near",
    "assay.cases._split",
    "assay.grading.judge",
    "assay.load._suite",
    "assay.load._judge",
    "assay.metrics._agreement",
    "assay.metrics._paired",
    "assay.report._composite",
    "assay.targets",
)


def test_score_loads_no_module_of_another_command() -> None:
    seed = [str(POLICY / "policy.jsonl"), str(POLICY / "results.jsonl")]
    got = _loaded(["score", *seed], OTHER_WORK)
    assert got == {"code": 0, "loaded": []}


def test_report_of_a_stored_run_loads_no_module_of_another_command(tmp_path: Path) -> None:
    database = tmp_path / "assay.db"
    store = f"sqlite:///{database}"
    ran = _loaded(["run", str(POLICY / "suite.yaml"), "--store", store], ())
    assert ran["code"] in (0, 1)
    with sqlite3.connect(database) as conn:
        (run_id,) = conn.execute("SELECT id FROM runs").fetchone()
    got = _loaded(["report", run_id, "--store", store], OTHER_WORK)
    assert got == {"code": 0, "loaded": []}


def test_a_run_without_a_judge_loads_no_judge_and_no_dataset_tooling(tmp_path: Path) -> None:
    watched = (
        "assay.grading.judge",
        "assay.cases._coverage",
        "assay.cases._diff",
        "assay.cases._lint",
        "assay.cases._near",
        "assay.cases._split",
        "assay.metrics._agreement",
        "assay.metrics._paired",
        "assay.report._composite",
    )
    suite = str(POLICY / "suite.yaml")
    store = f"sqlite:///{tmp_path / 'assay.db'}"
    got = _loaded(["run", suite, "--format", "json", "--store", store], watched)
    assert got == {"code": 0, "loaded": []}


def test_a_traced_run_without_a_collector_loads_no_opentelemetry_sdk(tmp_path: Path) -> None:
    watched = ("opentelemetry.sdk", "opentelemetry.sdk.trace", "opentelemetry.sdk.resources")
    database = tmp_path / "assay.db"
    suite = str(POLICY / "suite.yaml")
    got = _loaded(["run", suite, "--format", "json", "--store", f"sqlite:///{database}"], watched)
    assert got == {"code": 0, "loaded": []}
    with sqlite3.connect(database) as conn:
        (spans,) = conn.execute("SELECT count(*) FROM spans").fetchone()
    assert spans > 0  # the run was traced, by the store's own tracer


def test_a_command_imports_no_other_command_module() -> None:
    from assay.cli._app import COMMANDS

    others = tuple(
        sorted({f"assay.cli.{module}" for _, module, _, _ in COMMANDS} - {"assay.cli.score"})
    )
    seed = [str(POLICY / "policy.jsonl"), str(POLICY / "results.jsonl")]
    got = _loaded(["score", *seed, "--format", "json"], (*others, "assay.cli.score"))
    assert got == {"code": 0, "loaded": ["assay.cli.score"]}


# What neither ``assay score`` of a small file nor ``assay report RUN`` needs: score opens no
# store and calls nothing on the network; a stored run is re-rendered without a target, a
# network client, a suite's YAML or the tracing SDK.
NETWORK_AND_TRACING = (
    "aiohttp",
    "ssl",
    "yaml",
    "opentelemetry",
    "opentelemetry.sdk",
    "assay.runner",
    "assay.targets",
    "assay.tracing",
)


def test_score_of_a_small_file_loads_no_store_network_or_tracing() -> None:
    seed = [str(POLICY / "policy.jsonl"), str(POLICY / "results.jsonl")]
    watched = (*NETWORK_AND_TRACING, "sqlalchemy", "sqlite3", "numpy", "scipy", "asyncio")
    for form in ("text", "json", "markdown"):
        got = _loaded(["score", *seed, "--format", form], watched)
        assert got == {"code": 0, "loaded": []}, form


def test_report_of_a_stored_run_loads_no_network_client_and_no_tracing(tmp_path: Path) -> None:
    database = tmp_path / "assay.db"
    store = f"sqlite:///{database}"
    ran = _loaded(["run", str(POLICY / "suite.yaml"), "--store", store], ())
    assert ran["code"] in (0, 1)
    with sqlite3.connect(database) as conn:
        (run_id,) = conn.execute("SELECT id FROM runs").fetchone()
    # ssl is loaded by SQLAlchemy (through asyncio), not by the report.
    watched = tuple(m for m in NETWORK_AND_TRACING if m != "ssl")
    for form in ("text", "json"):
        got = _loaded(["report", run_id, "--store", store, "--format", form], watched)
        assert got == {"code": 0, "loaded": []}, form


OWNED = """
import atexit, os, sys
def said():
    threads = len(os.listdir("/proc/self/task"))
    print(os.environ.get("OPENBLAS_NUM_THREADS"), "numpy" in sys.modules, threads, file=sys.stderr)
atexit.register(said)
sys.argv = ["assay", *{args!r}]
from assay.cli import main
main()
"""


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="threads counted in /proc")
def test_a_stored_report_starts_numpy_without_a_blas_thread_pool(tmp_path: Path) -> None:
    database = tmp_path / "assay.db"
    store = f"sqlite:///{database}"
    ran = _loaded(["run", str(POLICY / "suite.yaml"), "--store", store], ())
    assert ran["code"] in (0, 1)
    done = subprocess.run(
        [sys.executable, "-c", OWNED.format(args=["report", "latest", "--store", store])],
        capture_output=True,
        text=True,
        check=True,
        env={k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"},
    )
    assert done.stderr.split() == ["1", "True", "1"]
    # A value the user set is kept.
    done = subprocess.run(
        [sys.executable, "-c", OWNED.format(args=["report", "latest", "--store", store])],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "OPENBLAS_NUM_THREADS": "2"},
    )
    assert done.stderr.split()[:2] == ["2", "True"]
