"""The function and scripted targets, what a callable may return, and the registry."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import pytest

from assay.cases import Case
from assay.errors import AssayConfigError, InputFormatError
from assay.outcomes import Abstain, Answer, Error, Record
from assay.targets import Reply, TargetContext, as_reply, build_target
from assay.targets.function import FunctionTarget
from assay.targets.scripted import ScriptedTarget

CTX = TargetContext(run_id="r1")


def _run(target: Any, case: Case, ctx: TargetContext = CTX) -> Reply:
    return asyncio.run(target.run(case, ctx))


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (Answer(fact="a"), Answer(fact="a")),
        ({"kind": "abstain"}, Abstain()),
        ({"fact": "a", "text": "t"}, Answer(fact="a", text="t")),
        ('{"kind": "answer", "fact": "a"}', Answer(fact="a")),
        (Record(case_id="E1", outcome=Abstain()), Abstain()),
        (
            {"kind": "error", "class": "exception:X", "message": "m"},
            Error(error_class="exception:X", message="m"),
        ),
    ],
)
def test_as_reply_accepts_every_outcome_form(value: Any, expected: Any) -> None:
    assert as_reply(value).outcome == expected


@pytest.mark.parametrize("value", [42, {"kind": "answer"}, "not json", {"status": 1}])
def test_anything_else_is_a_parse_error_with_the_raw_value(value: Any) -> None:
    outcome = as_reply(value).outcome
    assert isinstance(outcome, Error) and outcome.error_class == "parse_error"
    assert outcome.raw


def test_sync_and_async_callables_with_and_without_context(case: Case) -> None:
    def plain(c: Case) -> dict[str, Any]:
        return {"fact": c.expected_fact}

    async def with_ctx(c: Case, ctx: TargetContext) -> Answer:
        return Answer(fact=f"{c.id}-{ctx.trial}")

    assert _run(FunctionTarget(plain), case).outcome == Answer(fact="return_window_30_days")
    reply = _run(FunctionTarget(with_ctx), case, TargetContext(run_id="r", trial=3))
    assert reply.outcome == Answer(fact="E1-3")


def test_function_target_imports_module_from_the_suite_directory(
    tmp_path: Path, case: Case
) -> None:
    (tmp_path / "my_sut_mod.py").write_text(
        "def ask(case):\n    return {'kind': 'abstain', 'reason': case.id}\n"
    )
    try:
        target = build_target({"type": "function", "callable": "my_sut_mod:ask"}, tmp_path)
        assert _run(target, case).outcome == Abstain(reason="E1")
        assert target.config() == {"type": "function", "callable": "my_sut_mod:ask"}
    finally:
        sys.modules.pop("my_sut_mod", None)


def test_function_target_import_errors_are_config_errors(tmp_path: Path) -> None:
    with pytest.raises(AssayConfigError, match="cannot import no_such_module_x"):
        build_target({"type": "function", "callable": "no_such_module_x:f"}, tmp_path)


def test_scripted_target_by_case_and_trial(case: Case) -> None:
    target = ScriptedTarget({"E1": [{"kind": "answer", "fact": "a"}, {"kind": "abstain"}]})
    assert _run(target, case, TargetContext("r", trial=1)).outcome == Answer(fact="a")
    assert _run(target, case, TargetContext("r", trial=2)).outcome == Abstain()
    assert _run(target, case, TargetContext("r", trial=5)).outcome == Abstain()  # last repeats


def test_scripted_failures_for_the_first_attempts_then_success(case: Case) -> None:
    target = ScriptedTarget(
        {
            "E1": {
                "kind": "answer",
                "fact": "a",
                "fail": "http_429",
                "fail_attempts": 1,
                "retry_after_s": 2,
            }
        }
    )
    first = _run(target, case, TargetContext("r", attempt=1))
    assert isinstance(first.outcome, Error) and first.outcome.error_class == "http_429"
    assert first.retry_after_s == 2
    assert _run(target, case, TargetContext("r", attempt=2)).outcome == Answer(fact="a")


def test_scripted_raise_and_unscripted_cases(case: Case) -> None:
    with pytest.raises(RuntimeError, match="boom"):
        _run(ScriptedTarget({"E1": {"fail": "raise", "message": "boom"}}), case)
    outcome = _run(ScriptedTarget({}), case).outcome
    assert isinstance(outcome, Error) and outcome.error_class == "not_scripted"
    assert _run(ScriptedTarget({}, default={"kind": "abstain"}), case).outcome == Abstain()


def test_a_scripted_error_outcome_keeps_its_message(case: Case) -> None:
    entry = {"kind": "error", "error_class": "exception:LookupError", "message": "lookup failed"}
    outcome = _run(ScriptedTarget({"E1": entry}), case).outcome
    assert outcome == Error(error_class="exception:LookupError", message="lookup failed")


def test_scripted_from_a_results_file(tmp_path: Path, case: Case) -> None:
    (tmp_path / "results.jsonl").write_text('{"id": "E1", "kind": "answer", "fact": "x"}\n')
    target = build_target({"type": "scripted", "results": "results.jsonl"}, tmp_path)
    assert _run(target, case).outcome == Answer(fact="x")


def test_unknown_type_suggests_the_closest() -> None:
    with pytest.raises(InputFormatError, match='did you mean "openai"'):
        build_target({"type": "opnai"})


def test_unknown_setting_is_named_with_a_suggestion() -> None:
    with pytest.raises(InputFormatError) as err:
        build_target({"type": "http", "url": "http://127.0.0.1:1/", "headerz": {}})
    assert 'unknown field "target.headerz"' in str(err.value)
    assert 'did you mean "headers"' in str(err.value)
