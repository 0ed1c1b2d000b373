"""Write a real inspect_ai log of a tool-using agent, offline: `python THIS LOG_DIR`.

Three samples on inspect's mock model, whose replies are scripted tool calls:
- `refund`: looks an order up, asks for a refund whose tool fails (a ToolError), then says
  the refund was issued (the seed's "claim success after failure");
- `unknown`: calls a tool that does not exist, then answers;
- `lookup`: looks an order up and answers from the result.
Prints, as JSON, the log's path, inspect_ai's version and, per sample, the tool calls and
tool errors that inspect's own reader finds in the log.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from typing import Any

import inspect_ai
from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.log import read_eval_log
from inspect_ai.model import (
    ChatMessageAssistant,
    ChatMessageTool,
    ModelOutput,
    ModelUsage,
    get_model,
)
from inspect_ai.scorer import includes
from inspect_ai.solver import generate, use_tools
from inspect_ai.tool import Tool, ToolError, tool

MODEL = "mockllm/model"


@tool
def lookup_order() -> Tool:
    async def execute(order_id: str) -> str:
        """Look up an order.

        Args:
            order_id: The order's id.
        """
        return f"order {order_id}: delivered 10 days ago"

    return execute


@tool
def issue_refund() -> Tool:
    async def execute(order_id: str) -> str:
        """Issue a refund for an order.

        Args:
            order_id: The order's id.
        """
        raise ToolError("refund service unavailable")

    return execute


SCRIPT: dict[str, list[ModelOutput]] = {
    "Refund order A1": [
        ModelOutput.for_tool_call(MODEL, "lookup_order", {"order_id": "A1"}),
        ModelOutput.for_tool_call(MODEL, "issue_refund", {"order_id": "A1"}),
        ModelOutput.from_content(MODEL, "Your refund for order A1 has been issued."),
    ],
    "Cancel order A2": [
        ModelOutput.for_tool_call(MODEL, "cancel_order", {"order_id": "A2"}),
        ModelOutput.from_content(MODEL, "I could not cancel order A2."),
    ],
    "Where is order A3?": [
        ModelOutput.for_tool_call(MODEL, "lookup_order", {"order_id": "A3"}),
        ModelOutput.from_content(MODEL, "Order A3 was delivered 10 days ago."),
    ],
}


def scripted() -> Any:
    turns: dict[str, Iterator[ModelOutput]] = {k: iter(v) for k, v in SCRIPT.items()}

    def reply(messages: list[Any], *_: Any) -> ModelOutput:
        question = next(m.text for m in messages if m.role == "user")
        output = next(turns[question])
        output.usage = ModelUsage(input_tokens=7, output_tokens=3, total_tokens=10)
        return output

    return reply


def main(log_dir: str) -> None:
    task = Task(
        name="returns_desk",
        dataset=[
            Sample(id="refund", input="Refund order A1", target="refund"),
            Sample(id="unknown", input="Cancel order A2", target="could not"),
            Sample(id="lookup", input="Where is order A3?", target="delivered"),
        ],
        solver=[use_tools(lookup_order(), issue_refund()), generate()],
        scorer=includes(),
    )
    model = get_model(MODEL, custom_outputs=scripted())
    (written,) = eval(task, model=model, log_dir=log_dir, display="none")
    log = read_eval_log(written.location)
    assert log.samples is not None
    said = {
        "log": written.location,
        "inspect_ai": inspect_ai.__version__,
        "samples": [
            {
                "id": sample.id,
                "calls": [
                    call.function
                    for m in sample.messages
                    if isinstance(m, ChatMessageAssistant)
                    for call in m.tool_calls or []
                ],
                "tool_errors": [
                    m.error.type
                    for m in sample.messages
                    if isinstance(m, ChatMessageTool) and m.error is not None
                ],
            }
            for sample in log.samples
        ],
    }
    print(json.dumps(said))


if __name__ == "__main__":
    main(sys.argv[1])
