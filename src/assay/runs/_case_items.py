"""A stored run's cases read item by item from their snapshot (``runs.cases``, hundreds
of megabytes for a million cases): each item found by its joints and parsed only when
asked for, its row values read directly when it is a case of text fields alone, and its
content hash taken from its own text (or kept by the store since schema version 6)."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterator
from operator import is_not, itemgetter
from typing import Any, NamedTuple

import orjson

from assay.cases import LAYOUT, SPLITS, Case, Layout, case_hash, plain_case_text
from assay.store import json_items


class Cases(NamedTuple):
    """A run's cases as stored: their snapshot, their content hashes in order when the
    store kept them, and whether the snapshot is written as the store writes it (see
    ``Items``)."""

    snapshot: str
    hashes: list[str] | None
    canonical: bool


_HEAD = f'{{"{LAYOUT.fields[0]}":'
_JOINT = "}," + _HEAD


class Items:
    """A run's stored cases, read forward by position: an item is parsed only when asked
    for. In a snapshot as the store writes it (each item a key-sorted object whose first
    key is ``accepted_facts``, no such key deeper), the items passed over are found by
    their joints and never parsed; any other snapshot is parsed item by item."""

    def __init__(self, cases: Cases) -> None:
        self._text = text = cases.snapshot
        self._next = 0
        self._at = 1
        self._scan: Iterator[Any] | None = None if cases.canonical else json_items(text)
        self.text: str | None = None
        """The last item's text, when it was read so (not parsed from the whole)."""

    @staticmethod
    def canonical(text: str, count: int) -> bool:
        """Whether the snapshot ``text`` of ``count`` cases is written as the store
        writes it, so that its items are found by their joints."""
        return (
            count > 0
            and text.startswith("[" + _HEAD)
            and text.endswith("}]")
            and text.count(_HEAD) == count
            and text.count(_JOINT) == count - 1
        )

    def at(self, i: int) -> Any:
        """Item ``i``, not before the last one asked for (None past the last)."""
        if self._scan is not None:
            for _ in range(i - self._next):
                next(self._scan, None)
            self._next = i + 1
            return next(self._scan, None)
        item = self._item(i)
        return None if item is None else _parsed(item)

    def case_at(self, i: int, known: str | None = None) -> CaseAt:
        """``CaseAt(self.at(i), self.text, known)``, its values read off the item's text
        when it is a case of text fields alone as the store writes it (not parsed)."""
        if self._scan is not None:
            return CaseAt(self.at(i), None, known)
        item = self._item(i)
        if item is None:
            return CaseAt(None, None, known)
        return CaseAt.of_text(item, known)

    def _item(self, i: int) -> str | None:
        """The text of item ``i`` of a snapshot as the store writes it (None past the
        last), kept as ``text``."""
        text, at = self._text, self._at
        if i != self._next:
            for _ in range(i - self._next):
                at = text.find(_JOINT, at) + 2
                if at == 1:
                    return None
        end = text.find(_JOINT, at)
        end = len(text) - 1 if end < 0 else end + 1
        self._at, self._next = end + 1, i + 1
        self.text = item = text[at:end]
        return item


