"""A run's stored cases read item by item (``Items``): the items skipped to are the ones
parsing the whole snapshot gives, whatever the cases hold (text with quotes, escapes and
non-ASCII, metadata nesting an ``accepted_facts`` key); a case's hash taken from its
stored text (``stored_canonical_text``) is its ``case_hash``; and a case whose values are
read off its item's text (``CaseAt.of_text``) is the one its parsed item makes, value for
value and failure for failure, whatever its fields hold."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assay.cases import Case, Dataset
from assay.cases._canonical import canonical_json, case_hash
from assay.runs import _case_items
from assay.runs._case_items import (
    CaseAt,
    Cases,
    Items,
    plain_values,
    stored_canonical_text,
)

_TEXT = st.text(st.characters(blacklist_categories=["Cs"]), max_size=8)
_SOME = st.text(st.characters(blacklist_categories=["Cs"]), min_size=1, max_size=8)
_METADATA = st.sampled_from(
    [{}, {"n": 1}, {"l": [{"accepted_facts": 1}, {"accepted_facts": 2}]}, {"t": '},{"a'}]
)


@st.composite
def _cases(draw: Any) -> list[Case]:
    cases = []
    for i in range(draw(st.integers(0, 6))):
        abstain = draw(st.booleans())
        cases.append(
            Case(
                id=f"K{i}" + draw(_TEXT),
                slice=draw(_SOME),
                question=draw(_TEXT),
                expected_behavior="abstain" if abstain else "answer",
                expected_fact=None if abstain else draw(_SOME),
                rationale=draw(st.none() | _TEXT),
                source_revision=draw(st.none() | _SOME),
                group=draw(st.none() | _SOME),
                synthetic=draw(st.booleans()),
                metadata=draw(_METADATA),
            )
        )
    return cases


def _items(text: str, count: int) -> Items:
    """The items of a snapshot ``text`` of ``count`` cases, as a stored run's rows read it."""
    return Items(Cases(text, None, Items.canonical(text, count)))


@settings(max_examples=200, deadline=None)
@given(_cases(), st.lists(st.integers(0, 5), max_size=4))
def test_items_read_forward_are_the_parsed_ones(cases: list[Case], asked: list[int]) -> None:
    text = Dataset(name="d", cases=cases).cases_json()
    parsed = json.loads(text)
    items = _items(text, len(cases))
    for i in sorted({i for i in asked if i < len(cases)}):
        assert items.at(i) == parsed[i]
        if items.text is not None:
            assert json.loads(items.text) == parsed[i]


@settings(max_examples=200, deadline=None)
@given(_cases())
def test_a_plain_case_hashes_from_its_stored_text(cases: list[Case]) -> None:
    text = Dataset(name="d", cases=cases).cases_json()
    items = _items(text, len(cases))
    for i, case in enumerate(cases):
        raw = items.at(i)
        stored = items.text
        if stored is None or plain_values(raw) is None:
            continue
        canonical = stored_canonical_text(stored)
        if canonical is not None:
            assert f"sha256:{hashlib.sha256(canonical.encode()).hexdigest()}" == case_hash(case)


def test_a_snapshot_written_otherwise_is_parsed() -> None:
    cases = [
        Case(id=f"K{i}", slice="s", question="q", expected_behavior="abstain") for i in range(3)
    ]
    spaced = json.dumps(json.loads(Dataset(name="d", cases=cases).cases_json()), indent=1)
    items = _items(spaced, 3)
    assert items.at(2)["id"] == "K2" and items.text is None
    assert stored_canonical_text(json.dumps(json.loads(spaced)[0])) is None


# Values a hand-edited store may hold in a case's fields: of the wrong type, empty, with
# characters JSON escapes, or a value the fast read must not take for another.
_ODD_VALUES = [
    None,
    "",
    "x",
    "é",
    'q"',
    "a\\b",
    "\n",
    "\x1f",
    "\x7f",
    "null",
    "answer",
    "abstain",
    "dev",
    "heldout",
    "true",
    0,
    1,
    1.5,
    True,
    False,
    [],
    {},
    ["f"],
    {"k": "v"},
]
_ODD = st.sampled_from(_ODD_VALUES)


