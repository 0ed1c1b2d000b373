"""The hot paths that skip a validation give exactly what the validating path gives."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assay._controls import escape_controls
from assay.cases import Case, canonical_json, canonical_record
from assay.cases import _parse as case_parse
from assay.cases._canonical import canonical_text
from assay.cases._plain import PlainCase, plain_canonical_text, plain_case
from assay.errors import Location
from assay.grading import Judgment
from assay.grading._structured import StructuredGrader
from assay.load import _json as json_lines_module
from assay.load._json import JsonLines
from assay.outcomes import Abstain, Answer, Error, Record, _parse

HERE = Location("r.jsonl", 3)
_CONTROL_CLASS = (
    "\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
)
_CONTROLS = re.compile(f"[{_CONTROL_CLASS}]")

values = st.one_of(st.none(), st.text(max_size=8), st.integers(), st.lists(st.text(max_size=3)))
keys = st.sampled_from(
    ["fact", "text", "citations", "reason", "class", "error_class", "message", "raw",
     "trial", "attempts", "latency_ms", "usage", "trace_id", "other"]
)  # fmt: skip
lines = st.builds(
    lambda case_id, kind, rest: {"id": case_id, "kind": kind, **rest},
    st.sampled_from(["C1", "", 3]),
    st.sampled_from(["answer", "abstain", "error", "other"]),
    st.dictionaries(keys, values, max_size=4),
)


def _validated(raw: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    with monkeypatch.context() as patched:
        patched.setattr(_parse, "_plain_record", lambda raw: None)
        return _parse.parse_result_line(raw, HERE)


def _same(fast: Any, slow: Any) -> None:
    if isinstance(slow, list):
        assert fast == slow
        return
    assert isinstance(fast, Record)
    assert fast == slow
    assert list(fast.__dict__) == list(slow.__dict__)
    assert fast.model_fields_set == slow.model_fields_set
    assert fast.outcome.model_fields_set == slow.outcome.model_fields_set
    assert list(fast.outcome.__dict__) == list(slow.outcome.__dict__)
    assert fast.model_dump_json() == slow.model_dump_json()


@settings(max_examples=400, deadline=None)
@given(lines)
def test_a_result_line_parses_as_validation_parses_it(raw: dict[str, Any]) -> None:
    with pytest.MonkeyPatch.context() as monkeypatch:
        _same(_parse.parse_result_line(raw, HERE), _validated(raw, monkeypatch))


@settings(max_examples=600, deadline=None)
@given(lines)
def test_a_plain_line_is_one_a_plain_record_is_made_of(raw: dict[str, Any]) -> None:
    if _parse.usual_shape(raw):
        assert _parse.plain_line(raw) == (_parse._plain_record(raw) is not None)


@pytest.mark.parametrize(
    "raw",
    [
        {"id": "C1", "kind": "answer", "fact": "f"},
        {"id": "C1", "kind": "answer", "text": "t", "fact": "f"},
        {"id": "C1", "kind": "abstain"},
        {"id": "C1", "kind": "abstain", "reason": "r", "text": "t"},
        {"id": "C1", "kind": "error", "message": "timeout"},
        {"id": "C1", "kind": "error", "class": "timeout", "raw": "x"},
        {"id": "C1", "kind": "error", "error_class": "a", "class": "b"},
        {"id": "C1", "kind": "error", "class": "b", "error_class": "a"},
    ],
)
def test_the_usual_lines_take_the_fast_path_and_match(
    raw: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    plain = _parse._plain_record(raw)
    both = "class" in raw and "error_class" in raw
    assert (plain is None) == both
    assert _parse.plain_line(raw) != both
    _same(_parse.parse_result_line(raw, HERE), _validated(raw, monkeypatch))


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(["abstain", "answer"]),
    st.sampled_from([None, "f", "g", "return_window_30_days"]),
    st.sampled_from(
        [Abstain(), Answer(fact="f"), Answer(fact="g"), Answer(text="t"), Error(message="m")]
    ),
    st.integers(min_value=1, max_value=5),
)
def test_a_structured_judgment_is_the_validated_judgment(
    behavior: str, fact: str | None, outcome: Any, trial: int
) -> None:
    if behavior == "answer" and fact is None:
        fact = "f"
    case = Case(
        id="C1", slice="s", question="q", expected_behavior=behavior,
        expected_fact=fact if behavior == "answer" else None,
    )  # fmt: skip
    record = Record(case_id="C1", trial=trial, outcome=outcome)
    try:
        made = StructuredGrader().grade(case, record)
    except TypeError:
        assert isinstance(outcome, Error)
        return
    validated = Judgment.model_validate(made.model_dump(exclude={"labels"}))
    assert made == validated
    assert list(made.__dict__) == list(validated.__dict__)
    assert made.model_fields_set == validated.model_fields_set
    assert json.loads(made.model_dump_json()) == json.loads(validated.model_dump_json())


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.characters(max_codepoint=0x2100), max_size=40))
def test_escaping_controls_matches_the_regex(text: str) -> None:
    expected = _CONTROLS.sub(lambda m: f"\\u{ord(m.group(0)):04x}", text)
    assert escape_controls(text) == expected


def test_every_ascii_character_is_escaped_as_the_regex_escapes_it() -> None:
    for code in range(128):
        text = f"a{chr(code)}b"
        assert escape_controls(text) == _CONTROLS.sub(lambda m: f"\\u{ord(m.group(0)):04x}", text)


case_values = st.sampled_from(
    [None, "", "a", "é\u2028\"", "answer", "abstain", "dev", "heldout", True, False, 0, 1,
     ["f"], [], {"k": 1}, {"role": "user"}]
)  # fmt: skip
case_keys = st.sampled_from(
    [*Case.model_fields, "extra", "expected"]
)  # fmt: skip
case_records = st.builds(
    lambda given, rest: {**given, **rest},
    st.fixed_dictionaries(
        {"id": st.sampled_from(["C1", "", 2]), "question": st.sampled_from(["q", None])},
        optional={
            "slice": st.sampled_from(["s", "", None]),
            "expected_behavior": st.sampled_from(["answer", "abstain", "other"]),
            "expected_fact": st.sampled_from(["f", "", None]),
        },
    ),
    st.dictionaries(case_keys, case_values, max_size=4),
)


def _validated_case(raw: Any) -> Any:
    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(case_parse, "_plain_case", lambda raw, shared: None)
        return case_parse.parse_case(raw, HERE)


@settings(max_examples=600, deadline=None)
@given(case_records)
def test_a_case_record_parses_as_validation_parses_it(raw: dict[str, Any]) -> None:
    fast, slow = case_parse.parse_case(raw, HERE), _validated_case(raw)
    if isinstance(slow, list):
        assert fast == slow
        return
    assert isinstance(fast, Case)
    assert fast == slow
    assert list(fast.__dict__) == list(slow.__dict__)
    assert fast.model_fields_set == slow.model_fields_set
    assert fast.model_dump_json() == slow.model_dump_json()
    assert canonical_text(fast) == canonical_json(canonical_record(slow))


plain_records = st.builds(
    lambda given, labels, rest: {**given, **labels, **rest},
    st.fixed_dictionaries(
        {
            "id": st.sampled_from(["C1", 'é\u2028"\\', ""]),
            "slice": st.sampled_from(["s", "\x85", ""]),
            "question": st.sampled_from(["q", 'é\u2028"\\', None]),
        }
    ),
    st.sampled_from(
        [
            {"expected_behavior": "answer", "expected_fact": "f"},
            {"expected_behavior": "answer", "expected_fact": 'é"'},
            {"expected_behavior": "abstain"},
            {"expected_behavior": "abstain", "expected_fact": None},
            {"expected_behavior": "abstain", "expected_fact": "f"},
            {"expected_behavior": "answer", "expected_fact": ""},
        ]
    ),
    st.fixed_dictionaries(
        {},
        optional={
            "rationale": st.sampled_from([None, "r", "é\u2028", 0]),
            "group": st.sampled_from([None, "g", 1]),
            "source_revision": st.sampled_from([None, "rev", {}]),
            "synthetic": st.sampled_from([True, False, 0]),
            "split": st.sampled_from(["dev", "heldout", "other"]),
        },
    ),
)


@settings(max_examples=1500, deadline=None)
@given(st.one_of(case_records, plain_records, plain_records, plain_records))
def test_a_plain_case_is_the_case_a_plain_record_makes(raw: dict[str, Any]) -> None:
    shared: dict[str, str] = {}
    case, plain = case_parse._plain_case(raw, {}), plain_case(raw, shared)
    assert (case is None) == (plain is None)
    if case is None or plain is None:
        return
    for name in [*PlainCase._fields, "prompt", "facts"]:
        assert getattr(plain, name) == getattr(case, name), name
    assert plain_canonical_text(plain) == canonical_text(case)
    assert all(shared[value] is value for value in shared)


@pytest.mark.parametrize(
    "raw",
    [
        {"id": "C1", "slice": "s", "question": "q", "expected_behavior": "abstain"},
        {"id": "C1", "slice": "s", "question": "q", "expected_behavior": "answer",
         "expected_fact": "f", "rationale": None, "synthetic": True, "split": "heldout",
         "group": "g", "source_revision": "r"},
    ],
)  # fmt: skip
def test_the_usual_case_records_take_the_fast_path(raw: dict[str, Any]) -> None:
    assert case_parse._plain_case(raw) == Case.model_validate(raw)


@settings(max_examples=300, deadline=None)
@given(
    st.fixed_dictionaries(
        {"id": st.text(min_size=1, max_size=5), "slice": st.text(min_size=1, max_size=5)},
        optional={
            "question": st.text(max_size=5),
            "rationale": st.none() | st.text(max_size=5),
            "accepted_facts": st.lists(st.text(max_size=3), max_size=2),
            "metadata": st.dictionaries(st.text(max_size=2), st.integers(), max_size=1),
            "messages": st.just([{"role": "user", "content": "hi"}]),
            "requires_citation": st.booleans(),
            "group": st.none() | st.text(max_size=3),
        },
    )
)
def test_a_cases_canonical_text_is_its_records_json(raw: dict[str, Any]) -> None:
    raw = {"question": "q", **raw, "expected_behavior": "answer", "expected_fact": "f"}
    case = Case.model_validate(raw)
    assert canonical_text(case) == canonical_json(canonical_record(case))


json_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(allow_nan=False),
    st.text(max_size=6), st.text(alphabet='"\\\u2028é', max_size=3),
)  # fmt: skip
json_lines = st.lists(
    st.one_of(
        st.lists(st.tuples(st.sampled_from(["id", "kind", "fact", "é"]), json_scalars)).map(
            lambda pairs: "{" + ", ".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in pairs)
            + "}"
        ),
        st.sampled_from(
            ['{"a": [1]}', '{"a": {"b": 1}}', '\ufeff{"a": 1}', '{"a": 1} ', '{"a": 1}\r',
             '{"a": NaN}', '{"a": 1e400}', '{"a": "\\ud800"}', '{"a": 1,}', "[1]", "", "  ",
             '{"a": "x\ty"}', '{"a":1, "a":1}', '{"a": 01}', '{"a": -0}', "{}"]
        ),
    ),
    max_size=6,
)  # fmt: skip


def _decoded(text: str) -> tuple[list[Any], list[Any]]:
    lines = JsonLines(Path("f.jsonl"), text)
    values = [(where, value, json.dumps(value)) for where, value in lines]
    return values, lines.problems


@settings(max_examples=500, deadline=None)
@given(json_lines)
def test_a_json_line_decodes_as_the_checking_decoder_decodes_it(lines: list[str]) -> None:
    text = "\n".join(lines)
    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(json_lines_module, "_quick_decoder", lambda memo, plain: lambda line: None)
        slow = _decoded(text)
    assert _decoded(text) == slow


def test_the_usual_lines_take_the_quick_decoder_and_repeated_keys_do_not() -> None:
    quick = json_lines_module._quick_decoder({}, plain=True)
    assert quick('{"id": "C1", "kind": "answer", "fact": "f"}') == {
        "id": "C1", "kind": "answer", "fact": "f"
    }  # fmt: skip
    assert quick('{"id": "C1", "synthetic": true, "fact": null, "n": 3}') is not None
    assert quick('{"id": "C1", "id": "C2"}') is None
    assert quick('{"id": "C1", "n": 1.5}') is None