def _parsed(text: str) -> Any:
    """``json.loads(text)``, by orjson where it reads it the same."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return json.loads(text)


# A JSON string without an escape is its text between the quotes (no control character).
_CHARS = r'[^"\\\x00-\x1f]'


def plain_item(layout: Layout) -> re.Pattern[str]:
    """An item as the store writes a case of text fields alone that ``plain_values``
    accepts, its strings without escapes, each text field read in the group it is named
    after (its other fields at their defaults), for a case laid out as ``layout``."""
    return re.compile(
        r"\{"
        + layout.pattern(
            layout.fields[0],
            layout.fields[-1],
            {
                # The fact is a string after "answer" and null after "abstain".
                "expected_behavior": '"(?:answer|(?P<abstain>abstain))"',
                "expected_fact": f'(?(abstain)null|"(?P<expected_fact>{_CHARS}+)")',
                "group": f'(?:"{_CHARS}*"|null)',
                "id": f'"(?P<id>{_CHARS}+)"',
                "question": f'"(?P<question>{_CHARS}*)"',
                "rationale": f'(?:"(?P<rationale>{_CHARS}*)"|null)',
                "slice": f'"(?P<slice>{_CHARS}+)"',
                "source_revision": f'(?:"(?P<source_revision>{_CHARS}*)"|null)',
                "split": '"(?:' + "|".join(SPLITS) + ')"',
                "synthetic": "(?P<synthetic>true|false)",
            },
        )
        + r"\}"
    )


_PLAIN_ITEM = plain_item(LAYOUT)
# Its groups in order, read by position (quicker than by name): the text fields are
# sorted so in any layout, and no other field has a group.
_GROUPS = ("abstain", "expected_fact", "id", "question", "rationale", "slice", "source_revision")
if tuple(_PLAIN_ITEM.groupindex) != (*_GROUPS, "synthetic"):
    raise TypeError(f"the plain item's groups are not in the order read: {_PLAIN_ITEM.groupindex}")

_UNREAD = object()


class CaseAt:
    """A case being reported, from its stored item: its row values and hash made once,
    when first asked, and its ``Case`` made only when a record must be graded."""

    __slots__ = ("_case", "_hash", "_raw", "_text", "head", "id", "synthetic")

    def __init__(
        self,
        raw: Any,
        text: str | None = None,
        known: str | None = None,
        head: tuple[Any, ...] | None = None,
    ) -> None:
        """``text``: the item's text as stored, when it is known; ``known``: the case's
        content hash, when the store kept it; ``head``: its ``plain_values``, when they
        were read off ``text`` (then ``raw`` is parsed from it only if it is asked for)."""
        self._raw = raw
        self._text = text
        self._hash: str | None = known
        self._case: Case | None = None
        if head is None:
            head = plain_values(raw)
        if head is None:
            self._text = None  # its hash is that of the case it is validated as
            case = self.case
            head = (case.id, case.slice, case.synthetic, case.prompt, case.expected_behavior)
            head += (case.expected_fact, case.rationale, case.source_revision)
        self.head: tuple[Any, ...] = head
        """(id, slice, synthetic, prompt, expected_behavior, expected_fact, rationale,
        source_revision): the case's values in a row."""
        self.id: str = head[0]
        self.synthetic: bool = head[2]

    @classmethod
    def of_text(cls, text: str, known: str | None = None) -> CaseAt:
        """``CaseAt(json.loads(text), text, known)``, its values read off ``text`` without
        parsing it when it is written as the store writes a case of text fields alone."""
        found = _PLAIN_ITEM.fullmatch(text)
        if found is None:
            return cls(_parsed(text), text, known)
        _, fact, case_id, question, rationale, part, revision, synthetic = found.groups()
        behavior = "abstain" if fact is None else "answer"
        head = (case_id, part, synthetic == "true", question, behavior, fact, rationale, revision)
        return cls(_UNREAD, text, known, head)

    @property
    def raw(self) -> Any:
        """The stored item, parsed."""
        if self._raw is _UNREAD:
            self._raw = _parsed(self._text)  # type: ignore[arg-type]
        return self._raw

    @property
    def case(self) -> Case:
        if self._case is None:
            self._case = _case_of(self.raw)
        return self._case

    @property
    def hash(self) -> str:
        if self._hash is None:
            if self._text is not None and self._case is None:
                canonical = stored_canonical_text(self._text)
                if canonical is not None:
                    self._hash = f"sha256:{hashlib.sha256(canonical.encode()).hexdigest()}"
                    return self._hash
            if self._case is None:
                bare = _Bare()
                bare.__dict__ = self.raw  # what ``plain_case_text`` reads of a case
                text = plain_case_text(bare)  # type: ignore[arg-type]
                if text is not None:
                    self._hash = f"sha256:{hashlib.sha256(text.encode('utf-8')).hexdigest()}"
                    return self._hash
            self._hash = case_hash(self.case)
        return self._hash