@st.composite
def _stored_items(draw: Any) -> str:
    """The text of one case's item as the store writes it, some of its fields (or keys)
    then changed as a hand edit might change them."""
    abstain = draw(st.booleans())
    case = Case(
        id="K" + draw(_TEXT),
        slice=draw(_SOME),
        question=draw(_TEXT),
        expected_behavior="abstain" if abstain else "answer",
        expected_fact=None if abstain else draw(_SOME),
        rationale=draw(st.none() | _TEXT),
        source_revision=draw(st.none() | _SOME),
        group=draw(st.none() | _SOME),
        split=draw(st.sampled_from(["dev", "heldout"])),
        synthetic=draw(st.booleans()),
    )
    raw = case.model_dump(mode="json")
    for key in draw(st.lists(st.sampled_from([*sorted(raw), "extra"]), max_size=3)):
        if draw(st.booleans()) and key in raw:
            del raw[key]
        else:
            raw[key] = draw(_ODD)
    return canonical_json(raw)


def _read(at: Any) -> tuple[Any, ...]:
    """What a report reads of a ``CaseAt`` made by ``at()``: its row values, id and
    synthetic flag, hash and case, or the failure of each."""

    def tried(read: Any) -> Any:
        try:
            return read()
        except ValueError as err:
            return ("fails", type(err), str(err))

    made = tried(at)
    if isinstance(made, tuple):
        return made
    return (made.head, made.id, made.synthetic, tried(lambda: made.hash), tried(lambda: made.case))


def _both_ways(text: str, known: str | None = None) -> tuple[Any, Any]:
    """``_read`` of the case read off ``text``, and of the one its parsed item makes."""
    fast = _read(lambda: CaseAt.of_text(text, known))
    return fast, _read(lambda: CaseAt(json.loads(text), text, known))


@settings(max_examples=500, deadline=None)
@given(_stored_items(), st.none() | st.just("sha256:kept"))
def test_a_case_read_off_its_text_is_the_parsed_one(text: str, known: str | None) -> None:
    fast, parsed = _both_ways(text, known)
    assert fast == parsed


def test_a_case_with_any_one_field_changed_is_read_as_parsed() -> None:
    bases = [
        Case(id="K1", slice="s", question="q", expected_behavior="answer", expected_fact="f"),
        Case(id="K2", slice="s", question="q", expected_behavior="abstain", group="g"),
    ]
    for case in bases:
        for key in [*sorted(Case.model_fields), "extra"]:
            for value in [_GONE, *_ODD_VALUES]:
                raw = case.model_dump(mode="json")
                if value is _GONE:
                    raw.pop(key, None)
                else:
                    raw[key] = value
                fast, parsed = _both_ways(canonical_json(raw))
                assert fast == parsed, raw


_GONE = object()


def test_a_plain_case_as_stored_is_read_without_parsing(monkeypatch: pytest.MonkeyPatch) -> None:
    cases = [
        Case(id="K1", slice="s", question="q é", expected_behavior="answer", expected_fact="f"),
        Case(id="K2", slice="t", question="", expected_behavior="abstain", rationale="r"),
        Case(
            id="K3",
            slice="s",
            question="q",
            expected_behavior="abstain",
            source_revision="rev",
            synthetic=True,
        ),
    ]
    text = Dataset(name="d", cases=cases).cases_json()
    items = _items(text, len(cases))
    monkeypatch.setattr(_case_items, "_parsed", None)  # reading any item would fail
    heads = [items.case_at(i).head for i in range(len(cases))]
    assert heads == [
        ("K1", "s", False, "q é", "answer", "f", None, None),
        ("K2", "t", False, "", "abstain", None, "r", None),
        ("K3", "s", True, "q", "abstain", None, None, "rev"),
    ]
