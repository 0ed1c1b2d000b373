"""Each record's case id is checked against the id found for it, as rows of bytes when
every id is ASCII of one length: the check says what comparing text by text says."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from assay.grading._packed import _fixed_width, _same_texts

# Few characters and short texts, so that equal lengths, NULs, non-ASCII and near-misses
# (one character off) come up often.
_TEXTS = st.text(st.sampled_from("ab\x00é-"), min_size=0, max_size=3)


@settings(max_examples=500, deadline=None)
@given(
    texts=st.lists(_TEXTS, min_size=1, max_size=8),
    picks=st.lists(st.integers(0, 7), max_size=8),
    changed=st.lists(st.tuples(st.integers(0, 7), _TEXTS), max_size=2),
)
def test_rows_of_bytes_say_what_text_by_text_says(
    texts: list[str], picks: list[int], changed: list[tuple[int, str]]
) -> None:
    at = np.array([p % len(texts) for p in picks], dtype=np.int64)
    wanted = [texts[p] for p in at.tolist()]
    for i, text in changed:
        if wanted:
            wanted[i % len(wanted)] = text
    expected = [texts[p] for p in at.tolist()] == wanted
    assert _same_texts(texts, at, wanted) is expected


def test_fixed_width_rows_only_for_ascii_texts_of_one_length_without_nul() -> None:
    rows = _fixed_width(["ab", "ba", "aa"])
    assert rows is not None and rows.shape == (3, 3)
    assert bytes(rows[1, :2]) == b"ba"
    assert _fixed_width(["ab", "b"]) is None  # lengths differ
    assert _fixed_width(["a\x00", "ba"]) is None  # a NUL inside a text
    assert _fixed_width(["é1", "ab"]) is None  # not ASCII
    assert _fixed_width(["ab", "c", "def"]) is None  # lengths add up, separators misplaced
    assert _fixed_width(["ab", "c\x00d", "e"]) is None  # lengths add up, a NUL inside
    assert _fixed_width([]) is None
