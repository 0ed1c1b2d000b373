"""Properties of near-duplicate detection and of leak-free held-out splits."""

from __future__ import annotations

from collections import defaultdict

from hypothesis import given, settings
from hypothesis import strategies as st

from assay.cases import (
    Case,
    assign_splits,
    find_clusters,
    find_leaks,
    units_of,
)

LETTERS = "abcdefghijklmnopqrstuvwxyz"
word = st.text(alphabet=LETTERS, min_size=3, max_size=9)
sentence = st.lists(word, min_size=14, max_size=30).map(" ".join).filter(lambda s: len(s) >= 80)


def _case(case_id: str, question: str, **fields: object) -> Case:
    data: dict[str, object] = {
        "id": case_id,
        "slice": "s",
        "question": question,
        "expected_behavior": "answer",
        "expected_fact": "f",
    }
    data.update(fields)
    return Case.model_validate(data)


@st.composite
def light_edit(draw: st.DrawFn) -> tuple[str, str]:
    """A sentence and a copy with one light edit: letter case, punctuation, spacing, or one
    character inserted, deleted or replaced."""
    text = draw(sentence)
    kind = draw(st.sampled_from(["case", "punct", "space", "insert", "delete", "replace"]))
    i = draw(st.integers(0, len(text) - 1))
    c = draw(st.sampled_from(LETTERS))
    if kind == "case":
        edited = text.upper()
    elif kind == "punct":
        edited = text[:i] + "," + text[i:] + "?"
    elif kind == "space":
        edited = "  " + text.replace(" ", "   ", 3) + " "
    elif kind == "insert":
        edited = text[:i] + c + text[i:]
    elif kind == "delete":
        edited = text[:i] + text[i + 1 :]
    else:
        edited = text[:i] + c + text[i + 1 :]
    return text, edited


@settings(max_examples=60, deadline=None)
@given(light_edit(), sentence)
def test_a_case_and_its_lightly_edited_copy_always_cluster(
    pair: tuple[str, str], other: str
) -> None:
    text, edited = pair
    cases = [_case("orig", text), _case("other", other), _case("copy", edited)]
    clusters = find_clusters(cases)
    joined = [c.ids for c in clusters if "orig" in c.ids]
    assert joined and "copy" in joined[0]


def _sentence_of(letters: str) -> st.SearchStrategy[str]:
    words = st.text(alphabet=letters, min_size=3, max_size=9)
    return st.lists(words, min_size=4, max_size=20).map(" ".join)


@settings(max_examples=60, deadline=None)
@given(_sentence_of(LETTERS[:13]), _sentence_of(LETTERS[13:]), light_edit())
def test_unrelated_cases_do_not_cluster(a: str, b: str, pair: tuple[str, str]) -> None:
    # Sentences over disjoint alphabets share no shingle; a third, random one may join
    # neither of them.
    cases = [_case("a", a), _case("b", b), _case("c", pair[0])]
    assert all({"a", "b"} - set(c.ids) for c in find_clusters(cases))


SLICES = st.sampled_from(["standard", "exception", "missing"])


@st.composite
def dataset(draw: st.DrawFn) -> list[Case]:
    n = draw(st.integers(1, 40))
    cases = []
    for i in range(n):
        behaviour = draw(st.sampled_from(["answer", "abstain"]))
        group = draw(st.one_of(st.none(), st.sampled_from(["g1", "g2", "g3", "g4"])))
        # A few cases repeat an earlier question: near-duplicate clusters to keep together.
        repeat = i > 0 and draw(st.integers(0, 5)) == 0
        question = cases[draw(st.integers(0, i - 1))].question if repeat else f"question {i}"
        fields: dict[str, object] = {"slice": draw(SLICES), "expected_behavior": behaviour}
        if behaviour == "abstain":
            fields["expected_fact"] = None
        if group is not None:
            fields["group"] = group
        cases.append(_case(f"c{i}", question or "", **fields))
    return cases


@settings(max_examples=40, deadline=None)
@given(dataset(), st.floats(0.05, 0.6), st.integers(0, 2**16))
def test_splits_are_deterministic_and_never_divide_a_group_or_cluster(
    cases: list[Case], heldout: float, seed: int
) -> None:
    clusters = find_clusters(cases)
    splits = assign_splits(cases, clusters, heldout, seed)
    assert splits == assign_splits(cases, clusters, heldout, seed)
    assert set(splits) == {c.id for c in cases}
    for unit in units_of(cases, clusters):
        assert len({splits[cases[i].id] for i in unit.indexes}) == 1
    resplit = [c.model_copy(update={"split": splits[c.id]}) for c in cases]
    assert find_leaks(resplit, clusters) == ()


@settings(max_examples=40, deadline=None)
@given(dataset(), st.floats(0.05, 0.6), st.integers(0, 2**16))
def test_each_stratum_gets_its_share_within_half_its_largest_unit(
    cases: list[Case], heldout: float, seed: int
) -> None:
    clusters = find_clusters(cases)
    splits = assign_splits(cases, clusters, heldout, seed)
    strata: dict[tuple[str, str], list[list[Case]]] = defaultdict(list)
    for unit in units_of(cases, clusters):
        members = [cases[i] for i in unit.indexes]
        counts: dict[tuple[str, str], int] = defaultdict(int)
        for c in members:
            counts[(c.slice, c.expected_behavior)] += 1
        key = min(counts, key=lambda k: (-counts[k], k))
        strata[key].append(members)
    for units in strata.values():
        size = sum(len(u) for u in units)
        held = sum(len(u) for u in units if splits[u[0].id] == "heldout")
        largest = max(len(u) for u in units)
        assert abs(held - heldout * size) <= largest / 2 + 1e-9


@settings(max_examples=40, deadline=None)
@given(dataset(), st.data())
def test_leakage_is_found_exactly_where_a_group_spans_both_sides(
    cases: list[Case], data: st.DataObject
) -> None:
    sides = data.draw(
        st.lists(st.sampled_from(["dev", "heldout"]), min_size=len(cases), max_size=len(cases))
    )
    split_cases = [c.model_copy(update={"split": s}) for c, s in zip(cases, sides, strict=True)]
    leaks = find_leaks(split_cases, ())
    by_group: dict[str, set[str]] = defaultdict(set)
    for c in split_cases:
        if c.group is not None:
            by_group[c.group].add(c.split)
    assert {leak.name for leak in leaks} == {g for g, s in by_group.items() if len(s) == 2}
    for leak in leaks:
        assert leak.dev and leak.heldout
        assert all(c.split == "dev" for c in split_cases if c.id in leak.dev)
