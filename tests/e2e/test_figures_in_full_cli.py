"""Figures as a user reads them: never cut off, never rounded into 0% or 100%, and Wilson
bounds at 0/n and n/n exactly 0 and 1."""

from __future__ import annotations

import json
import random
import subprocess
from collections.abc import Callable
from pathlib import Path

RunAssay = Callable[..., subprocess.CompletedProcess[str]]
CASE = {"slice": "s", "question": "q", "expected_behavior": "answer", "expected_fact": "f"}


def _files(
    tmp_path: Path, n: int, trials: int, passing: Callable[[int, int], bool]
) -> tuple[Path, Path]:
    dataset = tmp_path / "ds.jsonl"
    dataset.write_text(
        "".join(json.dumps({"id": f"c{i}", **CASE}) + "\n" for i in range(n)), encoding="utf-8"
    )
    results = tmp_path / "res.jsonl"
    results.write_text(
        "".join(
            json.dumps(
                {"id": f"c{i}", "trial": t, "kind": "answer", "fact": "f" if passing(i, t) else "g"}
            )
            + "\n"
            for i in range(n)
            for t in range(1, trials + 1)
        ),
        encoding="utf-8",
    )
    return dataset, results


def test_a_rate_that_is_not_0_or_1_never_reads_as_a_certainty(
    run_assay: RunAssay, tmp_path: Path
) -> None:
    dataset, results = _files(tmp_path, 2000, 1, lambda i, t: i > 0)
    for fmt in ("text", "markdown", "html"):
        done = run_assay("score", dataset, results, "-f", fmt)
        assert done.returncode == 0, done.stderr
        lines = [x for x in done.stdout.splitlines() if "1999/2000" in x and "99.95%" in x]
        assert lines, fmt
        assert not any("100.0%" in x for x in lines), fmt
        assert all("99.999%" in x for x in lines), fmt  # the upper bound too
    dataset, results = _files(tmp_path, 2000, 1, lambda i, t: i == 0)
    text = run_assay("score", dataset, results).stdout
    (line,) = [x for x in text.splitlines() if x.startswith("Task success")]
    assert "1/2000" in line and "0.1%" in line and "[0.001%, 0.3%]" in line


def test_wilson_bounds_at_all_and_none_are_exactly_one_and_zero(
    run_assay: RunAssay, tmp_path: Path
) -> None:
    dataset, results = _files(tmp_path, 10, 1, lambda i, t: True)
    report = tmp_path / "r.json"
    done = run_assay("score", dataset, results, "-f", "json", "--interval", "wilson", "-o", report)
    assert done.returncode == 0, done.stderr
    assert json.loads(report.read_text())["task_success"]["ci"][1] == 1.0
    gate = run_assay("gate", report, "--rule", "task_success.high>=1", "--interval", "wilson")
    assert gate.returncode == 0, gate.stdout + gate.stderr
    dataset, results = _files(tmp_path, 10, 1, lambda i, t: False)
    data = json.loads(
        run_assay("score", dataset, results, "-f", "json", "--interval", "wilson").stdout
    )
    assert data["task_success"]["ci"][0] == 0.0


def test_many_case_trials_print_every_fraction_in_full(run_assay: RunAssay, tmp_path: Path) -> None:
    rng = random.Random(3)
    _, results = _files(tmp_path, 617, 4, lambda i, t: rng.random() < 0.667)
    long_id = "case-" + "x" * 100
    rows = tmp_path / "ds.jsonl"
    rows.write_text(rows.read_text().replace('"c0"', f'"{long_id}"', 1), encoding="utf-8")
    results.write_text(results.read_text().replace('"c0"', f'"{long_id}"'), encoding="utf-8")
    data = json.loads(
        run_assay("score", rows, results, "-f", "json", "--interval", "wilson").stdout
    )
    passed = data["task_success"]["numerator"]
    for fmt in ("text", "markdown", "html"):
        out = run_assay("score", rows, results, "--interval", "wilson", "-f", fmt).stdout
        assert f"{passed}/2468" in out and "2468/2468" in out and "100.0%" in out, fmt
        assert "…" not in out.replace("(sha256:", "").split("\n", 1)[1] or fmt != "text", fmt
        assert "x" * 40 in out.replace("\n", "").replace(" ", ""), fmt
