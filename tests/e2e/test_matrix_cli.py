"""Matrix runs through the real CLI: assay run with variants and --set, assay matrix in
every format, gates on a variant, bad input."""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

RunAssay = Callable[..., subprocess.CompletedProcess[str]]
WRONG = "{kind: answer, fact: wrong}"


def _suite(tmp_path: Path) -> Path:
    lines = [
        {
            "id": f"c{i}",
            "slice": "even" if i % 2 == 0 else "odd",
            "question": f"q{i}",
            "expected_behavior": "answer",
            "expected_fact": "f",
        }
        for i in range(1, 9)
    ]
    (tmp_path / "cases.jsonl").write_text(
        "".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8"
    )
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        f"""dataset: cases.jsonl
trace: false
target:
  type: scripted
  default: {{kind: answer, fact: f}}
variants:
  baseline:
    target:
      outcomes: {{c1: {WRONG}, c2: {WRONG}, c3: {WRONG}}}
  candidate: {{}}
""",
        encoding="utf-8",
    )
    return suite


def _matrix_id(done: subprocess.CompletedProcess[str]) -> str:
    found = re.search(r"^matrix (mx-\S+) \((\w+)\)", done.stdout + done.stderr, re.MULTILINE)
    assert found is not None, done.stdout + done.stderr
    return found.group(1)


def test_a_matrix_run_and_its_report_in_every_format(run_assay: RunAssay, tmp_path: Path) -> None:
    store = f"sqlite:///{tmp_path / 'runs.db'}"
    done = run_assay("run", _suite(tmp_path), "--store", store, "--set", "target.delay_s=0,0.001")
    assert done.returncode == 0, done.stderr
    assert "4 variants, one run each" in done.stdout
    matrix_id = _matrix_id(done)

    shown = run_assay("matrix", matrix_id, "--store", store, "-f", "json")
    assert shown.returncode == 0, shown.stderr
    data = json.loads(shown.stdout)
    assert data["matrix_id"] == matrix_id
    names = [v["name"] for v in data["variants"]]
    assert names == [
        "baseline/delay_s=0",
        "baseline/delay_s=0.001",
        "candidate/delay_s=0",
        "candidate/delay_s=0.001",
    ]
    first = data["variants"][0]
    assert {"name", "run_id", "overrides", "task_success", "answer_coverage"} <= set(first)
    assert first["overrides"]["target.delay_s"] == 0
    assert first["task_success"]["denominator_name"] == "cases in the dataset"
    assert len(data["pairs"]) == 6
    pair = data["pairs"][1]  # baseline/0 against candidate/0
    assert (pair["a"], pair["b"]) == ("baseline/delay_s=0", "candidate/delay_s=0")
    assert (pair["newly_fixed"], pair["newly_broken"]) == (3, 0)
    assert pair["mcnemar"]["p_value"] == 0.25  # 2 · (1/2)^3
    assert {"p_value", "p_holm"} <= set(pair["mcnemar"]) and "delta" in pair

    markdown = run_assay("matrix", matrix_id[:10], "--store", store, "-f", "markdown").stdout
    assert markdown.startswith(f"## assay matrix: {matrix_id}")
    assert "p (Holm)" in markdown and "Holm's step-down adjustment across all 6 pairs" in markdown
    html = run_assay("matrix", matrix_id, "--store", store, "-f", "html").stdout
    assert 'id="only-disagree"' in html and 'data-disagree="1"' in html
    out = tmp_path / "matrix.html"
    written = run_assay("matrix", matrix_id, "--store", store, "-f", "html", "-o", out)
    assert written.returncode == 0 and out.read_text(encoding="utf-8") == html


