"""The usual case read from its decoded line without making a ``Case``: what a report's
row and the dataset's version read of it, for a report of a million cases."""

from __future__ import annotations

from json.encoder import encode_basestring
from typing import Any, NamedTuple

_PLAIN_KEYS = frozenset(
    {"id", "slice", "question", "source_revision", "expected_behavior", "expected_fact"}
    | {"rationale", "synthetic", "split", "group"}
)
SPLITS = ("dev", "heldout")
_OPTIONAL_TEXT = ("source_revision", "rationale", "group")


class PlainCase(NamedTuple):
    """The fields of a case of text fields alone (``_plain_case``'s case, which has no
    accepted facts, messages, metadata or rubric), with ``Case``'s ``prompt`` and
    ``facts``."""

    id: str
    slice: str
    question: str
    source_revision: str | None
    expected_behavior: str
    expected_fact: str | None
    rationale: str | None
    synthetic: bool
    split: str
    group: str | None

    @property
    def prompt(self) -> str:
        """The question."""
        return self.question

    @property
    def facts(self) -> frozenset[str]:
        """The expected fact, when there is one."""
        return frozenset() if self.expected_fact is None else frozenset((self.expected_fact,))


def usual_case(raw: dict[str, Any]) -> bool:
    """Whether a decoded case line is of text fields alone that validation would accept
    (the usual case line), told without validating it."""
    if not raw.keys() <= _PLAIN_KEYS:
        return False
    get = raw.get
    case_id, part, question = get("id"), get("slice"), get("question")
    if (
        type(case_id) is not str
        or not case_id
        or type(part) is not str
        or not part
        or type(question) is not str
        or type(get("synthetic", False)) is not bool
        or get("split", "dev") not in SPLITS
    ):
        return False
    behavior, fact = get("expected_behavior"), get("expected_fact")
    if behavior == "answer":
        if type(fact) is not str or not fact:
            return False
    elif behavior != "abstain" or fact is not None:
        return False
    for name in _OPTIONAL_TEXT:
        value = get(name)
        if value is not None and type(value) is not str:
            return False
    return True


def plain_case(raw: dict[str, Any], shared: dict[str, str]) -> PlainCase | None:
    """The usual case line (``usual_case``) as a ``PlainCase``, its repeated labels one
    string object per value, the one ``shared`` holds; None for any other line."""
    if not usual_case(raw):
        return None
    get = raw.get
    part, behavior, fact = raw["slice"], raw["expected_behavior"], get("expected_fact")
    rationale, group = get("rationale"), get("group")
    share = shared.setdefault
    return PlainCase(
        raw["id"],
        share(part, part),
        raw["question"],
        get("source_revision"),
        share(behavior, behavior),
        fact if fact is None else share(fact, fact),
        rationale if rationale is None else share(rationale, rationale),
        get("synthetic", False),
        get("split", "dev"),
        group if group is None else share(group, group),
    )


def plain_canonical_text(case: PlainCase) -> str:
    """``canonical_text`` of the ``Case`` ``case`` stands for."""
    return "".join(
        (
            '{"accepted_facts":[],"expected_behavior":',
            encode_basestring(case.expected_behavior),
            ',"expected_fact":',
            "null" if case.expected_fact is None else encode_basestring(case.expected_fact),
            ',"group":',
            "null" if case.group is None else encode_basestring(case.group),
            ',"id":',
            encode_basestring(case.id),
            ',"messages":null,"metadata":{},"question":',
            encode_basestring(case.question),
            ',"rationale":',
            "null" if case.rationale is None else encode_basestring(case.rationale),
            ',"slice":',
            encode_basestring(case.slice),
            ',"source_revision":',
            "null" if case.source_revision is None else encode_basestring(case.source_revision),
            ',"split":',
            encode_basestring(case.split),
            ',"synthetic":',
            "true" if case.synthetic else "false",
            "}",
        )
    )
