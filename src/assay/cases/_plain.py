"""The usual case read from its decoded line without making a ``Case``: what a report's
row and the dataset's version read of it, for a report of a million cases."""

from __future__ import annotations

from json.encoder import encode_basestring
from typing import Any, NamedTuple

from assay.cases._parse import _PLAIN_KEYS, _SPLITS


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


def plain_case(raw: dict[str, Any], shared: dict[str, str]) -> PlainCase | None:
    """The case ``_plain_case(raw, shared)`` makes, as a ``PlainCase`` (the repeated labels
    one string object per value, the one ``shared`` holds); None when it makes none."""
    if not raw.keys() <= _PLAIN_KEYS:
        return None
    get = raw.get
    case_id, part, question = get("id"), get("slice"), get("question")
    synthetic, split = get("synthetic", False), get("split", "dev")
    if (
        type(case_id) is not str
        or not case_id
        or type(part) is not str
        or not part
        or type(question) is not str
        or type(synthetic) is not bool
        or split not in _SPLITS
    ):
        return None
    behavior, fact = get("expected_behavior"), get("expected_fact")
    if behavior == "answer":
        if type(fact) is not str or not fact:
            return None
    elif behavior != "abstain" or fact is not None:
        return None
    revision, rationale, group = get("source_revision"), get("rationale"), get("group")
    for value in (revision, rationale, group):
        if value is not None and type(value) is not str:
            return None
    share = shared.setdefault
    return PlainCase(
        case_id,
        share(part, part),
        question,
        revision,
        share(behavior, behavior),
        fact if fact is None else share(fact, fact),
        rationale if rationale is None else share(rationale, rationale),
        synthetic,
        split,
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
