"""BM25 against scores computed by hand, and the tokenizer the demo shares."""

from __future__ import annotations

import math

import pytest

from assay.demo import BM25, tokenize

# Three documents: |d| = 2, 3, 1, so avgdl = 2; k1 = 1.5, b = 0.75.
DOCS = [["cat", "dog"], ["cat", "cat", "fish"], ["bird"]]


def test_idf_is_the_non_negative_okapi_form() -> None:
    index = BM25.index(DOCS)
    # "cat" is in 2 of 3 documents: ln(1 + (3 - 2 + 0.5) / (2 + 0.5)) = ln(1.6)
    assert index.idf("cat") == pytest.approx(math.log(1.6))
    assert index.idf("unseen") == pytest.approx(math.log(1 + 3.5 / 0.5))


def test_scores_match_hand_computation() -> None:
    scores = BM25.index(DOCS).scores(["cat"])
    # d1: f=1, norm = 1.5 * (0.25 + 0.75 * 2/2) = 1.5   -> ln1.6 * 2.5 / 2.5
    # d2: f=2, norm = 1.5 * (0.25 + 0.75 * 3/2) = 2.0625 -> ln1.6 * 5 / 4.0625
    assert scores == pytest.approx([0.4700036292, 0.5784660052, 0.0])


def test_several_terms_add_and_repeated_query_terms_count_once() -> None:
    scores = BM25.index(DOCS).scores(["cat", "bird", "cat"])
    # "bird": idf = ln(1 + 2.5 / 1.5) = 0.9808292530; d3: f=1, norm = 0.9375 -> x 2.5/1.9375
    assert scores == pytest.approx([0.4700036292, 0.5784660052, 1.2655861329])


def test_empty_index_scores_nothing() -> None:
    assert BM25.index([]).scores(["cat"]) == []


def test_tokenize_drops_stopwords_and_plural_s() -> None:
    assert tokenize("Can I return the mugs within 30 days?") == [
        "return",
        "mug",
        "within",
        "30",
        "day",
    ]
    assert tokenize("glass press") == ["glass", "press"]
