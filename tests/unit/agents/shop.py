"""Tools of a small shop for the agent tests: a counter, orders kept in the case-trial's
state, a lookup that fails, a cancellation that can be refused, and a slow tool."""

from __future__ import annotations

import time
from typing import Any

from assay.agents import Refused


def bump(state: dict[str, Any]) -> int:
    """Add one to the counter in the state.

    Returns:
        The new count.
    """
    state["count"] += 1
    return int(state["count"])


def lookup(order_id: str) -> dict[str, Any]:
    """Look an order up.

    Args:
        order_id: The order's id, e.g. A1001.
    """
    if order_id != "A1001":
        raise LookupError(f"no order {order_id}")
    return {"order_id": order_id, "status": "delivered"}


def cancel(order_id: str, state: dict[str, Any]) -> str:
    """Cancel an order that has not shipped.

    Args:
        order_id: The order to cancel.
    """
    order = state["orders"][order_id]
    if order == "shipped":
        raise Refused(f"order {order_id} has shipped; it cannot be cancelled")
    state["orders"][order_id] = "cancelled"
    return "cancelled"


def add(a: int, b: int) -> int:
    """Add two numbers.

    Args:
        a: The first number.
        b: The second number.
    """
    return a + b


def slow(seconds: float) -> str:
    """Wait, then say so.

    Args:
        seconds: How long to wait.
    """
    time.sleep(seconds)
    return "done"


def untyped(order_id):  # type: ignore[no-untyped-def]
    """A tool whose parameter has no hint."""
    return order_id


class Opaque:
    """Something without a JSON Schema."""


def opaque(thing: Opaque) -> str:
    """A tool whose parameter has no JSON Schema."""
    return str(thing)


def adding_model(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> dict[str, Any]:
    """A scripted model: asks ``add`` for 1 + 2 (arguments as an object), then answers with
    the tool's result."""
    results = [m for m in messages if m["role"] == "tool"]
    if not results:
        call = {"function": {"name": "add", "arguments": {"a": 1, "b": 2}}}
        return {"content": None, "tool_calls": [call]}
    return {"content": f"It is {results[-1]['content']}."}


def failing_model(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Any:
    """A model whose call fails."""
    raise ConnectionResetError("the model went away")


def wordy_model(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Any:
    """A model that returns a bare string, not a message."""
    return "It is 3."


def slow_model(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Any:
    """A model that takes two seconds to reply."""
    time.sleep(2)
    return {"content": "late"}


def gives_up(order_id: str) -> str:
    """A tool whose own call to a service times out.

    Args:
        order_id: The order.
    """
    raise TimeoutError("the order service did not answer")
