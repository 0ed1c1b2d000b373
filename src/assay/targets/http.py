"""The ``http`` target: POST JSON built from the case, map the JSON reply to an outcome.

``request`` is a JSON template: a string ``"{{question}}"`` is replaced by the case's
value (any type when the string is only the placeholder, text otherwise); placeholders
name case fields (``id``, ``question``, ``prompt``, ``messages``, ``slice``,
``metadata.lang``…). ``response`` maps outcome fields to dotted paths in the reply
(``fact: answer.fact``); without it the reply must be a flat outcome
(``{"kind": "answer", "fact": ...}``). A W3C ``traceparent`` header is forwarded when
the run is traced, with a ``tracestate`` when the suite configures one or the trace the
run continues carries one. An application that runs its own agent loop may put its
trajectory (``steps``, ``ended``, ``state_before``, ``state_after``) at the reply's top
level, with or without ``response`` (docs/agents.md).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator

from assay._urls import HttpUrl, check_headers
from assay.cases import Case
from assay.targets._base import BaseTarget, Reply, TargetContext, TargetType
from assay.targets._replies import (
    ENV_NAME,
    TRAJECTORY_FIELDS,
    as_reply,
    error_reply,
    scrub,
    secret_from_env,
    usage_from,
)
from assay.targets._session import HttpClient
from assay.targets._tracestate import merge_tracestate, tracestate_members

_PLACEHOLDER = re.compile(r"\{\{\s*([\w.]+)\s*\}\}")
_MISSING = object()
DEFAULT_REQUEST: dict[str, Any] = {"id": "{{id}}", "question": "{{prompt}}"}


class ResponseMapping(BaseModel):
    """Where each outcome field is in the reply (dotted paths)."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    kind: str | None = None
    abstain: str | None = None
    fact: str | None = None
    text: str | None = None
    citations: str | None = None
    reason: str | None = None
    input_tokens: str | None = None
    output_tokens: str | None = None


