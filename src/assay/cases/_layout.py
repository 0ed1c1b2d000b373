"""A case's stored layout: the one description, derived from ``Case``, that the forms
reading or writing a case's JSON by position are made from (which fields a plain case
leaves at their defaults, the text of those left out of its canonical record, the
patterns that read a stored snapshot), so that a new optional field needs no edit to any
of them."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from assay.cases._case import Case
from assay.cases._plain import _PLAIN_KEYS

# The canonical record's fields from the start: each is written even at its default. Any
# other field is left out at its default, so that adding one keeps every dataset's version.
_ALWAYS_WRITTEN = frozenset(
    {"id", "slice", "question", "messages", "source_revision", "expected_behavior"}
    | {"expected_fact", "accepted_facts", "rationale", "synthetic", "split", "group", "metadata"}
)
# The fields every stored snapshot has had since cases could carry a rubric: a snapshot
# written before any other field existed lacks it.
_SINCE_RUBRIC = _ALWAYS_WRITTEN | {
    "required",
    "disallowed",
    "requires_citation",
    "sources",
    "provenance",
}


@dataclass(frozen=True, slots=True)
class Layout:
    """Where each field of a case is in its JSON as ``canonical_json`` writes it."""

    fields: tuple[str, ...]
    """Every field, in the (sorted) order ``canonical_json`` writes them."""
    defaults: Mapping[str, Any]
    """Each field's default, for the fields with a default that is not made by a factory."""
    json_defaults: Mapping[str, Any]
    """Each field's default as JSON data, for every field with a default."""
    omitted: tuple[str, ...]
    """The fields left out of the canonical record at their defaults, in declaration order."""
    plain: frozenset[str]
    """The fields a case of text fields alone may set."""
    known: frozenset[str]
    """The fields every stored snapshot has (those since the rubric)."""

    @classmethod
    def of(cls, model: type[BaseModel]) -> Layout:
        """The layout of ``model``'s records (``Case`` or a model with its fields and more)."""
        defaults: dict[str, Any] = {}
        json_defaults: dict[str, Any] = {}
        for name, field in model.model_fields.items():
            if field.is_required():
                continue
            if field.default_factory is None:
                defaults[name] = field.default
            json_defaults[name] = json.loads(
                json.dumps(field.get_default(call_default_factory=True))
            )
        return cls(
            fields=tuple(sorted(model.model_fields)),
            defaults=defaults,
            json_defaults=json_defaults,
            omitted=tuple(n for n in model.model_fields if n not in _ALWAYS_WRITTEN),
            plain=_PLAIN_KEYS,
            known=_SINCE_RUBRIC,
        )

    def text(self, name: str) -> str:
        """The JSON text of field ``name``'s default, as ``canonical_json`` writes it."""
        return json.dumps(self.json_defaults[name], sort_keys=True, separators=(",", ":"))

    @property
    def fixed(self) -> tuple[str, ...]:
        """The fields at their defaults in a case of text fields alone, in sorted order."""
        return tuple(name for name in self.fields if name not in self.plain)

    def omitted_texts(self) -> tuple[str, ...]:
        """The text of the omitted fields at their defaults in a full record's JSON, each
        run of neighbouring ones as one piece, with the comma that joins it to the rest."""
        pieces: list[str] = []
        run: list[str] = []
        for i, name in enumerate((*self.fields, "")):
            if name in self.omitted:
                run.append(f'"{name}":{self.text(name)}')
            elif run:
                at_start = i == len(run)
                joined = ",".join(run)
                pieces.append(joined + "," if at_start else "," + joined)
                run = []
        return tuple(pieces)

    def pattern(
        self, first: str, last: str, values: Mapping[str, str], *, older: bool = False
    ) -> str:
        """A regex of the fields from ``first`` to ``last`` as ``canonical_json`` writes
        them: each named in ``values`` by its value's regex there, any other at its default.
        With ``older``, a field not in ``known`` may also be absent (a snapshot written
        before it existed)."""
        if older and first not in self.known:
            raise ValueError(f"a pattern of older snapshots starts at a field they have: {first}")
        names = self.fields[self.fields.index(first) : self.fields.index(last) + 1]
        parts: list[str] = []
        for i, name in enumerate(names):
            value = values.get(name)
            piece = re.escape(f'{"," if i else ""}"{name}":') + (
                re.escape(self.text(name)) if value is None else value
            )
            parts.append(f"(?:{piece})?" if older and name not in self.known else piece)
        return "".join(parts)


LAYOUT = Layout.of(Case)
"""The layout of a ``Case``."""

RUBRIC_FIELDS: tuple[str, ...] = LAYOUT.omitted
"""The rubric's fields and the agent's (state, expect): left at their defaults, each stays
out of a case's canonical record, so a dataset that uses none of them keeps its version."""
