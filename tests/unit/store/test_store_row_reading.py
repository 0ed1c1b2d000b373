"""Reading many stored rows: a run's cases parsed one at a time, shared short texts."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from assay.store._rows import SharedTexts, json_items

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner),
    max_leaves=8,
)


@given(st.lists(JSON_VALUES, max_size=6), st.sampled_from(["", " ", "\n  "]))
def test_items_are_what_parsing_the_whole_array_gives(items: list[object], space: str) -> None:
    text = json.dumps(items, separators=("," + space, ":"))
    assert list(json_items(f"{space}{text}{space}")) == json.loads(text)


@pytest.mark.parametrize("text", ["", "{}", "[1,]", "[1 2]", "[1", "[1]x", "[", "1"])
def test_text_that_is_not_one_json_array_is_refused(text: str) -> None:
    with pytest.raises(ValueError):
        list(json_items(text))


def test_equal_short_texts_become_one_object_and_long_ones_are_left_alone() -> None:
    shared = SharedTexts(limit=2)
    first, again = "".join(["pass", "ed"]), "".join(["pas", "sed"])
    assert first is not again and shared(first) is first and shared(again) is first
    long = "x" * 81
    assert shared(long) is long and shared(3) == 3
    shared("b")
    third = "".join(["c", "c"])
    assert shared(third) is third and shared("".join(["c", "c"])) is not third  # full
