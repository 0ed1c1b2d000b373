"""Prompt templates of the openai target: errors when the suite is loaded (key and line),
rendering with the case, its source sections, the fact keys and user variables, and the
prompt version in the target's configuration."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from assay.cases import Case, Dataset, SourceLibrary
from assay.errors import AssayConfigError, InputFormatError
from assay.load import load_suite
from assay.targets import build_target
from assay.targets.chat import SCHEMA_INSTRUCTION
from assay.targets.openai import OpenAITarget

BASE = {"type": "openai", "base_url": "http://127.0.0.1:9/v1", "model": "m"}


def _suite(tmp_path: Path, prompt: str) -> Path:
    path = tmp_path / "suite.yaml"
    path.write_text(
        "dataset: cases.jsonl\n"
        "target:\n"
        "  type: openai\n"
        "  base_url: http://127.0.0.1:9/v1\n"
        "  model: m\n"
        "  prompt:\n" + prompt,
        encoding="utf-8",
    )
    return path


def _target(**settings: Any) -> OpenAITarget:
    target = build_target({**BASE, **settings})
    assert isinstance(target, OpenAITarget)
    return target


def _case(**fields: Any) -> Case:
    base: dict[str, Any] = {
        "id": "E1",
        "slice": "s",
        "question": "How long?",
        "expected_behavior": "answer",
        "expected_fact": "thirty",
    }
    return Case(**{**base, **fields})


def test_an_unknown_variable_is_named_with_the_suite_file_and_line(tmp_path: Path) -> None:
    path = _suite(
        tmp_path,
        "    system: Be brief.\n    user: |\n      Q: {{ question }}\n      {{ contxt }}\n",
    )
    suite = load_suite(path)
    with pytest.raises(InputFormatError) as err:
        suite.build_target()
    text = str(err.value)
    assert f"{path}:8" in text
    assert "unknown template variable 'contxt' at line 2 of the template" in text
    assert 'did you mean "context"' in text


def test_a_syntax_error_is_named_with_its_template_line(tmp_path: Path) -> None:
    path = _suite(tmp_path, "    user: |\n      fine\n      {% if question %}no end\n")
    with pytest.raises(InputFormatError) as err:
        load_suite(path).build_target()
    assert f"{path}:7" in str(err.value)
    assert "template syntax error at line" in str(err.value)


def test_a_missing_attribute_stops_the_run_before_it_starts_naming_the_case() -> None:
    target = _target(prompt={"user": "{{ case.metadata.product }}"})
    with pytest.raises(AssayConfigError, match="case E1: user template"):
        target.use_dataset(Dataset("d", (_case(),)))


def test_the_prompt_gets_context_facts_and_vars() -> None:
    sources = SourceLibrary({"r1": {"window": "Returns: 30 days.", "defects": "7 days."}})
    other = _case(id="E2", expected_fact="seven", source_revision="r1")
    dataset = Dataset("d", (_case(source_revision="r1"), other), sources=sources)
    target = _target(
        prompt={
            "system": "You work for {{ vars.shop }}. Facts: {{ facts | join(', ') }}",
            "user": "{{ context }}\n\nQ: {{ question }} ({{ case.id }}, {{ sections | length }})",
        },
        vars={"shop": "ACME"},
    )
    target.use_dataset(dataset)
    messages = target.body(dataset.cases[0])["messages"]
    assert messages[0] == {"role": "system", "content": "You work for ACME. Facts: seven, thirty"}
    assert messages[1]["content"] == (
        "[window]\nReturns: 30 days.\n\n[defects]\n7 days.\n\nQ: How long? (E1, 2)"
    )


def test_a_system_only_prompt_is_followed_by_the_question() -> None:
    target = _target(prompt={"system": "S"})
    assert target.body(_case())["messages"] == [
        {"role": "system", "content": "S"},
        {"role": "user", "content": "How long?"},
    ]


def test_the_schema_goes_into_the_prompt_only_when_the_server_is_not_given_it() -> None:
    strict = _target(prompt={"system": "S"})
    assert SCHEMA_INSTRUCTION not in str(strict.body(_case()))
    loose = _target(prompt={"system": "S"}, response_format="none")
    assert loose.body(_case())["messages"][0]["content"] == f"S\n\n{SCHEMA_INSTRUCTION}"
    text = _target(prompt={"system": "S"}, output="text", response_format="none")
    assert SCHEMA_INSTRUCTION not in str(text.body(_case()))


def test_the_prompt_version_changes_with_the_template_and_the_vars() -> None:
    one = _target(prompt={"system": "A {{ vars.x }}"}, vars={"x": 1}).config()["prompt_version"]
    two = _target(prompt={"system": "A {{ vars.x }}"}, vars={"x": 2}).config()["prompt_version"]
    three = _target(prompt={"system": "B {{ vars.x }}"}, vars={"x": 1}).config()["prompt_version"]
    assert len({one, two, three}) == 3 and one.startswith("sha256:")


def test_prompt_and_system_prompt_together_are_refused() -> None:
    with pytest.raises(AssayConfigError, match="either prompt or system_prompt"):
        _target(prompt={"system": "S"}, system_prompt="T")


def test_messages_and_system_together_are_refused() -> None:
    with pytest.raises(InputFormatError, match="either messages or system/user"):
        _target(prompt={"system": "S", "messages": [{"role": "user", "content": "x"}]})


def test_a_bad_abstain_pattern_is_refused() -> None:
    with pytest.raises(InputFormatError, match="not a regular expression"):
        _target(output="text", abstain_patterns=["(unclosed"])
