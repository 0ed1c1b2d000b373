"""The JSON Schemas assay publishes (report, comparison, composite, matrix, calibration,
trend), each generated from its model in one way, and the one rule of their shape.

The rule: a block (a key whose value is an object: a section of a report, a row's agent
counts) that does not apply is omitted, never written as null; a field marks such a block
with ``exclude_if=does_not_apply``, and the schema does not require its key. A value that
applies but is not known (an outcome missing, an interval with no data) is written as null.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import GenerateJsonSchema
from pydantic_core import core_schema

DIALECT = "https://json-schema.org/draft/2020-12/schema"


def does_not_apply(value: object) -> bool:
    """Whether a block is left out of the JSON (a field's ``exclude_if``): it is when it
    does not apply (None)."""
    return value is None


class _EveryKeyWritten(GenerateJsonSchema):
    """Requires every key of every object, but for the blocks omitted when they do not
    apply (a field with ``exclude_if``)."""

    def field_is_required(
        self,
        field: core_schema.ModelField | core_schema.DataclassField | core_schema.TypedDictField,
        total: bool,
    ) -> bool:
        return field.get("serialization_exclude_if") is None


def model_schema(
    model: type[BaseModel],
    *,
    name: str | None = None,
    version: int | str | None = None,
    title: str | None = None,
    every_key_required: bool = False,
) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of ``model`` as it is serialised, identified as
    ``https://assay.invalid/schemas/{name}-v{version}.json`` when ``name`` is given.

    With ``every_key_required``, every object's keys are required, in the model and in
    each nested one, but for the blocks omitted when they do not apply: for output that
    writes every other field (null when not known), so a consumer may rely on each such
    key being present."""
    if every_key_required:
        schema = model.model_json_schema(mode="serialization", schema_generator=_EveryKeyWritten)
    else:
        schema = model.model_json_schema(mode="serialization")
    head: dict[str, Any] = {"$schema": DIALECT}
    if name is not None:
        head["$id"] = f"https://assay.invalid/schemas/{name}-v{version}.json"
    return {**head, **schema, **({"title": title} if title is not None else {})}


def schema_text(schema: dict[str, Any]) -> str:
    """A schema file's exact contents: sorted keys, two-space indents, UTF-8 as it is."""
    return json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


__all__ = ["DIALECT", "does_not_apply", "model_schema", "schema_text"]
