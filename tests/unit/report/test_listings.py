"""The dataset and store commands' listings go through ``render(obj, fmt)``: each kind is
named once, drawn in the formats ``assay.formats`` lists for it, and its text shows data,
never a terminal control sequence."""

from __future__ import annotations

import json

import pytest

from assay.cases import Case, diff_datasets
from assay.cases._near import Cluster, Member
from assay.formats import formats
from assay.render import kind_of, render
from assay.report._listings import (
    CacheContents,
    DatasetChanges,
    DatasetSide,
    Duplicates,
    RunListing,
    Validation,
)

ESC = "\x1b[2J"


def _case(ident: str, question: str) -> Case:
    return Case(id=ident, slice="s", question=question, expected_behavior="abstain")


def _listings() -> list[object]:
    old = [_case("E1", "one"), _case("E2", "two")]
    new = [_case("E1", f"one {ESC}"), _case("E3", "three")]
    cluster = Cluster((Member("E1", 0, 1.0), Member(f"E2{ESC}", 1, 0.85)))
    return [
        RunListing(()),
        Validation("d.jsonl", 2, 0, 0, False, ()),
        Duplicates("d.jsonl", 2, 5, 0.8, (cluster,)),
        DatasetChanges(
            DatasetSide("a.jsonl", "sha256:aa", 2),
            DatasetSide("b.jsonl", "sha256:bb", 2),
            diff_datasets(old, new),
        ),
        CacheContents("cache.db", 2, 4096, "2026-11-01", "2026-11-02", 1, {"1": 2}),
    ]


@pytest.mark.parametrize(
    ("index", "kind"),
    list(enumerate(["runs", "validation", "duplicates", "dataset-diff", "cache-stats"])),
)
def test_each_listing_is_its_kind_and_renders_in_its_formats(index: int, kind: str) -> None:
    listing = _listings()[index]
    assert kind_of(listing) == kind  # type: ignore[arg-type]
    for fmt in formats(kind):
        drawn = render(listing, fmt)  # type: ignore[arg-type]
        assert drawn.endswith("\n") and drawn.strip(), fmt
        if fmt == "json":
            json.loads(drawn)
    with pytest.raises(ValueError, match=r"choose one of text, json$"):
        render(listing, "markdown")  # type: ignore[arg-type]


def test_a_listing_s_text_escapes_control_characters_its_json_keeps_them() -> None:
    duplicates, changes = _listings()[2], _listings()[3]
    for listing in (duplicates, changes):
        text = render(listing, "text")  # type: ignore[arg-type]
        assert "\x1b" not in text and "\\u001b[2J" in text
    members = json.loads(render(duplicates, "json"))["clusters"][0]["members"]  # type: ignore[arg-type]
    assert members[1] == {"id": f"E2{ESC}", "similarity": 0.85}


def test_the_cache_listing_says_none_for_an_empty_cache() -> None:
    empty = CacheContents("c.db", 0, 0, None, None, 1)
    assert render(empty, "text").splitlines() == [
        "assay cache · c.db",
        "entries: 0 (none; current key version 1)",
        "size: 0 bytes",
        "oldest: —",
        "newest: —",
    ]