def test_gates_on_a_variant(run_assay: RunAssay, tmp_path: Path) -> None:
    store = f"sqlite:///{tmp_path / 'runs.db'}"
    matrix_id = _matrix_id(run_assay("run", _suite(tmp_path), "--store", store))
    ok = run_assay(
        "gate", matrix_id, "--variant", "candidate", "--rule", "task_success>=0.9", "--store", store
    )
    assert ok.returncode == 0, ok.stdout + ok.stderr
    low = run_assay(
        "gate", matrix_id, "--variant", "baseline", "--rule", "task_success>=0.9", "--store", store
    )
    assert low.returncode == 1 and "task_success" in low.stdout
    unknown = run_assay(
        "gate", matrix_id, "--variant", "candidat", "--rule", "errors==0", "--store", store
    )
    assert unknown.returncode == 2 and 'did you mean "candidate"' in unknown.stderr
    assert "Traceback" not in unknown.stderr

    best = run_assay("gate", matrix_id, "--best-not-worse-than", "baseline", "--store", store)
    assert best.returncode == 0, best.stdout + best.stderr
    assert best.stdout.startswith(
        "PASS best variant not worse than baseline: candidate 8/8 = 100.0% vs 5/8 = 62.5%"
    )
    worse = run_assay("gate", matrix_id, "--best-not-worse-than", "candidate", "--store", store)
    assert worse.returncode == 1
    assert worse.stdout.startswith("FAIL best variant not worse than candidate: baseline 5/8")
    both = run_assay(
        "gate", matrix_id, "--best-not-worse-than", "baseline", "-r", "errors==0", "--store", store
    )
    assert both.returncode == 2 and "a check of its own" in both.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--set", "dataset=other.jsonl"), "target.* or grader settings only"),
        (("--set", "target.type=nope"), "variant baseline/type=nope: target.type"),
        (("-f", "junit"), "--format junit"),
    ],
)
def test_bad_matrix_input_exits_2_without_a_traceback(
    run_assay: RunAssay, tmp_path: Path, args: tuple[str, ...], message: str
) -> None:
    store = f"sqlite:///{tmp_path / 'runs.db'}"
    done = run_assay("run", _suite(tmp_path), "--store", store, *args)
    assert done.returncode == 2, done.stdout + done.stderr
    assert message in done.stderr and "Traceback" not in done.stderr


def test_an_unknown_matrix_is_named(run_assay: RunAssay, tmp_path: Path) -> None:
    from assay.store import open_store

    store = f"sqlite:///{tmp_path / 'runs.db'}"
    open_store(store).close()  # an existing, empty store
    done = run_assay("matrix", "mx-nope", "--store", store)
    assert done.returncode == 2 and "no matrix 'mx-nope'" in done.stderr
    absent = run_assay("matrix", "mx-nope", "--store", f"sqlite:///{tmp_path / 'typo.db'}")
    assert absent.returncode == 2 and "no run store at" in absent.stderr
    assert not (tmp_path / "typo.db").exists()


def test_resume_finishes_a_half_finished_matrix_from_the_cli(
    run_assay: RunAssay, tmp_path: Path
) -> None:
    import sqlite3

    db = tmp_path / "runs.db"
    store = f"sqlite:///{db}"
    matrix_id = _matrix_id(run_assay("run", _suite(tmp_path), "--store", store))
    first = json.loads(run_assay("matrix", matrix_id, "--store", store, "-f", "json").stdout)
    candidate = first["variants"][1]["run_id"]
    with sqlite3.connect(db) as conn:  # as if stopped half-way
        for table in ("records", "judgments"):
            conn.execute(
                f"DELETE FROM {table} WHERE run_id = ? AND case_id IN ('c5', 'c6')",
                (candidate,),
            )
        conn.execute("UPDATE runs SET status = 'interrupted' WHERE id = ?", (candidate,))
    half = json.loads(run_assay("matrix", matrix_id, "--store", store, "-f", "json").stdout)
    assert half["variants"][1]["statuses"]["missing"] == 2

    done = run_assay("run", "--resume", matrix_id, "--store", store, "-f", "json")
    assert done.returncode == 0, done.stderr
    assert f"matrix {matrix_id} (completed)" in done.stderr
    resumed = json.loads(done.stdout)
    assert [v["run_id"] for v in resumed["variants"]] == [v["run_id"] for v in first["variants"]]
    assert resumed["variants"][1]["statuses"] == first["variants"][1]["statuses"]
    assert resumed["variants"][1]["status"] == "completed"


def test_the_suites_gates_are_checked_on_every_variant(run_assay: RunAssay, tmp_path: Path) -> None:
    suite = _suite(tmp_path)
    suite.write_text(
        suite.read_text(encoding="utf-8") + "gates: [task_success>=0.9]\n", encoding="utf-8"
    )
    done = run_assay("run", suite, "--store", f"sqlite:///{tmp_path / 'runs.db'}")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "gates for variant baseline:" in done.stderr
    assert "gates for variant candidate:" in done.stderr
    assert "matrix mx-" in done.stdout  # the matrix ran and was reported before the verdict
