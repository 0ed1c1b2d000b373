"""What an agent's case expects of the path it takes and of the state it leaves: one
mapping per expectation in a case's ``expect`` list, named by its one kind key.

::

    expect:
      - tool_called: issue_refund
        args: {order: A1001}              # a subset of the call's arguments
        args_match: {amount: "\\d+\\.\\d\\d"}  # a regex per argument, matched in full
        args_schema: {type: object, required: [order]}  # a JSON Schema
      - tool_not_called: delete_account
      - calls_in_order: [lookup_order, issue_refund]
      - max_steps: 4                      # model turns
      - max_calls: {lookup_order: 1}
      - no_call_after_refusal: true
      - state_equals: {orders.A1001.status: refunded}
      - success_claims: {issue_refund: ["refund (is|was|has been) (sent|issued)"]}

``PATH_KINDS`` are read off the trajectory's steps, ``STATE_KINDS`` off its final state;
``success_claims`` replaces the default success-claim patterns of a tool for the
``claims_match_tools`` check.
"""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    GetCoreSchemaHandler,
    SerializerFunctionWrapHandler,
    Tag,
    field_validator,
    model_serializer,
)
from pydantic_core import CoreSchema

from assay.errors import did_you_mean

ToolName = Annotated[str, Field(min_length=1)]


class _Expectation(BaseModel):
    """An expectation, written back as the mapping it was read from (unset keys left out)."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    @model_serializer(mode="wrap")
    def _without_unset(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        return {k: v for k, v in handler(self).items() if v is not None}


def _regex(value: str) -> str:
    try:
        re.compile(value)
    except re.error as err:
        raise ValueError(f"{value!r} is not a regular expression: {err}") from None
    return value


def _schema(value: dict[str, Any]) -> dict[str, Any]:
    # deferred: jsonschema is needed only by a case that declares an args_schema
    from jsonschema import SchemaError, validators  # type: ignore[import-untyped]

    try:
        validators.validator_for(value).check_schema(value)
    except SchemaError as err:
        raise ValueError(f"not a valid JSON Schema: {err.message}") from None
    return value


class ToolCalled(_Expectation):
    """Some executed call of ``tool_called`` (whatever its status) has arguments that
    contain ``args`` (a subset: each key with an equal value, nested mappings alike),
    whose every argument named in ``args_match`` fully matches its regular expression (a
    text as it is, any other value as its JSON text), and that satisfy ``args_schema``."""

    tool_called: ToolName
    args: dict[str, Any] | None = None
    args_match: dict[str, str] | None = None
    args_schema: dict[str, Any] | None = None

    @field_validator("args_match")
    @classmethod
    def _regexes(cls, value: dict[str, str] | None) -> dict[str, str] | None:
        if value is not None:
            for pattern in value.values():
                _regex(pattern)
        return value

    @field_validator("args_schema")
    @classmethod
    def _valid_schema(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        return None if value is None else _schema(value)


class ToolNotCalled(_Expectation):
    """No call of ``tool_not_called`` was executed."""

    tool_not_called: ToolName


class CallsInOrder(_Expectation):
    """The tools are called in this order: a subsequence of the executed calls' names
    (other calls may come between and around them)."""

    calls_in_order: tuple[ToolName, ...] = Field(min_length=1)


class MaxSteps(_Expectation):
    """At most ``max_steps`` model turns."""

    max_steps: int = Field(ge=0)


class MaxCalls(_Expectation):
    """At most so many executed calls of each tool named."""

    max_calls: dict[ToolName, Annotated[int, Field(ge=0)]] = Field(min_length=1)


class NoCallAfterRefusal(_Expectation):
    """When true, no tool is called after a tool refused."""

    no_call_after_refusal: bool


class StateEquals(_Expectation):
    """Each dotted path of the final state (``orders.A1001.status``; a number indexes a
    list) holds the value given."""

    state_equals: dict[Annotated[str, Field(min_length=1)], Any] = Field(min_length=1)


class SuccessClaims(_Expectation):
    """For each tool, the regular expressions that say its operation succeeded, in place
    of the default patterns (``claims_match_tools``)."""

    success_claims: dict[ToolName, tuple[str, ...]] = Field(min_length=1)

    @field_validator("success_claims")
    @classmethod
    def _regexes(cls, value: dict[str, tuple[str, ...]]) -> dict[str, tuple[str, ...]]:
        for patterns in value.values():
            for pattern in patterns:
                _regex(pattern)
        return value


KINDS: dict[str, type[_Expectation]] = {
    "tool_called": ToolCalled,
    "tool_not_called": ToolNotCalled,
    "calls_in_order": CallsInOrder,
    "max_steps": MaxSteps,
    "max_calls": MaxCalls,
    "no_call_after_refusal": NoCallAfterRefusal,
    "state_equals": StateEquals,
    "success_claims": SuccessClaims,
}
"""Each expectation kind: its key, and the model it is read into."""
PATH_KINDS = (
    "tool_called",
    "tool_not_called",
    "calls_in_order",
    "max_steps",
    "max_calls",
    "no_call_after_refusal",
)
STATE_KINDS = ("state_equals",)


def expectation_kind(value: Any) -> str:
    """The kind of one written expectation (its one key that names a kind); ``ValueError``
    saying what is wrong, with the closest kind, when it names none or several."""
    if isinstance(value, _Expectation):
        return next(k for k, model in KINDS.items() if isinstance(value, model))
    if not isinstance(value, dict):
        raise ValueError(
            f"an expectation is a mapping such as {{tool_called: NAME}}, got {value!r}"
        )
    named: list[str] = [k for k in value if k in KINDS]
    if len(named) > 1:
        raise ValueError(f"one kind per expectation, got {', '.join(named)}")
    if not named:
        keys = [str(k) for k in value]
        hint = next(
            (did_you_mean(k, list(KINDS)) for k in keys if did_you_mean(k, list(KINDS))), ""
        )
        shown = ", ".join(f'"{k}"' for k in keys) or "no key"
        raise ValueError(f"unknown expectation kind {shown}{hint}; kinds: {', '.join(KINDS)}")
    return named[0]


def _tag(value: Any) -> str | None:
    try:
        return expectation_kind(value)
    except ValueError:
        return None


_ANY_KIND = Annotated[
    Annotated[ToolCalled, Tag("tool_called")]
    | Annotated[ToolNotCalled, Tag("tool_not_called")]
    | Annotated[CallsInOrder, Tag("calls_in_order")]
    | Annotated[MaxSteps, Tag("max_steps")]
    | Annotated[MaxCalls, Tag("max_calls")]
    | Annotated[NoCallAfterRefusal, Tag("no_call_after_refusal")]
    | Annotated[StateEquals, Tag("state_equals")]
    | Annotated[SuccessClaims, Tag("success_claims")],
    Discriminator(_tag),
]


class Expectation:
    """One expectation of a case: read as the model of the kind its key names
    (``KINDS``), so a value of this type is one of those models."""

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        return handler(_ANY_KIND)


def check_kinds(values: Any) -> Any:
    """``values`` as given when each item names one known kind; else ``ValueError`` naming
    the first item that does not (``[2] unknown expectation kind …``, counted from 0)."""
    if isinstance(values, list | tuple):
        for i, value in enumerate(values):
            try:
                expectation_kind(value)
            except ValueError as err:
                raise ValueError(f"[{i}] {err}") from None
    return values
