"""The canonical form of a case and the content hash that versions a dataset."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from json.encoder import encode_basestring
from operator import itemgetter
from typing import Any

from assay.cases._case import Case
from assay.cases._layout import LAYOUT, RUBRIC_FIELDS


def canonical_record(case: Case) -> dict[str, Any]:
    """The case as plain JSON data with every field present, defaults included.

    Writing a default explicitly or leaving it out gives the same record, so the same
    labels always hash the same. The optional rubric fields are the exception: left at
    their defaults they are omitted, so adding rubric support kept every existing
    dataset's version; set, they are part of the record and change the version.
    """
    record = case.model_dump(mode="json")
    for name, default in _RUBRIC_DEFAULTS:
        if getattr(case, name) == default:
            record.pop(name, None)
    return record


# Looked up once: resolving a pydantic default costs more than the rest of a record.
_RUBRIC_DEFAULTS: tuple[tuple[str, object], ...] = tuple(
    (name, Case.model_fields[name].get_default(call_default_factory=True)) for name in RUBRIC_FIELDS
)


def canonical_json(value: Any) -> str:
    """Key-sorted, whitespace-free JSON: the same data always gives the same text."""
    return _CANONICAL.encode(value)


# json.dumps with these options, made once rather than once per call.
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def content_hash(value: Any) -> str:
    """``sha256:<hex>`` of the canonical JSON of ``value``."""
    digest = hashlib.sha256(canonical_json(value).encode("utf-8")).hexdigest()
    return f"sha256:{digest}"


def dataset_version(cases: Iterable[Case]) -> str:
    """The dataset version: the content hash of its cases' canonical records, in order."""
    return hash_cases(cases)[0]


def hash_cases(cases: Iterable[Case]) -> tuple[str, list[str]]:
    """The dataset version and each case's ``case_hash``, in one pass.

    The version is the content hash of the JSON list of canonical records; the list's text
    is hashed piece by piece (``[``, the records joined by ``,``, ``]``: what
    ``canonical_json`` writes for a list), never held whole.
    """
    whole = hashlib.sha256(b"[")
    hashes: list[str] = []
    for i, case in enumerate(cases):
        text = canonical_text(case).encode("utf-8")
        whole.update(b"," + text if i else text)
        hashes.append(f"sha256:{hashlib.sha256(text).hexdigest()}")
    whole.update(b"]")
    return f"sha256:{whole.hexdigest()}", hashes


def case_hash(case: Case) -> str:
    """The content hash of one case's definition, used to pair cases across runs."""
    digest = hashlib.sha256(canonical_text(case).encode("utf-8")).hexdigest()
    return f"sha256:{digest}"


def canonical_text(case: Case) -> str:
    """``canonical_json(canonical_record(case))``: the text a case's hash is taken of."""
    return plain_case_text(case) or canonical_json(canonical_record(case))


def plain_case_text(case: Case) -> str | None:
    """The canonical text of a case of text fields alone (no messages, metadata or
    rubric: the usual case), written field by field in key order, which is several times
    quicker than encoding its record; None for any other case."""
    v = case.__dict__
    if _AT_DEFAULT(v) != _DEFAULT_VALUES:
        return None
    facts = v["accepted_facts"]
    return "".join(
        (
            '{"accepted_facts":[',
            ",".join(map(encode_basestring, facts)) if facts else "",
            '],"expected_behavior":',
            encode_basestring(v["expected_behavior"]),
            ',"expected_fact":',
            "null" if v["expected_fact"] is None else encode_basestring(v["expected_fact"]),
            ',"group":',
            "null" if v["group"] is None else encode_basestring(v["group"]),
            ',"id":',
            encode_basestring(v["id"]),
            ',"messages":null,"metadata":{},"question":',
            "null" if v["question"] is None else encode_basestring(v["question"]),
            ',"rationale":',
            "null" if v["rationale"] is None else encode_basestring(v["rationale"]),
            ',"slice":',
            encode_basestring(v["slice"]),
            ',"source_revision":',
            "null" if v["source_revision"] is None else encode_basestring(v["source_revision"]),
            ',"split":',
            encode_basestring(v["split"]),
            ',"synthetic":',
            "true" if v["synthetic"] else "false",
            "}",
        )
    )


# The fields ``plain_case_text`` writes at their defaults (all but the text fields and the
# accepted facts), read together, and their defaults.
_AT_DEFAULT_FIELDS = tuple(n for n in LAYOUT.fixed if n != "accepted_facts")
_AT_DEFAULT = itemgetter(*_AT_DEFAULT_FIELDS)
_DEFAULT_VALUES = tuple(
    Case.model_fields[n].get_default(call_default_factory=True) for n in _AT_DEFAULT_FIELDS
)
