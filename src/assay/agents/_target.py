"""The ``agent`` target: assay drives the agent loop itself (see ``assay.agents._loop``)
with a chat model and Python tools, one fresh copy of the case's state per attempt.

The model is an OpenAI-compatible endpoint (``base_url``, ``model``, ``api_key_env``, as the
``openai`` target takes them) or ``{function: module:fn}``. The final answer is the text of
the model's last message; for a case that expects a fact, a final message that is JSON is
read as the structured outcome (as the ``openai`` target reads one). The record keeps the
trajectory in ``extra["trajectory"]`` and the conversation in ``extra["transcript"]``.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from assay._urls import HttpUrl
from assay.agents._loop import AgentLoop, Limits, Run, jsonable
from assay.agents._model import ChatModel, EndpointModel, FunctionModel, Sampling
from assay.agents._tools import TOOL_NAME, Tool, ToolDefinitionError, tool_from_callable
from assay.cases import Case
from assay.errors import AssayConfigError, InputFormatError, Problem
from assay.outcomes import Answer, Outcome, Trajectory, trajectory_extra
from assay.targets import ENV_NAME, BaseTarget, Reply, TargetContext, TargetType, error_reply, scrub
from assay.targets.chat import (
    DEFAULT_ABSTAIN_PATTERNS,
    AbstainPatterns,
    AbstainRule,
    structured_outcome,
    text_outcome,
)
from assay.targets.function import import_callable

DEFAULT_MAX_STEPS = 10
_REF = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*:[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")
_REF_HINT = "module:function (an absolute module path, a colon, the function's name)"


def _is_ref(value: str) -> str:
    if not _REF.fullmatch(value):
        raise ValueError(f"{value!r} is not {_REF_HINT}")
    return value


class ModelSettings(BaseModel):
    """The model that drives the loop: an OpenAI-compatible chat model called with the
    tools API (``base_url``, ``model``, ``api_key_env``, as the ``openai`` target takes
    them), or ``function``: a Python callable ``(messages, tools) -> assistant message``."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    base_url: HttpUrl | None = None
    model: str | None = Field(default=None, min_length=1)
    api_key_env: str | None = Field(default=None, pattern=ENV_NAME)
    function: str | None = None

    @field_validator("function")
    @classmethod
    def _module_colon_function(cls, value: str | None) -> str | None:
        return _is_ref(value) if value is not None else None

    @model_validator(mode="after")
    def _one_kind(self) -> ModelSettings:
        endpoint = self.base_url is not None or self.model is not None
        if self.function is not None and (endpoint or self.api_key_env is not None):
            raise ValueError("give either function or base_url and model, not both")
        if self.function is None and (self.base_url is None or self.model is None):
            raise ValueError(
                "give base_url and model (an OpenAI-compatible chat model) "
                "or function (module:function, a scripted model)"
            )
        return self


class ToolSettings(BaseModel):
    """One tool: the callable, and optionally its name, description and arguments' schema
    (else taken from the callable's name, docstring and type hints)."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True, populate_by_name=True)

    ref: str
    name: str | None = Field(default=None, pattern=TOOL_NAME.pattern)
    description: str | None = None
    arguments_schema: dict[str, Any] | None = Field(default=None, alias="schema")

    @field_validator("ref")
    @classmethod
    def _module_colon_function(cls, value: str) -> str:
        return _is_ref(value)


class AgentSettings(BaseModel):
    """Suite settings of an ``agent`` target."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    type: str = "agent"
    model: ModelSettings
    tools: tuple[ToolSettings, ...] = ()
    system: str | None = None
    max_steps: int = Field(default=DEFAULT_MAX_STEPS, ge=1)
    step_timeout_s: float | None = Field(default=None, gt=0)
    temperature: float | None = Field(default=0.0, ge=0, le=2)
    seed: int | None = None
    max_tokens: int | None = Field(default=None, ge=1)
    parallel_tool_calls: bool | None = None
    # Servers differ when it is unset: OpenAI's offers the tools ("auto"), llama.cpp's
    # chatml-function-calling format ignores them unless it is sent.
    tool_choice: Literal["auto", "none", "required"] | None = None
    abstain_patterns: AbstainPatterns = None

    @field_validator("tools", mode="before")
    @classmethod
    def _refs(cls, value: Any) -> Any:
        """``module:function`` alone is ``{ref: module:function}``."""
        if isinstance(value, list | tuple):
            return [{"ref": item} if isinstance(item, str) else item for item in value]
        return value


def _imported(ref: str, base_dir: Path | None, setting: str) -> Any:
    try:
        return import_callable(ref, base_dir)
    except AssayConfigError as err:
        detail = str(err).removeprefix(f"target.callable {ref}: ")
        raise InputFormatError(
            [Problem(f"{setting} {ref}: {detail}", None, setting)], summary="invalid agent target"
        ) from None


def build_tools(entries: tuple[ToolSettings, ...], base_dir: Path | None) -> dict[str, Tool]:
    """The tools the settings name, by name. Raises ``InputFormatError`` naming the entry
    (``target.tools[i]``) whose callable cannot be imported or schema'd, or whose name
    repeats another's."""
    tools: dict[str, Tool] = {}
    problems: list[Problem] = []
    for index, item in enumerate(entries):
        setting = f"target.tools[{index}]"
        try:
            func = _imported(item.ref, base_dir, setting)
            tool = tool_from_callable(func, item.name, item.description, item.arguments_schema)
        except InputFormatError as err:
            problems += err.problems
            continue
        except ToolDefinitionError as err:
            problems.append(Problem(f"{setting} {item.ref}: {err}", None, setting))
            continue
        if tool.name in tools:
            problems.append(
                Problem(
                    f"{setting} {item.ref}: a second tool named {tool.name!r}; give name:",
                    None,
                    setting,
                )
            )
            continue
        tools[tool.name] = tool
    if problems:
        raise InputFormatError(problems, summary="invalid agent target")
    return tools


