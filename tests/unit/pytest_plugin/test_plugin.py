"""`pytest --assay SUITE` on a sample project, through pytester."""

from __future__ import annotations

import json

import pytest

pytest_plugins = ("pytester",)

CASES = [
    {
        "id": "ok1",
        "slice": "s",
        "question": "pass",
        "expected_behavior": "answer",
        "expected_fact": "f",
    },
    {
        "id": "ok2",
        "slice": "s",
        "question": "pass",
        "expected_behavior": "answer",
        "expected_fact": "f",
    },
    {
        "id": "wrong",
        "slice": "s",
        "question": "fail",
        "expected_behavior": "answer",
        "expected_fact": "f",
    },
    {
        "id": "boom",
        "slice": "s",
        "question": "raise",
        "expected_behavior": "answer",
        "expected_fact": "f",
    },
    {
        "id": "vague",
        "slice": "s",
        "question": "text",
        "expected_behavior": "answer",
        "expected_fact": "f",
    },
]
APP = """
def answer(case):
    q = case["question"] if isinstance(case, dict) else case.question
    if q == "raise":
        raise RuntimeError("backend down")
    if q == "text":
        return {"kind": "answer", "text": "something without a fact"}
    return {"kind": "answer", "fact": "f" if q == "pass" else "g"}
"""


def _project(pytester: pytest.Pytester, cases: list[dict[str, object]], gates: str = "") -> None:
    pytester.makefile(".jsonl", cases="\n".join(json.dumps(c) for c in cases))
    pytester.makepyfile(sample_app=APP)
    pytester.makefile(
        ".yaml",
        suite=(
            "name: sample\ndataset: cases.jsonl\n"
            "target: {type: function, callable: 'sample_app:answer'}\n"
            "grader: structured\nretries: 0\n" + gates
        ),
    )


def _run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    store = f"sqlite:///{pytester.path / 'assay.db'}"
    return pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "--assay", "suite.yaml", "--assay-store", store, *args
    )


def test_one_item_per_case_with_errors_as_errors_and_ungraded_as_xfail(
    pytester: pytest.Pytester,
) -> None:
    _project(pytester, CASES)
    result = _run(pytester, "-rA", "--assay-report", "report.json")
    result.assert_outcomes(passed=2, failed=1, errors=1, xfailed=1)
    result.stdout.fnmatch_lines(
        [
            "*ERROR at setup of assay case boom*",
            "boom: error: exception:RuntimeError: backend down",
            "*FAILURES*",
            "wrong: failed: expected fact 'f'; answered 'g'",
            "*task success 2/5 · passed 2 + failed 1 + error 1 + missing 0 + ungraded 1 = 5*",
            "XFAIL *vague - vague: ungraded: *no fact key*",
        ]
    )
    report = json.loads((pytester.path / "report.json").read_text(encoding="utf-8"))
    assert report["total"] == 5
    assert (report["success"], report["errors"], report["ungraded"]) == (2, 1, 1)


def test_k_selects_cases_and_only_those_run(pytester: pytest.Pytester) -> None:
    _project(pytester, CASES)
    result = _run(pytester, "-k", "ok1 or wrong", "--assay-report", "report.json")
    result.assert_outcomes(passed=1, failed=1, deselected=3)
    report = json.loads((pytester.path / "report.json").read_text(encoding="utf-8"))
    assert report["total"] == 2  # the run covered the selected cases only


def test_x_stops_at_the_first_failure(pytester: pytest.Pytester) -> None:
    _project(pytester, CASES)
    result = _run(pytester, "-x")
    result.assert_outcomes(passed=2, failed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED


def test_a_failing_gate_fails_an_otherwise_green_session(pytester: pytest.Pytester) -> None:
    passing = [c for c in CASES if c["id"] in ("ok1", "ok2", "vague")]
    _project(pytester, passing, gates="gates: ['task_success>=0.9']\n")
    result = _run(pytester)
    result.assert_outcomes(passed=2, xfailed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*assay gates failed: suite.yaml*"])


def test_without_the_option_the_plugin_adds_nothing(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_plain="def test_it():\n    assert True\n")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    assert "= assay =" not in result.stdout.str()


def test_the_assay_run_fixture_returns_the_report(pytester: pytest.Pytester) -> None:
    _project(pytester, CASES)
    store = f"sqlite:///{pytester.path / 'assay.db'}"
    pytester.makepyfile(
        test_quality=f'''
def test_quality(assay_run):
    report = assay_run("suite.yaml", store="{store}")
    assert report.statuses.passed == 2
    assert report.errors == 1
    assert report.task_success.denominator == 5
'''
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)


def test_a_bad_suite_is_a_usage_error_naming_the_file(pytester: pytest.Pytester) -> None:
    pytester.makefile(".yaml", suite="name: x\ndataset: nowhere.jsonl\n")
    result = _run(pytester)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["ERROR: --assay suite.yaml: *invalid suite*", "*target is required*"]
    )
    assert "Traceback" not in result.stderr.str()
