"""A tool's JSON Schema from its type hints and docstring (or an explicit one), the state
parameter hidden from the model, and the arguments checked before the tool runs."""

from __future__ import annotations

from typing import Any, Literal, Optional

import pytest
from tests.unit.agents.shop import opaque, untyped

from assay.agents import ToolDefinitionError, tool_from_callable
from assay.agents._tools import doc_parts


def book(
    guest: str,
    nights: int,
    budget: float,
    breakfast: bool,
    room: Literal["single", "double"],
    extras: list[str],
    note: Optional[str] = None,  # noqa: UP045 - the spelling users write
    state: dict[str, Any] | None = None,
) -> str:
    """Book a room.

    Only rooms that are free can be booked.

    Args:
        guest: Who stays.
        nights: How many nights,
            at least one.
        room (str): The kind of room.
        state: never shown.

    Returns:
        The booking's id.
    """
    return "B1"


def test_each_hint_gives_its_json_schema_and_the_docstring_the_descriptions() -> None:
    tool = tool_from_callable(book)
    spec = tool.spec()
    assert spec["type"] == "function"
    function = spec["function"]
    assert function["name"] == "book"
    assert function["description"] == "Book a room. Only rooms that are free can be booked."
    props = function["parameters"]["properties"]
    assert props["guest"] == {"type": "string", "description": "Who stays."}
    assert props["nights"] == {"type": "integer", "description": "How many nights, at least one."}
    assert props["budget"] == {"type": "number"}
    assert props["breakfast"] == {"type": "boolean"}
    assert props["room"] == {
        "type": "string",
        "enum": ["single", "double"],
        "description": "The kind of room.",
    }
    assert props["extras"] == {"type": "array", "items": {"type": "string"}}
    assert props["note"] == {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None}
    assert function["parameters"]["required"] == [
        "guest",
        "nights",
        "budget",
        "breakfast",
        "room",
        "extras",
    ]
    assert function["parameters"]["additionalProperties"] is False


def test_the_state_parameter_is_never_shown_to_the_model() -> None:
    tool = tool_from_callable(book)
    assert tool.wants_state
    assert "state" not in tool.parameters["properties"]
    assert "state" not in tool.parameters["required"]
    assert "never shown" not in str(tool.spec())


def test_arguments_are_checked_against_the_hints() -> None:
    tool = tool_from_callable(book)
    good = {"guest": "Ada", "nights": "2", "budget": 90, "breakfast": True}
    kwargs = tool.checked({**good, "room": "double", "extras": []})
    assert kwargs["nights"] == 2 and kwargs["budget"] == 90.0 and kwargs["note"] is None
    with pytest.raises(ValueError, match="missing required argument 'room'"):
        tool.checked({**good, "extras": []})
    with pytest.raises(ValueError, match="room: Input should be 'single' or 'double'"):
        tool.checked({**good, "room": "suite", "extras": []})
    with pytest.raises(ValueError, match="takes no argument 'pets'"):
        tool.checked({**good, "room": "single", "extras": [], "pets": 2})


def test_an_explicit_schema_replaces_the_derived_one_and_checks_required_names() -> None:
    schema = {
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
        "required": ["a", "b"],
    }

    def add(a, b):  # type: ignore[no-untyped-def]
        return a + b

    tool = tool_from_callable(add, name="plus", description="Add.", schema=schema)
    assert tool.spec() == {
        "type": "function",
        "function": {"name": "plus", "description": "Add.", "parameters": schema},
    }
    assert tool.checked({"a": 1, "b": 2}) == {"a": 1, "b": 2}
    with pytest.raises(ValueError, match="missing required argument 'b'"):
        tool.checked({"a": 1})
    with pytest.raises(ValueError, match="unexpected keyword argument 'c'"):
        tool.checked({"a": 1, "b": 2, "c": 3})


def unresolved(thing: Missing) -> str:  # type: ignore[name-defined]  # noqa: F821
    """A hint naming nothing."""
    return ""


def test_hints_that_cannot_be_schemad_are_refused_saying_why() -> None:
    def spread(*ids: str) -> str:
        return ""

    with pytest.raises(ToolDefinitionError, match="has no JSON Schema"):
        tool_from_callable(opaque)
    with pytest.raises(ToolDefinitionError, match="parameter order_id has no type hint"):
        tool_from_callable(untyped)
    with pytest.raises(ToolDefinitionError, match=r"parameter \*ids"):
        tool_from_callable(spread)
    with pytest.raises(ToolDefinitionError, match="NameError: name 'Missing' is not defined"):
        tool_from_callable(unresolved)
    with pytest.raises(ToolDefinitionError, match="is not a tool name"):
        tool_from_callable(book, name="book a room")


def test_docstring_sections_split_the_description_from_the_parameters() -> None:
    summary, params = doc_parts(
        """Start a return.

        Args:
            order_id (str): The order.
            **options: Ignored.
        Raises:
            LookupError: not a parameter.
        """
    )
    assert summary == "Start a return."
    assert params == {"order_id": "The order.", "options": "Ignored."}
