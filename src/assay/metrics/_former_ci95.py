"""The interval field ``ci``, formerly ``ci95``: read under either name, written under both
until ``ci95`` is removed (it held the interval at whatever level, not only at 95%)."""

from __future__ import annotations

import warnings
from typing import Any

from pydantic import BaseModel, SerializerFunctionWrapHandler, model_serializer, model_validator
from pydantic.json_schema import JsonSchemaValue

CI95_REMOVED_IN = "0.3.0"
"""The release without ``ci95``: the Python property and the JSON key both go."""

_CI95_SAYS = (
    "the same interval as `ci`, under its former name; deprecated, removed in assay "
    f"{CI95_REMOVED_IN}: read `ci`"
)


def _pair(value: Any) -> Any:
    return tuple(value) if isinstance(value, list | tuple) else value


class FormerCi95(BaseModel):
    """A model whose field ``ci`` (an interval) was named ``ci95``.

    Input may carry ``ci95`` instead of ``ci`` (a report written by an older assay); the JSON
    output carries both keys, ``ci95`` right after ``ci``, and its schema marks ``ci95``
    deprecated. Reading ``.ci95`` in Python warns (``DeprecationWarning``).
    """

    @model_validator(mode="before")
    @classmethod
    def _ci_from_ci95(cls, data: Any) -> Any:
        if isinstance(data, dict) and "ci95" in data:
            data = dict(data)
            former = data.pop("ci95")
            if "ci" not in data:
                data["ci"] = former
            elif _pair(data["ci"]) != _pair(former):
                raise ValueError(f"ci is {data['ci']} but ci95 (its former name) is {former}")
        return data

    @model_serializer(mode="wrap")
    def _ci95_beside_ci(self, handler: SerializerFunctionWrapHandler) -> Any:
        out = handler(self)
        if not isinstance(out, dict) or "ci" not in out:
            return out
        written: dict[str, Any] = {}
        for key, value in out.items():
            written[key] = value
            if key == "ci":
                written["ci95"] = value
        return written

    @classmethod
    def __get_pydantic_json_schema__(cls, core_schema: Any, handler: Any) -> JsonSchemaValue:
        # The schema of the fields as they are, not of the serializer's return value (Any).
        fields = {key: value for key, value in core_schema.items() if key != "serialization"}
        schema: JsonSchemaValue = handler(fields)
        target = handler.resolve_ref_schema(schema)
        properties = target.get("properties")
        if isinstance(properties, dict) and "ci" in properties:
            listed: dict[str, Any] = {}
            for key, value in properties.items():
                listed[key] = value
                if key == "ci":
                    listed["ci95"] = {
                        **value,
                        "title": "Ci95",
                        "deprecated": True,
                        "description": _CI95_SAYS,
                    }
            target["properties"] = listed
            if handler.mode == "serialization" and "ci" in target.get("required", ()):
                required = list(target["required"])
                required.insert(required.index("ci") + 1, "ci95")
                target["required"] = required
        return schema

    @property
    def ci95(self) -> tuple[float, float] | None:
        """Deprecated: the field ``ci`` (removed in assay 0.3.0)."""
        warnings.warn(
            f"{type(self).__name__}.ci95 is deprecated and goes in assay {CI95_REMOVED_IN}; "
            "read .ci (the same interval)",
            DeprecationWarning,
            stacklevel=2,
        )
        ci: tuple[float, float] | None = getattr(self, "ci")  # noqa: B009
        return ci
