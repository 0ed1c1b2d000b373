"""A case's stored layout is derived from ``Case``: every field is named in it, in the
order ``canonical_json`` writes them, with its default's JSON text, and a model with a
field more is laid out with it, left out of the canonical record at its default."""

from __future__ import annotations

import json

from assay.cases import (
    LAYOUT,
    RUBRIC_FIELDS,
    Case,
    Layout,
    canonical_json,
    canonical_record,
    plain_canonical_text,
    plain_case,
    plain_case_text,
)


class _Wider(Case):
    """A case with three optional fields more: one sorted first, one among the text fields
    and one last."""

    abandoned: bool = False
    hints: tuple[str, ...] = ()
    zone: str | None = None


_PLAIN = {"id": "c1", "slice": "s", "question": "Q?", "expected_behavior": "answer"}
_PLAIN |= {"expected_fact": "f", "group": "g", "rationale": "r", "source_revision": "v1"}


def test_every_field_of_a_case_is_named_in_its_layout_in_written_order() -> None:
    record = Case.model_validate(_PLAIN).model_dump(mode="json")
    assert LAYOUT.fields == tuple(json.loads(canonical_json(record)))
    assert set(LAYOUT.fields) == set(Case.model_fields)
    defaults = {n for n, f in Case.model_fields.items() if not f.is_required()}
    assert set(LAYOUT.json_defaults) == defaults
    assert set(LAYOUT.fixed) | LAYOUT.plain == set(Case.model_fields)


def test_the_fields_left_out_at_their_defaults_are_the_rubric_fields() -> None:
    assert LAYOUT.omitted == RUBRIC_FIELDS
    assert set(canonical_record(Case.model_validate(_PLAIN))) == set(Case.model_fields) - set(
        RUBRIC_FIELDS
    )


def test_the_omitted_fields_text_is_what_the_full_record_holds_at_their_defaults() -> None:
    full = canonical_json(Case.model_validate(_PLAIN).model_dump(mode="json"))
    for piece in LAYOUT.omitted_texts():
        assert full.count(piece) == 1
    assert ',"requires_citation":false' in "".join(LAYOUT.omitted_texts())


def test_a_field_more_is_laid_out_and_left_out_at_its_default() -> None:
    wide = Layout.of(_Wider)
    assert wide.fields == tuple(sorted(_Wider.model_fields))
    assert wide.omitted[-3:] == ("abandoned", "hints", "zone")
    assert {wide.text("abandoned"), wide.text("hints"), wide.text("zone")} == {
        "false",
        "[]",
        "null",
    }
    full = canonical_json(_Wider.model_validate(_PLAIN).model_dump(mode="json"))
    canonical = full
    for piece in wide.omitted_texts():
        assert full.count(piece) == 1
        canonical = canonical.replace(piece, "")
    assert canonical == canonical_json(canonical_record(Case.model_validate(_PLAIN)))


def test_the_plain_texts_write_the_layout_s_fields_less_those_left_out() -> None:
    written = tuple(n for n in LAYOUT.fields if n not in LAYOUT.omitted)
    text = plain_case_text(Case.model_validate(_PLAIN))
    assert text is not None
    assert tuple(json.loads(text)) == written
    plain = plain_case(_PLAIN, {})
    assert plain is not None
    assert tuple(json.loads(plain_canonical_text(plain))) == written
