"""Near-duplicate clusters: planted duplicates are found with measured similarities."""

from __future__ import annotations

import pytest
from tests.unit.cases._make import case

from assay.cases import NearSettings, find_clusters, jaccard, normalize_input, shingles

QUESTIONS = [
    ("A1", "How many days do I have to return an item I bought online?"),
    ("B1", "Do you offer gift wrapping on returns?"),
    ("A2", "How many days do I have to return an item I bought on-line?"),
    ("C1", "How much does return shipping cost?"),
    ("A3", "how many DAYS do I have to return an item I bought online"),
    ("B2", "Do you offer gift-wrapping on returns??"),
    ("D1", "Can a custom-printed product use the standard return window?"),
]


def test_planted_near_duplicates_form_the_known_clusters() -> None:
    cases = [case(i, q) for i, q in QUESTIONS]
    clusters = find_clusters(cases)
    assert [c.ids for c in clusters] == [("A1", "A2", "A3"), ("B1", "B2")]
    a = clusters[0]
    assert a.members[0].similarity == 1.0  # the kept case, against itself
    assert 0.8 <= a.members[1].similarity < 1.0  # "on-line": near, measured exactly
    assert a.members[2].similarity == 1.0  # identical after normalising
    assert not a.exact and clusters[1].exact


def test_similarity_is_the_exact_jaccard_of_the_shingle_sets() -> None:
    cases = [case("A1", QUESTIONS[0][1]), case("A2", QUESTIONS[2][1])]
    (cluster,) = find_clusters(cases)
    expected = jaccard(shingles(QUESTIONS[0][1], 5), shingles(QUESTIONS[2][1], 5))
    assert cluster.members[1].similarity == round(expected, 4)


def test_a_higher_threshold_splits_what_a_lower_one_joins() -> None:
    cases = [case(i, q) for i, q in QUESTIONS]
    strict = find_clusters(cases, NearSettings(threshold=0.99))
    assert [c.ids for c in strict] == [("A1", "A3"), ("B1", "B2")]


def test_distinct_questions_do_not_cluster() -> None:
    cases = [case("X", "How long do refunds take?"), case("Y", "Where is my order now?")]
    assert find_clusters(cases) == ()


def test_normalising_ignores_case_punctuation_and_spacing() -> None:
    assert normalize_input("  How MANY days?!  (online) ") == "how many days online"


def test_conversations_compare_on_their_messages() -> None:
    convo = [{"role": "user", "content": "How many days do I have to return an item?"}]
    cases = [
        case("M1", None, messages=convo),  # type: ignore[arg-type]
        case("Q1", "How many days do I have to return an item?"),
    ]
    assert [c.ids for c in find_clusters(cases)] == [("M1", "Q1")]


@pytest.mark.parametrize(
    ("field", "value"), [("shingle", 0), ("threshold", 0.0), ("threshold", 1.5), ("num_perm", 4)]
)
def test_bad_settings_are_refused(field: str, value: float) -> None:
    with pytest.raises(ValueError):
        NearSettings(**{field: value})  # type: ignore[arg-type]