def _model_of(settings: AgentSettings, base_dir: Path | None) -> ChatModel:
    m = settings.model
    if m.function is not None:
        return FunctionModel(_imported(m.function, base_dir, "target.model.function"), m.function)
    assert m.base_url is not None and m.model is not None  # the settings require both
    sampling = Sampling(
        settings.temperature,
        settings.seed,
        settings.max_tokens,
        settings.parallel_tool_calls,
        settings.tool_choice,
    )
    return EndpointModel(m.base_url, m.model, m.api_key_env, sampling)


def _looks_like_json(text: str) -> bool:
    stripped = text.strip()
    if stripped.startswith("```"):
        stripped = stripped.strip("`").removeprefix("json").strip()
    if not stripped.startswith("{"):
        return False
    try:
        return isinstance(json.loads(stripped), dict)
    except json.JSONDecodeError:
        return False


def final_outcome(text: str, case: Case, abstain: AbstainRule) -> Outcome:
    """The outcome the model's final text makes: the structured outcome when ``case``
    expects a fact and the text is a JSON object, else the text read as the ``openai``
    target's text mode reads it (an abstention when it matches the abstain rule).

    Raises ``ValueError`` when the text is empty or its JSON is not an outcome.
    """
    if case.expected_fact is not None and _looks_like_json(text):
        return structured_outcome(text, "none")
    return text_outcome(text, abstain)


class AgentTarget(BaseTarget):
    """Runs an agent loop for each case: a chat model calling Python tools."""

    name = "agent"

    def __init__(self, settings: AgentSettings, model: ChatModel, tools: dict[str, Tool]) -> None:
        self.settings = settings
        self.model = model
        self.tools = tools
        self.limits = Limits(settings.max_steps, settings.step_timeout_s)
        self.abstain = AbstainRule(settings.abstain_patterns or DEFAULT_ABSTAIN_PATTERNS)
        self.keeps_state = any(tool.wants_state for tool in tools.values())

    @classmethod
    def from_settings(cls, settings: AgentSettings, base_dir: Path | None) -> AgentTarget:
        return cls(settings, _model_of(settings, base_dir), build_tools(settings.tools, base_dir))

    def config(self) -> dict[str, Any]:
        found = self.settings.model_dump(mode="json", exclude_none=True, by_alias=True)
        # what the model is offered, so that a changed docstring or hint changes the config
        found["tool_specs"] = [tool.spec() for tool in self.tools.values()]
        return found

    def secrets(self) -> tuple[str, ...]:
        return self.model.secrets()

    async def start(self) -> None:
        await self.model.start()

    async def aclose(self) -> None:
        await self.model.aclose()

    def messages(self, case: Case) -> list[dict[str, Any]]:
        """The conversation the loop starts from: the system prompt, then the case's
        messages (or its question)."""
        found: list[dict[str, Any]] = []
        if self.settings.system is not None:
            found.append({"role": "system", "content": self.settings.system})
        if case.messages:
            found += [{"role": m.role, "content": m.content} for m in case.messages]
        else:
            found.append({"role": "user", "content": case.prompt})
        return found

    def request(self, case: Case) -> dict[str, Any]:
        """What the first model call sends for ``case`` (``--dry-run``; the cache's key)."""
        specs = [tool.spec() for tool in self.tools.values()]
        return {
            "agent": self.model.request(self.messages(case), specs),
            "max_steps": self.settings.max_steps,
            "state": case.state,
        }

    async def run(self, case: Case, ctx: TargetContext) -> Reply:
        # A fresh copy for every attempt: a retried attempt never sees what an earlier one did.
        state = copy.deepcopy(case.state)
        if state is None and self.keeps_state:
            state = {}
        loop = AgentLoop(self.model, self.tools, self.limits, ctx.tracer)
        done = await loop.run(self.messages(case), state, ctx.traceparent)
        trajectory = Trajectory(
            steps=tuple(done.steps),
            ended=done.ended,
            state_before=copy.deepcopy(case.state),
            state_after=jsonable(state) if state is not None else None,
        )
        reply = self._reply(done, case)
        extra = {
            **reply.extra,
            "transcript": _transcript(done),
            "trajectory": trajectory_extra(trajectory),
        }
        return scrub(Reply(reply.outcome, done.usage, reply.retry_after_s, extra), self.secrets())

    def _reply(self, done: Run, case: Case) -> Reply:
        if done.failure is not None:
            return done.failure
        if done.ended == "step_limit":
            return Reply(Answer(text=done.last_text))
        assert done.final is not None
        try:
            return Reply(final_outcome(done.final.text or "", case, self.abstain))
        except ValueError as err:
            return error_reply("parse_error", str(err), done.final.text)


def _transcript(done: Run) -> dict[str, Any]:
    """Every message of the conversation (tool calls and results included) and the final
    reply, as the ``openai`` target keeps its transcript."""
    found: dict[str, Any] = {"messages": done.messages}
    if done.final is not None:
        found["reply"] = done.final.text or ""
        if done.final.finish_reason is not None:
            found["finish_reason"] = done.final.finish_reason
        if done.final.response_model is not None:
            found["response_model"] = done.final.response_model
    return found


AGENT_TARGET = TargetType(AgentSettings, AgentTarget.from_settings)
