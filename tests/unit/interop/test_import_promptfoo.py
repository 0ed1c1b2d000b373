"""promptfoo exports, real and generated: one run per prompt × provider column, repeats as
trials, assertions kept as checks."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from tests.interop_logs import DATA, promptfoo_columns, promptfoo_export, promptfoo_row
from tests.unit.interop.test_import_inspect import statuses

from assay.errors import AssayInputError
from assay.interop import ImportedRun, import_promptfoo

SAMPLE = DATA / "promptfoo" / "sample-export.json"
OFFLINE = DATA / "promptfoo" / "offline-matrix.json"


def by_model(runs: list[ImportedRun]) -> dict[str, ImportedRun]:
    return {str(r.target["model"]): r for r in runs}


def assert_matches_the_file(path: Path, runs: list[ImportedRun]) -> None:
    """Each run's case-trials are its promptfoo column's rows, no more; its passes and
    errors are the column's own."""
    columns = promptfoo_columns(path)
    found = {f"[{r.extra['provider']}] {r.extra['prompt']}": r for r in runs}
    assert set(found) == set(columns)
    for head, counts in columns.items():
        run = found[head]
        assert len(run.dataset) * run.trials == counts["rows"], head
        assert statuses(run) == Counter(
            passed=counts["passed"], failed=counts["failed"], error=counts["errors"]
        ), head


def write(tmp_path: Path, rows: list[dict[str, object]]) -> Path:
    path = tmp_path / "export.json"
    path.write_text(json.dumps(promptfoo_export(rows)), encoding="utf-8")
    return path


def test_the_real_export_imports_one_run_per_provider_over_the_same_cases() -> None:
    runs = by_model(import_promptfoo(SAMPLE))
    assert set(runs) == {"openai:gpt-5", "openai:gpt-5-mini"}
    big, mini = runs["openai:gpt-5"], runs["openai:gpt-5-mini"]
    assert big.dataset.version == mini.dataset.version
    assert [c.id for c in big.dataset.cases] == ["test-1", "test-2"]
    # promptfoo's stats: 0 successes, 4 failures, 0 errors; assay agrees row for row
    assert statuses(big) == statuses(mini) == {"failed": 2}
    assert big.source.reported.startswith("promptfoo reported 0 passed, 2 failed, 0 errors")
    assert big.source.tool_version == "0.118.10"


def test_assertion_results_are_kept_as_checks() -> None:
    mini = by_model(import_promptfoo(SAMPLE))["openai:gpt-5-mini"]
    record = next(r for r in mini.records if r.case_id == "test-1")
    checks = {c["name"]: c["passed"] for c in record.extra["checks"]}
    assert checks == {"cost": True, "latency": False, "contains": True, "llm-rubric": True}
    assert record.usage is not None and record.usage.input_tokens == 37
    # every failure of this export is a latency (or cost) assertion, and the notes say so
    assert mini.source.notes == ("failing assertions: latency 2",)


