"""The agent's one tool: start a return for an order, against a fixed order book.

The tool can succeed, refuse (the order is outside the return window or unknown) or fail
(the returns service is down for order ``A1002``). Its result is the authoritative state
of the operation: the assistant must report that, never what it asked for.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass

RETURN_WINDOW_DAYS = 30
# Days since delivery, per order; None marks the order whose service call fails.
ORDERS: dict[str, int | None] = {"A1001": 10, "A1002": None, "A1003": 40}
_ORDER = re.compile(r"\border\s+([A-Z]\d{4})\b", re.IGNORECASE)


class ToolFailure(Exception):
    """The tool call itself failed: nothing is known to have happened."""


@dataclass(frozen=True)
class ToolResult:
    """What the returns service says happened: ``state`` and the fact that reports it."""

    status: str  # ok | rejected | error
    state: str  # started | rejected | not_started
    fact: str
    detail: str


def requested_order(question: str) -> str | None:
    """The order id when the question asks to start a return for an order, else None."""
    if "return" not in question.lower():
        return None
    match = _ORDER.search(question)
    return match.group(1).upper() if match else None


def args_hash(arguments: dict[str, str]) -> str:
    """A short stable hash of the tool arguments (the arguments stay out of telemetry)."""
    canonical = json.dumps(arguments, sort_keys=True, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(canonical.encode()).hexdigest()[:16]


def start_return(order_id: str) -> ToolResult:
    """Start a return, or say why not; raises ``ToolFailure`` when the service fails."""
    if order_id not in ORDERS:
        return ToolResult("rejected", "rejected", "order_not_found", f"no order {order_id}")
    days = ORDERS[order_id]
    if days is None:
        raise ToolFailure("returns service unavailable (HTTP 503)")
    if days > RETURN_WINDOW_DAYS:
        return ToolResult(
            "rejected",
            "rejected",
            "return_rejected_outside_window",
            f"delivered {days} days ago, outside the {RETURN_WINDOW_DAYS}-day window",
        )
    return ToolResult("ok", "started", "return_started", f"return opened for {order_id}")


def failed_result(reason: str) -> ToolResult:
    """The authoritative state after a failed call: the return was not started."""
    return ToolResult("error", "not_started", "return_not_started", reason)
