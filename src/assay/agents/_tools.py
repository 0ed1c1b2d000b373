"""Tools an agent may call: a Python callable, the JSON Schema the model sees for it, and how
a call's arguments are checked before it runs.

A tool's schema comes from its signature: each parameter's type hint gives its JSON
Schema, a default makes it optional, and the docstring gives the tool's description (the
text before its first section) and each parameter's (its ``Args:`` section). A parameter
named ``state`` is the case-trial's state, passed in by the loop and never shown to the
model. An explicit schema replaces the derived one; the call's arguments are then checked
against its required properties and the function's signature.
"""

from __future__ import annotations

import inspect
import re
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

STATE_PARAMETER = "state"
TOOL_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_SECTION = re.compile(
    r"^\s*(Args|Arguments|Parameters|Returns|Yields|Raises|Examples?|Notes?|Attributes)\s*:\s*$"
)
_ARG_LINE = re.compile(r"^(\*{0,2}\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$")


class Refused(Exception):
    """Raised by a tool to decline the operation (outside a policy, not allowed): the call
    is recorded as ``refused`` and the message is shown to the model."""


class ToolDefinitionError(ValueError):
    """A tool cannot be offered to a model: its name, signature or hints cannot be schema'd."""


@dataclass(frozen=True)
class Tool:
    """A callable offered to the model under ``name``, with the JSON Schema of its
    arguments; ``wants_state`` when it takes the case-trial's state."""

    name: str
    description: str
    parameters: dict[str, Any]
    func: Callable[..., Any]
    wants_state: bool
    arguments_model: type[BaseModel] | None = None

    def spec(self) -> dict[str, Any]:
        """The tool as the chat-completions API takes it."""
        function: dict[str, Any] = {"name": self.name, "parameters": self.parameters}
        if self.description:
            function["description"] = self.description
        return {"type": "function", "function": function}

    def checked(self, arguments: Mapping[str, Any]) -> dict[str, Any]:
        """The keyword arguments to call the function with (``state`` aside).

        Raises ``ValueError`` saying what does not fit: a missing required parameter, one
        the tool does not take, or a value of the wrong type.
        """
        if self.arguments_model is not None:
            try:
                parsed = self.arguments_model.model_validate(dict(arguments))
            except ValidationError as err:
                raise ValueError(_first_problem(err)) from None
            return {
                str(f.alias): getattr(parsed, key) for key, f in type(parsed).model_fields.items()
            }
        missing = [
            name
            for name in self.parameters.get("required", ())
            if isinstance(name, str) and name not in arguments
        ]
        if missing:
            raise ValueError(f"missing required argument {missing[0]!r}")
        signature = _signature(self.func)
        given = dict(arguments)
        if self.wants_state:
            given[STATE_PARAMETER] = None
        try:
            signature.bind(**given)
        except TypeError as err:
            raise ValueError(str(err)) from None
        return dict(arguments)


def _first_problem(err: ValidationError) -> str:
    first = err.errors(include_url=False)[0]
    where = ".".join(str(p) for p in first["loc"])
    if first["type"] == "extra_forbidden":
        return f"the tool takes no argument {where!r}"
    if first["type"] == "missing":
        return f"missing required argument {where!r}"
    return f"{where}: {first['msg']}" if where else str(first["msg"])


def _signature(func: Callable[..., Any]) -> inspect.Signature:
    try:
        return inspect.signature(func)
    except (TypeError, ValueError) as err:
        raise ToolDefinitionError(f"its signature cannot be read: {err}") from None


