"""The path checks' matching rules against direct, obviously correct definitions: a
subsequence as a choice of positions, a subset of arguments key by key, a regular
expression that must match an argument's whole text."""

from __future__ import annotations

import json
import re
from itertools import combinations
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from assay.cases import Case, canonical_record
from assay.grading.checks._path import (
    argument_text,
    is_subsequence,
    same_value,
    unmatched_arguments,
)

NAMES = st.sampled_from(["a", "b", "c", "d"])
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.sampled_from([0.0, 1.0, 2.5]),
    st.text("xy1 ", max_size=3),
)
JSON = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(NAMES, inner, max_size=3),
    max_leaves=8,
)


@settings(max_examples=300, deadline=None)
@given(st.lists(NAMES, max_size=5), st.lists(NAMES, max_size=7))
def test_a_subsequence_is_a_choice_of_positions_in_order(
    wanted: list[str], seen: list[str]
) -> None:
    chosen = any(
        [seen[i] for i in positions] == wanted
        for positions in combinations(range(len(seen)), len(wanted))
    )
    assert is_subsequence(wanted, seen) == chosen


@settings(max_examples=200, deadline=None)
@given(st.lists(NAMES, max_size=7), st.data())
def test_what_is_left_after_removing_calls_is_a_subsequence(seen: list[str], data: Any) -> None:
    kept = data.draw(st.lists(st.booleans(), min_size=len(seen), max_size=len(seen)))
    assert is_subsequence([n for n, k in zip(seen, kept, strict=True) if k], seen)


def _json_equal(a: Any, b: Any) -> bool:
    """Equal as JSON texts are equal: ``true`` is not ``1``, ``1`` is ``1.0``."""

    def canon(value: Any) -> Any:
        if isinstance(value, bool) or value is None or isinstance(value, str):
            return [type(value).__name__, value]
        if isinstance(value, int | float):
            return ["number", float(value)]
        if isinstance(value, list):
            return ["list", [canon(v) for v in value]]
        return ["object", {k: canon(v) for k, v in value.items()}]

    return json.dumps(canon(a), sort_keys=True) == json.dumps(canon(b), sort_keys=True)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(NAMES, SCALARS, max_size=4), st.dictionaries(NAMES, SCALARS, max_size=3))
def test_flat_arguments_hold_a_subset_key_by_key(
    arguments: dict[str, Any], wanted: dict[str, Any]
) -> None:
    direct = all(k in arguments and _json_equal(arguments[k], v) for k, v in wanted.items())
    assert same_value(arguments, wanted) == direct


@settings(max_examples=300, deadline=None)
@given(JSON, st.data())
def test_a_value_holds_itself_and_any_part_of_its_mappings(value: Any, data: Any) -> None:
    assert same_value(value, value)
    if isinstance(value, dict):
        keys = data.draw(st.lists(st.sampled_from(sorted(value)), unique=True)) if value else []
        assert same_value(value, {k: value[k] for k in keys})


@settings(max_examples=300, deadline=None)
@given(JSON, JSON)
def test_between_values_without_mappings_holding_is_json_equality(a: Any, b: Any) -> None:
    def flat(value: Any) -> bool:
        if isinstance(value, dict):
            return False
        return all(flat(v) for v in value) if isinstance(value, list) else True

    if flat(a) and flat(b):
        assert same_value(a, b) == _json_equal(a, b)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(NAMES, SCALARS, max_size=4), st.lists(NAMES, unique=True, max_size=4))
def test_a_pattern_matches_the_whole_text_of_its_argument(
    arguments: dict[str, Any], named: list[str]
) -> None:
    exact = {n: re.escape(argument_text(arguments[n])) for n in named if n in arguments}
    assert unmatched_arguments(arguments, exact) == []
    longer = {n: p + "z" for n, p in exact.items()}  # no argument's text ends in z
    assert unmatched_arguments(arguments, longer) == list(longer)
    texts = {n: argument_text(arguments[n]) for n in exact}
    prefixes = {n: re.escape(t[:-1]) for n, t in texts.items() if t}  # a match, but not whole
    assert unmatched_arguments(arguments, prefixes) == list(prefixes)
    absent = {n: ".*" for n in named if n not in arguments}
    assert unmatched_arguments(arguments, absent) == list(absent)


EXPECTATIONS = st.one_of(
    st.builds(lambda n, a: {"tool_called": n, "args": a}, NAMES, st.dictionaries(NAMES, SCALARS)),
    st.builds(lambda n: {"tool_called": n, "args_match": {"a": "x+"}}, NAMES),
    st.builds(lambda n: {"tool_not_called": n}, NAMES),
    st.builds(lambda ns: {"calls_in_order": ns}, st.lists(NAMES, min_size=1)),
    st.builds(lambda n: {"max_steps": n}, st.integers(0, 9)),
    st.builds(lambda c: {"max_calls": c}, st.dictionaries(NAMES, st.integers(0, 3), min_size=1)),
    st.builds(lambda b: {"no_call_after_refusal": b}, st.booleans()),
    st.builds(lambda s: {"state_equals": s}, st.dictionaries(NAMES, SCALARS, min_size=1)),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(EXPECTATIONS, max_size=4))
def test_a_case_keeps_its_expectations_as_written(expect: list[dict[str, Any]]) -> None:
    case = Case(id="c", slice="s", question="q", expected_behavior="abstain", expect=expect)
    written = canonical_record(case).get("expect", [])
    assert written == json.loads(json.dumps(expect))