def test_errors_grader_failures_repeats_and_missing_rows(tmp_path: Path) -> None:
    broken_judge = [
        {
            "pass": False,
            "score": 0,
            "reason": "Error: judge timed out",
            "assertion": {"type": "llm-rubric", "value": "polite"},
        }
    ]
    rows = [
        promptfoo_row(0, "a"),
        promptfoo_row(0, "a", success=False),  # a repeat: trial 2
        promptfoo_row(1, "a", error="HTTP 500 from provider"),
        promptfoo_row(1, "a", success=False, components=broken_judge),
        promptfoo_row(2, "a"),  # trial 2 of test 3 is absent: missing
        promptfoo_row(0, "b"),
    ]
    path = tmp_path / "export.json"
    path.write_text(json.dumps(promptfoo_export(rows)), encoding="utf-8")
    runs = by_model(import_promptfoo(path))
    a = runs["a"]
    assert a.trials == 2
    assert statuses(a) == {"passed": 2, "failed": 1, "error": 1, "ungraded": 1, "missing": 1}
    assert "1 errors" in a.source.reported
    assert any("missing" in n for n in a.source.notes)
    b = runs["b"]
    assert statuses(b) == Counter({"passed": 1, "missing": 5})


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{", "invalid JSON"),
        ('{"x": 1}', "field 'results' is missing"),
        ('{"results": {"results": 3}}', "not a list"),
        ('{"results": {"results": []}}', "no result rows"),
    ],
)
def test_bad_exports_name_the_file(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "export.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(AssayInputError, match=message):
        import_promptfoo(path)


def test_an_older_results_version_without_prompt_ids_or_failure_reasons(tmp_path: Path) -> None:
    def row(test: int, success: bool, error: str | None = None) -> dict[str, object]:
        return {
            "testIdx": test,
            "promptIdx": 0,
            "prompt": {"raw": f"question {test}", "display": "Q"},
            "provider": "openai:gpt-4",  # a plain string in version 2
            "vars": {"q": test},
            "response": {"error": error} if error else {"output": "an answer"},
            "success": success,
            "score": 1.0 if success else 0.0,
            "error": error,
            "gradingResult": None if error else {"pass": success, "componentResults": []},
        }

    export = {
        "results": {
            "version": 2,
            "results": [row(0, True), row(1, False), row(2, False, "ECONNRESET")],
            "stats": {},
        }
    }
    path = tmp_path / "v2.json"
    path.write_text(json.dumps(export), encoding="utf-8")
    (run,) = import_promptfoo(path)
    assert run.target["model"] == "openai:gpt-4"
    assert run.source.tool_version is None
    assert statuses(run) == {"passed": 1, "failed": 1, "error": 1}
    assert run.source.reported.startswith("promptfoo reported 1 passed, 2 failed (errors included")


def test_checks_are_named_by_metric_or_type_and_repeats_are_numbered(tmp_path: Path) -> None:
    components = [
        {"pass": True, "score": 1, "reason": "ok", "assertion": {"type": "contains", "value": "a"}},
        {
            "pass": False,
            "score": 0,
            "reason": "no",
            "assertion": {"type": "contains", "value": "b"},
        },
        {
            "pass": True,
            "score": 1,
            "reason": "ok",
            "assertion": {"type": "llm-rubric", "value": "polite", "metric": "tone"},
        },
    ]
    path = tmp_path / "export.json"
    rows = [promptfoo_row(0, "a", success=False, components=components)]
    path.write_text(json.dumps(promptfoo_export(rows)), encoding="utf-8")
    (run,) = import_promptfoo(path)
    checks = run.records[0].extra["checks"]
    assert [(c["name"], c["type"], c["passed"]) for c in checks] == [
        ("contains", "contains", True),
        ("contains_2", "contains", False),
        ("tone", "llm-rubric", True),
    ]
    assert all(c["graded"] for c in checks)


def test_a_file_of_the_current_release_imports_one_run_per_column() -> None:
    runs = import_promptfoo(OFFLINE)
    assert_matches_the_file(OFFLINE, runs)
    assert {r.variant for r in runs} == {
        "[echo] short",
        "[echo] long",
        "[fixed] short",
        "[fixed] long",
        "[flaky] long",
    }
    # 4 tests, each run twice (--repeat 2: promptfoo numbers the repeat testIdx 1, 3, 5, 7)
    assert {len(r.dataset) for r in runs} == {4} and {r.trials for r in runs} == {2}
    assert [c.rationale for c in runs[0].dataset.cases] == [
        "fruit",
        "colour",
        "rivers",
        "short answer",
    ]
    flaky = next(r for r in runs if r.variant == "[flaky] long")
    assert flaky.target == {"type": "promptfoo", "model": "flaky", "prompt": "long"}
    assert flaky.overrides == {"provider": "flaky", "prompt": "long"}
    assert statuses(flaky)["error"] == 2  # the rivers test, both repeats
    assert flaky.source.reported.startswith("promptfoo reported 2 passed, 4 failed, 2 errors")
    assert flaky.source.tool_version == "0.123.1"


def test_each_provider_with_its_own_prompt_has_no_phantom_cases(tmp_path: Path) -> None:
    # promptfoo numbers promptIdx per prompt × provider column: a's rows are column 0 with
    # prompt p1, b's column 1 with prompt p2; each test ran once in each column
    rows = [promptfoo_row(t, "a", success=t < 9) for t in range(12)]
    rows += [
        promptfoo_row(t, "b", success=t < 5, prompt="p2", column=1, error="HTTP 500")
        if t > 9
        else promptfoo_row(t, "b", success=t < 5, prompt="p2", column=1)
        for t in range(12)
    ]
    runs = by_model(import_promptfoo(write(tmp_path, rows)))
    a, b = runs["a"], runs["b"]
    assert len(a.dataset) == 12 and a.trials == 1
    assert statuses(a) == {"passed": 9, "failed": 3}  # 9/12, not 9/24 with 12 missing
    assert statuses(b) == {"passed": 5, "failed": 5, "error": 2}
    assert (a.variant, b.variant) == ("a", "b")
    assert b.target == {"type": "promptfoo", "model": "b", "prompt": "p2"}
    assert not any("missing" in note for note in a.source.notes + b.source.notes)


def test_repeats_numbered_apart_by_testidx_are_trials_of_one_case(tmp_path: Path) -> None:
    # promptfoo --repeat 2 gives the second run of test t the testIdx after the first's
    rows = [
        promptfoo_row(t, "a", success=r == 0, test_idx=2 * t + r) for t in range(3) for r in (0, 1)
    ]
    (run,) = import_promptfoo(write(tmp_path, rows))
    assert [c.id for c in run.dataset.cases] == ["test-1", "test-2", "test-3"]
    assert run.trials == 2
    assert statuses(run) == {"passed": 3, "failed": 3}
    assert sorted((r.case_id, r.trial, r.outcome.kind) for r in run.records)[:2] == [
        ("test-1", 1, "answer"),
        ("test-1", 2, "answer"),
    ]
    first = {(j.case_id, j.trial): j.status for j in run.judgments}
    assert first[("test-1", 1)] == "passed" and first[("test-1", 2)] == "failed"


def test_one_provider_with_two_prompts_is_two_variants(tmp_path: Path) -> None:
    rows = [promptfoo_row(t, "a") for t in range(2)]
    rows += [promptfoo_row(t, "a", success=False, prompt="terse", column=1) for t in range(2)]
    runs = import_promptfoo(write(tmp_path, rows))
    assert [r.variant for r in runs] == ["[a] Q: {{q}}", "[a] terse"]
    assert [dict(statuses(r)) for r in runs] == [{"passed": 2}, {"failed": 2}]
    # rendered differently by each prompt, a case's question is its vars
    assert runs[0].dataset == runs[1].dataset
    assert runs[0].dataset.cases[0].question == '{"q": "question 0"}'
    assert runs[0].dataset.cases[0].slice == "promptfoo"


def test_one_provider_listed_twice_is_two_variants(tmp_path: Path) -> None:
    rows = [promptfoo_row(0, "a"), promptfoo_row(0, "a", success=False, column=1)]
    runs = import_promptfoo(write(tmp_path, rows))
    assert [r.variant for r in runs] == ["[a] Q: {{q}}", "[a] Q: {{q}} #2"]
    assert [r.trials for r in runs] == [1, 1]
