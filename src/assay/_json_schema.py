"""The JSON Schemas assay publishes (report, comparison, composite, matrix, calibration,
trend), each generated from its model in one way."""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel

DIALECT = "https://json-schema.org/draft/2020-12/schema"


def _every_key_required(node: dict[str, Any]) -> dict[str, Any]:
    if isinstance(node.get("properties"), dict):
        node["required"] = list(node["properties"])
    return node


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
    each nested one: for output that writes every field (null when empty), so a consumer
    may rely on each key being present."""
    schema = model.model_json_schema(mode="serialization")
    if every_key_required:
        schema["$defs"] = {k: _every_key_required(v) for k, v in schema.get("$defs", {}).items()}
        _every_key_required(schema)
    head: dict[str, Any] = {"$schema": DIALECT}
    if name is not None:
        head["$id"] = f"https://assay.invalid/schemas/{name}-v{version}.json"
    return {**head, **schema, **({"title": title} if title is not None else {})}


def schema_text(schema: dict[str, Any]) -> str:
    """A schema file's exact contents: sorted keys, two-space indents, UTF-8 as it is."""
    return json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


__all__ = ["DIALECT", "model_schema", "schema_text"]
