"""``assay plan`` end to end: each question, a stored run as pilot with its forecast, the
suite's concurrency and dataset, every format, and bad input refused with exit 2."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from tests.conftest import ROOT, RunAssay

from assay.metrics import cases_for_drop, cases_for_half_width


@pytest.fixture
def demo(tmp_path: Path, run_assay: RunAssay) -> tuple[Path, str, str]:
    """A copy of the demo with one stored run of two trials per case."""
    shutil.copytree(ROOT / "examples" / "demo", tmp_path / "demo")
    store = f"sqlite:///{tmp_path / 'runs.db'}"
    done = run_assay(
        "run", "demo/v1.yaml", "--trials", "2", "--store", store, "-f", "json", cwd=tmp_path
    )
    assert done.returncode in (0, 1), done.stderr
    return tmp_path, store, json.loads(done.stdout)["run_id"]


def test_a_rate_plan_prints_the_cases_and_the_method(run_assay: RunAssay, tmp_path: Path) -> None:
    done = run_assay("plan", "rate", "--width", "0.1", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert f"needs: {cases_for_half_width(0.1)} cases" in done.stdout
    assert "Clopper–Pearson" in done.stdout


def test_a_pilot_run_gives_the_discordance_and_the_forecast(
    demo: tuple[Path, str, str], run_assay: RunAssay
) -> None:
    folder, store, run_id = demo
    done = run_assay(
        "plan", "drop", "--drop", "0.1", "--baseline", run_id[:12], "--store", store,
        "--suite", "demo/v1.yaml", "-f", "json", cwd=folder,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    (answer,) = data["answers"]
    assert any(f"measured on run {run_id}" in a for a in data["assumptions"])
    forecast = data["forecast"]
    assert forecast["from_run"] == run_id and forecast["concurrency"] == 4
    assert forecast["calls"] == answer["cases"]
    assert forecast["input_tokens"] > 0 and forecast["wall_s"] is not None


def test_detectable_counts_the_suite_s_real_cases(
    demo: tuple[Path, str, str], run_assay: RunAssay
) -> None:
    folder, _, _ = demo
    done = run_assay("plan", "detectable", "--suite", "demo/v1.yaml", "-f", "markdown", cwd=folder)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("## assay plan: what this many cases can detect")
    assert "over 22 cases" in done.stdout


@pytest.mark.parametrize("name", ["plan.json", "plan.md", "plan.txt"])
def test_the_plan_written_to_a_file_is_replaced_on_the_next_run(
    name: str, run_assay: RunAssay, tmp_path: Path
) -> None:
    for drop in ("0.1", "0.05"):
        done = run_assay(
            "plan", "drop", "--drop", drop, "--discordance", "0.1", "-o", name, cwd=tmp_path
        )
        assert done.returncode == 0, done.stderr
    written = (tmp_path / name).read_text(encoding="utf-8")
    assert f"{cases_for_drop(0.1, 0.05):,}" in written or str(cases_for_drop(0.1, 0.05)) in written
    (tmp_path / "notes.md").write_text("mine\n", encoding="utf-8")
    refused = run_assay("plan", "rate", "--width", "0.1", "-o", "notes.md", cwd=tmp_path)
    assert refused.returncode == 2 and "not an assay report" in refused.stderr
    assert (tmp_path / "notes.md").read_text(encoding="utf-8") == "mine\n"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["guess"], "unknown question; choose one of rate, drop"),
        (["rate"], "needs a half-width"),
        (["rate", "--width", "5"], "--width 5: must be between 0 and 1"),
        (["rate", "--width", "0.6"], "the half-width must be between 0 and 0.5"),
        (["drop", "--drop", "0.1", "--discordance", "2"], "--discordance 2: must be between"),
        (["detectable", "--cases", "1"], "--cases 1: must be at least 2"),
        (["drop", "--drop", "0.1", "--power", "80"], "--power 80: must be between 0 and 1"),
        (["detectable"], "give --cases N, --dataset FILE or --suite SUITE"),
        (["detectable", "--dataset", "missing.jsonl"], "missing.jsonl"),
        (["drop", "--drop", "0.1", "--pilot", "nope"], "no run store at"),
        (["rate", "--width", "0.1", "-f", "html"], "--format html"),
        (["noninferiority", "--margin", "0.1", "--trials", "2"], "needs the baseline's rate"),
        (["drop", "--drop", "0.1", "--trials", "2"], "needs the baseline's rate"),
        (
            ["drop", "--drop", "0.1", "--trials", "2", "--baseline-rate", "0.8"],
            "how the trials of one case agree",
        ),
        (["noninferiority", "--margin", "0.1", "--replications", "50"], "--replications 50"),
    ],
)
def test_bad_input_is_refused_with_exit_2(
    args: list[str], message: str, run_assay: RunAssay, tmp_path: Path
) -> None:
    store = f"sqlite:///{tmp_path / 'empty.db'}"
    done = run_assay("plan", *args, "--store", store, cwd=tmp_path)
    assert done.returncode == 2, done.stdout
    assert message in done.stderr and "Traceback" not in done.stderr


def test_an_unknown_pilot_run_is_named(demo: tuple[Path, str, str], run_assay: RunAssay) -> None:
    folder, store, _ = demo
    done = run_assay(
        "plan", "drop", "--drop", "0.1", "--pilot", "nope", "--store", store, cwd=folder
    )
    assert done.returncode == 2 and "nope" in done.stderr, done.stderr


def test_a_drop_over_trials_is_planned_from_the_pilot_s_design_effect(
    demo: tuple[Path, str, str], run_assay: RunAssay
) -> None:
    folder, store, run_id = demo
    done = run_assay(
        "plan", "drop", "--drop", "0.1", "--trials", "3", "--pilot", run_id, "--store", store,
        "--suite", "demo/v1.yaml", "-f", "json", cwd=folder,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    (answer,) = data["answers"]
    # the demo's trials always agree (ρ = 1): only the broken cases differ, as at one trial
    assert answer["trials"] == 3 and answer["cases"] == cases_for_drop(0.1, 0.0)
    assert "exact sign test over cases" in answer["method"]
    assert any("correlate with ρ = 1" in a for a in data["assumptions"])
    assert data["forecast"]["calls"] == answer["cases"] * 3
    text = run_assay(
        "plan", "drop", "--drop", "0.1", "--trials", "3", "--pilot", run_id, "--store", store,
        cwd=folder,
    )  # fmt: skip
    assert f"needs: {answer['cases']} cases × 3 trials" in text.stdout


def test_non_inferiority_over_trials_is_planned_by_simulating_compare_s_rule(
    demo: tuple[Path, str, str], run_assay: RunAssay
) -> None:
    folder, store, run_id = demo
    done = run_assay(
        "plan", "noninferiority", "--margin", "0.1", "--trials", "2", "--pilot", run_id,
        "--store", store, cwd=folder,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "cases × 2 trials" in done.stdout
    assert "simulated power of assay compare's rule" in done.stdout
    assert "(Monte Carlo s.e.)" in done.stdout
    # the demo's trials always agree (ρ = 1): a second trial adds nothing
    assert "more trials do not reduce the cases" in done.stdout


def test_the_seed_and_replications_of_a_simulated_plan_are_chosen_and_shown(
    run_assay: RunAssay, tmp_path: Path
) -> None:
    args = ["plan", "noninferiority", "--margin", "0.1", "--trials", "3", "--baseline-rate",
            "0.8", "--discordance", "0.1", "--replications", "200", "--seed", "5",
            "-f", "json"]  # fmt: skip
    done = run_assay(*args, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    (answer,) = json.loads(done.stdout)["answers"]
    assert "200 replications, seed 5" in answer["method"]
    assert answer["achieved_se"] == pytest.approx(
        (answer["achieved"] * (1 - answer["achieved"]) / 200) ** 0.5
    )
    again = run_assay(*args, cwd=tmp_path)
    assert json.loads(again.stdout) == json.loads(done.stdout)


def test_one_trial_non_inferiority_names_compare_s_rule(
    run_assay: RunAssay, tmp_path: Path
) -> None:
    done = run_assay(
        "plan", "noninferiority", "--margin", "0.1", "--baseline-rate", "0.5",
        "--discordance", "0", "-f", "markdown", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "| 21 cases |" in done.stdout and "Newcombe" in done.stdout