class _Bare:
    """An object whose attributes are a stored case's fields."""


_RUBRIC_JSON = LAYOUT.omitted_texts()
_RUBRIC_LENGTH = sum(map(len, _RUBRIC_JSON))


def stored_canonical_text(stored: str) -> str | None:
    """``canonical_text`` of a case of text fields alone (``plain_values`` read it),
    from its item as the store writes it (``canonical_json`` of its full record): the
    item less its rubric fields at their defaults; None when the item is not written so
    (a string with an escape, which another writer may have written otherwise; another
    spacing)."""
    if "\\" in stored:
        return None
    text = stored
    for field in _RUBRIC_JSON:
        # No string holds an unescaped '"', so this text occurs only as the field.
        text = text.replace(field, "", 1)
    return text if len(text) == len(stored) - _RUBRIC_LENGTH else None


_FIELDS = frozenset(Case.model_fields)


class Defaults(NamedTuple):
    """The fields at their defaults in a case of text fields alone, with their defaults
    as JSON: those that are None, true or false (told by identity, since 0 == False), and
    the others (told by equality); each kind's values read by a getter."""

    singles: Callable[[Any], tuple[Any, ...]]
    single_values: tuple[Any, ...]
    others: Callable[[Any], tuple[Any, ...]]
    other_values: tuple[Any, ...]


def defaults_of(layout: Layout) -> Defaults:
    """The fields at their defaults in a case of text fields alone laid out as ``layout``."""
    value = layout.json_defaults
    singles = tuple(
        n for n in layout.fixed if value[n] is None or value[n] is True or value[n] is False
    )
    others = tuple(n for n in layout.fixed if n not in singles)
    return Defaults(
        _getter(singles),
        tuple(value[n] for n in singles),
        _getter(others),
        tuple(value[n] for n in others),
    )


def _getter(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """``itemgetter(*names)``, giving a tuple for any number of names."""
    if len(names) >= 2:
        return itemgetter(*names)
    return lambda raw: tuple(raw[n] for n in names)


_SINGLES, _SINGLE_VALUES, _OTHERS, _OTHER_VALUES = defaults_of(LAYOUT)


def plain_values(raw: Any) -> tuple[Any, ...] | None:
    """(id, slice, synthetic, prompt, expected_behavior, expected_fact, rationale,
    source_revision) of a stored case of text fields alone that validation accepts, read
    from it directly; None for any other item (it is validated)."""
    if type(raw) is not dict or raw.keys() != _FIELDS:
        return None
    if any(map(is_not, _SINGLES(raw), _SINGLE_VALUES)) or _OTHERS(raw) != _OTHER_VALUES:
        return None
    case_id, part, question = raw["id"], raw["slice"], raw["question"]
    behavior, fact, synthetic = raw["expected_behavior"], raw["expected_fact"], raw["synthetic"]
    if (
        type(case_id) is not str
        or not case_id
        or type(part) is not str
        or not part
        or type(question) is not str
        or (synthetic is not True and synthetic is not False)
        or raw["split"] not in SPLITS
    ):
        return None
    if behavior == "answer":
        if type(fact) is not str or not fact:
            return None
    elif behavior != "abstain" or fact is not None:
        return None
    rationale, revision, group = raw["rationale"], raw["source_revision"], raw["group"]
    if (
        (rationale is not None and type(rationale) is not str)
        or (revision is not None and type(revision) is not str)
        or (group is not None and type(group) is not str)
    ):
        return None
    return (case_id, part, synthetic, question, behavior, fact, rationale, revision)


def _case_of(raw: Any) -> Case:
    """The case a stored snapshot's item is, as ``load_dataset`` makes it."""
    return Case.model_validate(raw)