class HttpSettings(BaseModel):
    """Suite settings of an ``http`` target."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    type: str = "http"
    url: HttpUrl
    request: Any = Field(default_factory=lambda: dict(DEFAULT_REQUEST))
    response: ResponseMapping | None = None
    headers: Annotated[dict[str, str], AfterValidator(check_headers)] = Field(default_factory=dict)
    headers_env: Annotated[
        dict[str, Annotated[str, Field(pattern=ENV_NAME)]], AfterValidator(check_headers)
    ] = Field(
        default_factory=dict,
        description="header name -> the environment variable holding its value (a secret)",
    )
    tracestate: str | None = Field(
        default=None,
        description="W3C tracestate list-members (vendor=value,...) sent with traceparent, "
        "before those of the trace the run continues",
    )

    @field_validator("tracestate")
    @classmethod
    def _w3c_tracestate(cls, value: str | None) -> str | None:
        if value is not None:
            tracestate_members(value)  # a ValueError names the malformed member
        return value


def lookup(data: Any, path: str) -> Any:
    """The value at a dotted path (``a.b.0.c``) in nested mappings/lists, or ``_MISSING``."""
    value = data
    for part in path.split("."):
        if isinstance(value, Mapping) and part in value:
            value = value[part]
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            return _MISSING
    return value


def _case_value(case: Case, path: str) -> Any:
    head, _, rest = path.partition(".")
    value: Any = case.prompt if head == "prompt" else getattr(case, head, _MISSING)
    if isinstance(value, tuple):
        value = [v.model_dump() if isinstance(v, BaseModel) else v for v in value]
    return lookup(value, rest) if rest and value is not _MISSING else value


def fill(template: Any, case: Case) -> Any:
    """The request body for ``case`` from ``template``."""
    if isinstance(template, str):
        whole = _PLACEHOLDER.fullmatch(template)
        if whole:
            value = _case_value(case, whole.group(1))
            return None if value is _MISSING else value

        def one(match: re.Match[str]) -> str:
            value = _case_value(case, match.group(1))
            return "" if value is _MISSING or value is None else str(value)

        return _PLACEHOLDER.sub(one, template)
    if isinstance(template, Mapping):
        return {k: fill(v, case) for k, v in template.items()}
    if isinstance(template, list):
        return [fill(v, case) for v in template]
    return template


def map_response(body: Any, mapping: ResponseMapping | None, raw: str) -> Reply:
    """The reply for a decoded JSON body under ``mapping``."""
    if mapping is None:
        return as_reply(body) if isinstance(body, Mapping) else _unparsable(raw, "an object")
    found: dict[str, Any] = {}
    for field in ("kind", "fact", "text", "citations", "reason"):
        path = getattr(mapping, field)
        if path is not None:
            value = lookup(body, path)
            if value is not _MISSING and value is not None:
                found[field] = value
    if mapping.abstain is not None and "kind" not in found:
        flag = lookup(body, mapping.abstain)
        found["kind"] = "abstain" if flag is True else "answer"
    if found.get("kind") == "abstain":
        found = {k: v for k, v in found.items() if k in ("kind", "text", "reason")}
    if isinstance(body, Mapping):  # an agent's trajectory, at the reply's top level
        found.update({k: body[k] for k in TRAJECTORY_FIELDS if k in body})
    reply = as_reply(found)
    if reply.outcome.kind == "error" and reply.outcome.error_class == "parse_error":
        return error_reply("parse_error", reply.outcome.message or "unmapped reply", raw)
    usage = usage_from(
        lookup(body, mapping.input_tokens) if mapping.input_tokens else None,
        lookup(body, mapping.output_tokens) if mapping.output_tokens else None,
    )
    return Reply(reply.outcome, usage, extra=reply.extra)


def _unparsable(raw: str, expected: str) -> Reply:
    return error_reply("parse_error", f"the reply is not {expected}", raw)


class HttpTarget(BaseTarget):
    """POSTs each case to a JSON endpoint."""

    name = "http"

    def __init__(self, settings: HttpSettings) -> None:
        self.settings = settings
        self.client = HttpClient(settings.headers)
        self._secrets: tuple[str, ...] = ()

    @classmethod
    def from_settings(cls, settings: HttpSettings, base_dir: Path | None) -> HttpTarget:
        return cls(settings)

    def config(self) -> dict[str, Any]:
        return self.settings.model_dump(mode="json", exclude_none=True)

    async def start(self) -> None:
        secrets = {
            h: secret_from_env(v, f"headers_env.{h}") for h, v in self.settings.headers_env.items()
        }
        self.client.headers.update(secrets)
        self._secrets = tuple(secrets.values())
        await self.client.start()

    def secrets(self) -> tuple[str, ...]:
        """The secret values sent since ``start()`` (the runner masks them too)."""
        return self._secrets

    async def aclose(self) -> None:
        await self.client.aclose()
        for header in self.settings.headers_env:
            self.client.headers.pop(header, None)
        self._secrets = ()

    def request(self, case: Case) -> dict[str, Any]:
        """What is sent for ``case``: the URL and the filled body (the cache's key)."""
        return {"url": self.settings.url, "body": fill(self.settings.request, case)}

    async def run(self, case: Case, ctx: TargetContext) -> Reply:
        extra = None
        if ctx.traceparent:
            extra = {"traceparent": ctx.traceparent}
            state = merge_tracestate(self.settings.tracestate, ctx.tracestate)
            if state:
                extra["tracestate"] = state
        got = await self.client.post_json(
            self.settings.url, fill(self.settings.request, case), extra
        )
        if isinstance(got, Reply):
            return scrub(got, self._secrets)
        body, raw = got
        return scrub(map_response(body, self.settings.response, raw), self._secrets)


HTTP_TARGET = TargetType(HttpSettings, HttpTarget.from_settings)
