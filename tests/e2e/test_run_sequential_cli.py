"""``assay run --until-decided``: the run stops once its gates are decided, and every report
format (and ``assay report`` later) says what was decided, on which cases, and which cases
were never drawn."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

from tests.inprocess import run_cli

CASES = 300


def _suite(tmp_path: Path, gates: str, failing_every: int = 20) -> Path:
    rows = [
        {
            "id": f"C{i:03d}",
            "slice": "s",
            "question": f"q{i}",
            "expected_behavior": "answer",
            "expected_fact": "f",
        }
        for i in range(CASES)
    ]
    (tmp_path / "cases.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    wrong = ", ".join(
        f"C{i:03d}: {{kind: answer, fact: g}}" for i in range(CASES) if i % failing_every == 1
    )
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        "dataset: cases.jsonl\n"
        f"target: {{type: scripted, default: {{kind: answer, fact: f}}, outcomes: {{{wrong}}}}}\n"
        f"trace: false\ngates:\n{gates}"
    )
    return suite


def test_a_decided_run_stops_and_every_format_says_so(tmp_path: Path) -> None:
    suite = _suite(tmp_path, "  - task_success>=0.7\n")
    store = f"sqlite:///{tmp_path / 'runs.db'}"
    done = run_cli(
        "run", suite, "--until-decided", "--seed", "9", "--store", store, "-f", "json",
        cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    s = report["sequential"]
    assert s["stopped_early"] and s["verdict"] == "pass" and s["seed"] == 9
    assert s["drawn"] < CASES and len(s["not_drawn"]) == CASES - s["drawn"]
    assert report["total"] == s["drawn"] and report["missing"] == 0
    assert "PASS  task_success>=0.7" in done.stderr and "decided after" in done.stderr
    text = run_cli("report", "latest", "--store", store, cwd=tmp_path).stdout
    assert f"of {CASES} cases: PASS" in text
    assert "The probability that this verdict is wrong is at most 5%" in text
    assert f"a seeded random sample of {s['drawn']} of {CASES}" in text
    assert f"Cases not drawn: {CASES - s['drawn']}" in text
    markdown = run_cli("report", "latest", "--store", store, "-f", "markdown", cwd=tmp_path)
    assert "not missing: they were not drawn" in markdown.stdout
    html = run_cli("report", "latest", "--store", store, "-f", "html", cwd=tmp_path).stdout
    assert 'id="sequential"' in html and "never run, not missing" in html
    again = json.loads(run_cli("report", "latest", "--store", store, "-f", "json").stdout)
    assert again["sequential"] == s and again["task_success"] == report["task_success"]
    junit = run_cli("report", "latest", "--store", store, "-f", "junit", cwd=tmp_path).stdout
    root = ET.fromstring(junit)
    skipped = root.findall(".//testcase/skipped")
    assert len(skipped) == CASES - s["drawn"]
    props = {p.get("name"): p.get("value") for p in root.iter("property")}
    assert props["sequential.verdict"] == "pass"
    gate = run_cli("gate", "latest", "--store", store, "--rule", "errors==0", cwd=tmp_path)
    assert gate.returncode == 1 and "is not sequential" in gate.stdout + gate.stderr


def test_a_decided_fail_exits_1(tmp_path: Path) -> None:
    suite = _suite(tmp_path, "  - {rule: 'task_success>=0.9', sequential: true}\n", 2)
    store = f"sqlite:///{tmp_path / 'runs.db'}"
    done = run_cli("run", suite, "--seed", "1", "--store", store, cwd=tmp_path)
    assert done.returncode == 1
    assert "FAIL  task_success>=0.9" in done.stderr and "lies below 0.9" in done.stderr
    assert ": FAIL. The probability" in done.stdout


def test_a_sequential_gate_on_a_figure_no_sample_decides_is_refused(tmp_path: Path) -> None:
    suite = _suite(tmp_path, "  - {rule: 'errors==0', sequential: true}\n")
    done = run_cli("run", suite, "--store", f"sqlite:///{tmp_path / 'r.db'}", cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    assert "suite.yaml:" in done.stderr and "gates[0]" in done.stderr
    assert "cannot be decided on a sample" in done.stderr
    assert "Traceback" not in done.stderr


def test_until_decided_without_a_rate_gate_is_refused(tmp_path: Path) -> None:
    suite = _suite(tmp_path, "  - errors==0\n")
    done = run_cli(
        "run", suite, "--until-decided", "--store", f"sqlite:///{tmp_path / 'r.db'}",
        cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 2 and "no gate on a case rate" in done.stderr
    assert not (tmp_path / "r.db").exists() or "Traceback" not in done.stderr


def test_not_worse_than_a_stored_run_gates_the_run(tmp_path: Path) -> None:
    store = f"sqlite:///{tmp_path / 'runs.db'}"
    weak = _suite(tmp_path, "  - task_success>=0.1\n", failing_every=2)
    base = run_cli("run", weak, "--store", store, "--name", "base", cwd=tmp_path)
    assert base.returncode == 0, base.stderr
    strong = _suite(tmp_path, "  - task_success>=0.1\n")
    done = run_cli(
        "run", strong, "--until-decided", "--not-worse-than", "base", "--seed", "3",
        "--store", store, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "PASS  not worse than " in done.stderr and "lies above 0" in done.stderr
    assert "run minus baseline = +" in done.stdout
    alone = run_cli("run", strong, "--not-worse-than", "base", "--store", store, cwd=tmp_path)
    assert alone.returncode == 2 and "give --until-decided" in alone.stderr
