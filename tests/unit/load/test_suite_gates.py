"""A suite's ``gates:`` are checked when the suite loads: every bad rule named with its
file, line and field, in the one gate language ``assay gate`` and ``compare --gate`` use."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.errors import InputFormatError
from assay.load import load_suite


def _suite(folder: Path, gates: str) -> Path:
    (folder / "cases.jsonl").write_text(
        '{"id": "C1", "question": "q", "expected_behavior": "answer", "expected_fact": "f"}\n'
    )
    path = folder / "suite.yaml"
    path.write_text(f"dataset: cases.jsonl\ntarget: {{type: scripted}}\n{gates}")
    return path


def test_bad_rules_are_refused_with_file_line_and_field(tmp_path: Path) -> None:
    path = _suite(tmp_path, "gates:\n  - 'task_sucess >= 0.8'\n  - 42\n  - task_success>=80\n")
    with pytest.raises(InputFormatError) as err:
        load_suite(path)
    problems = err.value.problems
    assert [(p.field, p.location.line if p.location else None) for p in problems] == [
        ("gates[0]", 4),
        ("gates[1]", 5),
        ("gates[2]", 6),
    ]
    text = str(err.value)
    assert f"{path}:4: gates[0]: gate rule 'task_sucess >= 0.8': unknown field" in text
    assert 'did you mean "task_success"' in text
    assert f"{path}:5: gates[1]: 42 is not a rule" in text
    assert f"{path}:6: gates[2]: gate rule 'task_success>=80'" in text
    assert "did you mean 'task_success>=0.80' (or 80%)?" in text


def test_gates_that_are_not_a_list_are_refused(tmp_path: Path) -> None:
    with pytest.raises(InputFormatError, match=r"suite.yaml:3: gates must be a list of rules"):
        load_suite(_suite(tmp_path, "gates: {task_success: 0.8}\n"))


def test_good_rules_load(tmp_path: Path) -> None:
    suite = load_suite(
        _suite(tmp_path, "gates: ['task_success>=0.8', 'errors==0', 'cost_usd<=5']\n")
    )
    assert suite.settings.gates == ["task_success>=0.8", "errors==0", "cost_usd<=5"]


def test_a_sequential_gate_is_a_mapping_checked_when_the_suite_loads(tmp_path: Path) -> None:
    good = _suite(
        tmp_path,
        "gates:\n  - {rule: 'task_success>=0.8', sequential: true}\n"
        "  - {rule: 'slice[s].task_success<0.3', sequential: true}\n  - errors==0\n",
    )
    assert load_suite(good).settings.gates[0] == {"rule": "task_success>=0.8", "sequential": True}
    bad = _suite(
        tmp_path,
        "gates:\n  - {rule: 'errors==0', sequential: true}\n"
        "  - {rule: 'task_success.low>=0.5', sequential: true}\n"
        "  - {rule: 'task_success>=0.5', sequentail: true}\n"
        "  - {sequential: true}\n"
        "  - {rule: 'task_sucess>=0.5'}\n",
    )
    with pytest.raises(InputFormatError) as err:
        load_suite(bad)
    lines = [(p.field, p.location.line if p.location else None) for p in err.value.problems]
    assert lines == [(f"gates[{i}]", 4 + i) for i in range(5)]
    text = str(err.value)
    assert "gates[0]: sequential gate 'errors==0': == cannot be decided on a sample" in text
    assert "gates[1]: sequential gate 'task_success.low>=0.5': only a case rate" in text
    assert "unknown key 'sequentail'" in text
    assert "gates[3]: a gate written as a mapping needs rule:" in text
    assert "gates[4]: gate rule 'task_sucess>=0.5': unknown field" in text


def test_a_suite_s_gate_rules_are_its_gates_parsed(tmp_path: Path) -> None:
    suite = load_suite(_suite(tmp_path, "gates: ['task_success>=0.8', 'errors==0']\n"))
    assert [(r.path, r.op, r.threshold) for r in suite.gate_rules()] == [
        ("task_success", ">=", 0.8),
        ("errors", "==", 0.0),
    ]
    assert load_suite(_suite(tmp_path, "")).gate_rules() == []
