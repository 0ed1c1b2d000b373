"""Agents: an agent loop assay drives (the ``agent`` target), the tools it offers a model,
and the exception a tool raises to decline (docs/agents.md).

>>> def add(a: int, b: int = 1) -> int:
...     '''Add two numbers.
...
...     Args:
...         a: The first number.
...         b: The second number.
...     '''
...     return a + b
>>> tool = tool_from_callable(add)
>>> tool.spec()["function"]["parameters"]["required"]
['a']
"""

from assay.agents._loop import AgentLoop, Limits
from assay.agents._model import EndpointModel, FunctionModel, Turn, read_turn
from assay.agents._target import AGENT_TARGET, AgentSettings, AgentTarget, final_outcome
from assay.agents._tools import Refused, Tool, ToolDefinitionError, tool_from_callable

__all__ = [
    "AGENT_TARGET",
    "AgentLoop",
    "AgentSettings",
    "AgentTarget",
    "EndpointModel",
    "FunctionModel",
    "Limits",
    "Refused",
    "Tool",
    "ToolDefinitionError",
    "Turn",
    "final_outcome",
    "read_turn",
    "tool_from_callable",
]
