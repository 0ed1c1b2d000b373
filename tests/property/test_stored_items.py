"""A run's stored cases read item by item (``Items``): the items skipped to are the ones
parsing the whole snapshot gives, whatever the cases hold (text with quotes, escapes and
non-ASCII, metadata nesting an ``accepted_facts`` key); and a case's hash taken from its
stored text (``stored_canonical_text``) is its ``case_hash``."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from assay.cases import Case, Dataset
from assay.cases._canonical import case_hash
from assay.stored._case_items import Cases, Items, plain_values, stored_canonical_text

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
