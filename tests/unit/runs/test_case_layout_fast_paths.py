"""The fast paths that read a stored case by position are generated from its layout: a
case with an optional field more, at its default, still takes every one of them (its
values read off its item's text, its canonical text cut from it, its group and id
scanned from the snapshot), and a case with that field set takes none."""

from __future__ import annotations

import hashlib

import pytest

from assay.cases import Case, Layout, canonical_json, canonical_record
from assay.runs import _case_items, _summary
from assay.runs._case_items import CaseAt, defaults_of, plain_item, plain_values


class _Wider(Case):
    """A case with three optional fields more: one sorted first, one among the text fields
    and one last."""

    abandoned: bool = False
    hints: tuple[str, ...] = ()
    zone: str | None = None


_WIDE = Layout.of(_Wider)
_PLAIN = {"id": "c1", "slice": "s", "question": "Q?", "expected_behavior": "answer"}
_PLAIN |= {"expected_fact": "f", "group": "g", "source_revision": "v1", "split": "heldout"}
_HEAD = ("c1", "s", False, "Q?", "answer", "f", None, "v1")


@pytest.fixture
def wide(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fast paths generated from the wider layout."""
    singles, single_values, others, other_values = defaults_of(_WIDE)
    texts = _WIDE.omitted_texts()
    monkeypatch.setattr(_case_items, "_PLAIN_ITEM", plain_item(_WIDE))
    monkeypatch.setattr(_case_items, "_FIELDS", frozenset(_WIDE.fields))
    monkeypatch.setattr(_case_items, "_SINGLES", singles)
    monkeypatch.setattr(_case_items, "_SINGLE_VALUES", single_values)
    monkeypatch.setattr(_case_items, "_OTHERS", others)
    monkeypatch.setattr(_case_items, "_OTHER_VALUES", other_values)
    monkeypatch.setattr(_case_items, "_RUBRIC_JSON", texts)
    monkeypatch.setattr(_case_items, "_RUBRIC_LENGTH", sum(map(len, texts)))
    monkeypatch.setattr(_summary, "_GROUP_KEYS", _summary.group_keys(_WIDE))
    monkeypatch.setattr(_summary, "_ID", _summary.id_keys(_WIDE))


def _stored(**more: object) -> str:
    return canonical_json(_Wider.model_validate(_PLAIN | more).model_dump(mode="json"))


@pytest.mark.usefixtures("wide")
def test_a_plain_case_with_a_field_more_at_its_default_takes_every_fast_path() -> None:
    text = _stored()
    assert _case_items._PLAIN_ITEM.fullmatch(text) is not None
    case = CaseAt.of_text(text)
    assert case.head == _HEAD
    assert case._raw is _case_items._UNREAD  # read off its text, not parsed
    assert plain_values(_case_items._parsed(text)) == _HEAD
    canonical = canonical_json(canonical_record(Case.model_validate(_PLAIN)))
    assert _case_items.stored_canonical_text(text) == canonical
    snapshot = f"[{text},{_stored(id='c2', split='dev')}]"
    scanned = _summary._scanned_groups(snapshot)
    assert scanned is not None
    assert scanned[0] == [("s", False, "heldout"), ("s", False, "dev")]
    assert _summary._scanned_ids(snapshot, 2) == ["c1", "c2"]


@pytest.mark.usefixtures("wide")
@pytest.mark.parametrize("more", [{"abandoned": True}, {"hints": ("h",)}, {"zone": "z"}])
def test_a_case_with_the_field_more_set_takes_none(more: dict[str, object]) -> None:
    text = _stored(**more)
    assert _case_items._PLAIN_ITEM.fullmatch(text) is None
    assert plain_values(_case_items._parsed(text)) is None
    assert _case_items.stored_canonical_text(text) is None


@pytest.mark.usefixtures("wide")
def test_a_case_with_a_field_more_set_among_the_scanned_keys_is_parsed() -> None:
    plain = _stored(id="c2")
    assert _summary._scanned_groups(f"[{_stored(zone='z')},{plain}]") is None
    snapshot = f"[{_stored(hints=('h',))},{plain}]"
    assert _summary._scanned_groups(snapshot) is not None
    assert _summary._scanned_ids(snapshot, 2) is None


@pytest.mark.usefixtures("wide")
def test_a_snapshot_written_before_the_fields_more_is_still_scanned() -> None:
    older = canonical_json(Case.model_validate(_PLAIN).model_dump(mode="json"))
    snapshot = f"[{older},{_stored(id='c2', split='dev')}]"
    assert _summary._scanned_groups(snapshot) is not None
    assert _summary._scanned_ids(snapshot, 2) == ["c1", "c2"]


def test_the_case_layout_s_plain_item_hashes_as_its_case() -> None:
    text = canonical_json(Case.model_validate(_PLAIN).model_dump(mode="json"))
    case = CaseAt.of_text(text)
    assert case.head == _HEAD
    digest = hashlib.sha256(canonical_json(canonical_record(case.case)).encode()).hexdigest()
    assert case.hash == f"sha256:{digest}"