def doc_parts(doc: str | None) -> tuple[str, dict[str, str]]:
    """A docstring's description (the text before its first section, on one line) and the
    description of each parameter its ``Args:`` section lists."""
    lines = inspect.cleandoc(doc or "").splitlines()
    summary: list[str] = []
    params: dict[str, str] = {}
    section: str | None = None
    current: str | None = None
    indent: int | None = None
    for line in lines:
        header = _SECTION.match(line)
        if header:
            section, current, indent = header.group(1).lower(), None, None
            continue
        if section is None:
            summary.append(line.strip())
            continue
        if section not in ("args", "arguments", "parameters") or not line.strip():
            continue
        depth = len(line) - len(line.lstrip())
        item = _ARG_LINE.match(line.strip())
        if item and (indent is None or depth <= indent):
            indent = depth
            current = item.group(1).lstrip("*")
            params[current] = item.group(2).strip()
        elif current is not None:
            params[current] = f"{params[current]} {line.strip()}".strip()
    paragraphs = " ".join(summary).strip()
    return re.sub(r"\s+", " ", paragraphs), params


def _hints(func: Callable[..., Any]) -> dict[str, Any]:
    target = func if inspect.isfunction(func) or inspect.ismethod(func) else type(func).__call__
    try:
        return typing.get_type_hints(target)
    except Exception as err:  # a hint naming something that does not exist, or bad syntax
        raise ToolDefinitionError(
            f"its type hints cannot be read: {type(err).__name__}: {err}"
        ) from None


def tool_from_callable(
    func: Callable[..., Any],
    name: str | None = None,
    description: str | None = None,
    schema: Mapping[str, Any] | None = None,
) -> Tool:
    """The tool ``func`` makes, its schema derived from its hints and docstring unless
    ``schema`` is given. Raises ``ToolDefinitionError`` saying what cannot be offered."""
    found_name = name or getattr(func, "__name__", None) or type(func).__name__
    if not TOOL_NAME.match(found_name):
        raise ToolDefinitionError(
            f"{found_name!r} is not a tool name (1-64 letters, digits, _ or -): give name:"
        )
    summary, documented = doc_parts(inspect.getdoc(func))
    signature = _signature(func)
    params = signature.parameters
    wants_state = STATE_PARAMETER in params
    if schema is not None:
        if schema.get("type", "object") != "object":
            raise ToolDefinitionError('schema: a tool\'s arguments schema has "type": "object"')
        return Tool(found_name, description or summary, dict(schema), func, wants_state)
    hints = _hints(func)
    fields: dict[str, Any] = {}
    for index, param in enumerate(params.values()):
        if param.name == STATE_PARAMETER:
            continue
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            raise ToolDefinitionError(
                f"parameter *{param.name}: a tool's parameters are named; give schema: instead"
            )
        if param.kind == param.POSITIONAL_ONLY:
            raise ToolDefinitionError(f"parameter {param.name} is positional-only")
        if param.name not in hints:
            raise ToolDefinitionError(
                f"parameter {param.name} has no type hint (its JSON Schema comes from it)"
            )
        default = ... if param.default is param.empty else param.default
        fields[f"p{index}"] = (
            hints[param.name],
            Field(default, alias=param.name, description=documented.get(param.name)),
        )
    try:
        model: type[BaseModel] = create_model(
            f"{found_name}_arguments",
            __config__=ConfigDict(extra="forbid", arbitrary_types_allowed=False),
            **fields,
        )
        parameters = model.model_json_schema()
    except Exception as err:  # pydantic cannot build a schema for one of the hints
        raise ToolDefinitionError(
            f"a type hint has no JSON Schema ({type(err).__name__}: {_short(err)}); "
            "use JSON types (str, int, float, bool, Literal, list, dict, Optional) or give schema:"
        ) from None
    return Tool(
        found_name,
        description or summary,
        _without_titles(parameters),
        func,
        wants_state,
        model,
    )


def _short(err: Exception) -> str:
    return str(err).splitlines()[0] if str(err) else type(err).__name__


def _without_titles(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema without pydantic's generated titles (noise to a model)."""
    found = {k: v for k, v in schema.items() if k != "title"}
    properties = found.get("properties")
    if isinstance(properties, dict):
        found["properties"] = {
            key: {k: v for k, v in value.items() if k != "title"}
            if isinstance(value, dict)
            else value
            for key, value in properties.items()
        }
    return found
