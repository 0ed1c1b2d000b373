"""The ``openai`` target: any OpenAI-compatible ``/chat/completions`` endpoint.

The model is asked for the structured outcome through ``response_format`` (a strict JSON
schema: ``kind`` answer|abstain, ``fact``, ``text``, ``citations``) and its reply parsed
into an outcome; token usage is recorded. The API key is read from the environment
variable named by ``api_key_env`` when the run starts; it is sent as a bearer token and
never stored, logged or reported.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from assay.cases import Case, content_hash
from assay.targets._base import Reply, TargetContext
from assay.targets._replies import (
    ENV_NAME,
    error_reply,
    outcome_from_mapping,
    scrub,
    secret_from_env,
    usage_from,
)
from assay.targets._session import HttpClient

DEFAULT_SYSTEM_PROMPT = (
    "Answer the user's question from the information you were given. Reply with JSON: "
    'kind "answer" with the short fact key that answers it (fact) and a one-sentence '
    'answer (text), or kind "abstain" when the information does not say.'
)

OUTCOME_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["kind", "fact", "text", "citations"],
    "properties": {
        "kind": {"type": "string", "enum": ["answer", "abstain"]},
        "fact": {"type": ["string", "null"]},
        "text": {"type": ["string", "null"]},
        "citations": {"type": "array", "items": {"type": "string"}},
    },
}
RESPONSE_FORMAT: dict[str, Any] = {
    "type": "json_schema",
    "json_schema": {"name": "outcome", "strict": True, "schema": OUTCOME_SCHEMA},
}


class OpenAISettings(BaseModel):
    """Suite settings of an ``openai`` target."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    type: str = "openai"
    base_url: str = Field(pattern=r"^https?://")
    model: str = Field(min_length=1)
    api_key_env: str | None = Field(default=None, pattern=ENV_NAME)
    system_prompt: str = DEFAULT_SYSTEM_PROMPT
    temperature: float | None = Field(default=0.0, ge=0, le=2)
    seed: int | None = None
    max_tokens: int | None = Field(default=None, ge=1)


def parse_completion(body: Any, raw: str) -> Reply:
    """The outcome and usage in a chat-completions reply, or a ``parse_error``."""
    try:
        message = body["choices"][0]["message"]
    except (KeyError, IndexError, TypeError):
        return error_reply("parse_error", "no choices[0].message in the reply", raw)
    usage_data = body.get("usage") if isinstance(body, dict) else None
    usage = None
    if isinstance(usage_data, dict):
        usage = usage_from(usage_data.get("prompt_tokens"), usage_data.get("completion_tokens"))
    if message.get("refusal"):
        return Reply(error_reply("refusal", str(message["refusal"]), raw).outcome, usage)
    content = message.get("content")
    if not isinstance(content, str):
        return Reply(error_reply("parse_error", "the message has no content", raw).outcome, usage)
    try:
        data = json.loads(content)
        if not isinstance(data, dict):
            raise ValueError("the content is not a JSON object")
        if data.get("kind") == "abstain":
            data = {"kind": "abstain", "text": data.get("text")}
        elif isinstance(data, dict):
            data = {k: v for k, v in data.items() if k in ("kind", "fact", "text", "citations")}
            data["citations"] = data.get("citations") or []
        outcome = outcome_from_mapping(data)
    except (ValueError, json.JSONDecodeError) as err:
        return Reply(error_reply("parse_error", str(err), content).outcome, usage)
    return Reply(outcome, usage)


class OpenAITarget:
    """Asks a chat model for each case's structured outcome."""

    name = "openai"

    def __init__(self, settings: OpenAISettings) -> None:
        self.settings = settings
        self.url = settings.base_url.rstrip("/") + "/chat/completions"
        self.client = HttpClient()
        self._static: dict[str, Any] = {"model": settings.model, "response_format": RESPONSE_FORMAT}
        if settings.temperature is not None:
            self._static["temperature"] = settings.temperature
        if settings.seed is not None:
            self._static["seed"] = settings.seed
        if settings.max_tokens is not None:
            self._static["max_tokens"] = settings.max_tokens
        self._system = {"role": "system", "content": settings.system_prompt}
        self._secrets: tuple[str, ...] = ()
        self._static_hash: str | None = None

    @classmethod
    def from_settings(cls, settings: OpenAISettings, base_dir: Path | None) -> OpenAITarget:
        return cls(settings)

    def config(self) -> dict[str, Any]:
        return self.settings.model_dump(mode="json", exclude_none=True)

    async def start(self) -> None:
        name = self.settings.api_key_env
        if name is not None:
            key = secret_from_env(name, "api_key_env")
            self.client.headers["Authorization"] = f"Bearer {key}"
            self._secrets = (key,)
        await self.client.start()

    async def aclose(self) -> None:
        await self.client.aclose()
        self.client.headers.pop("Authorization", None)
        self._secrets = ()

    def body(self, case: Case) -> dict[str, Any]:
        """The request body for ``case`` (exposed for tests and inspection)."""
        if case.messages:
            convo = [{"role": m.role, "content": m.content} for m in case.messages]
            messages = [self._system, *convo]
        else:
            messages = [self._system, {"role": "user", "content": case.prompt}]
        return {**self._static, "messages": messages}

    def request(self, case: Case) -> dict[str, Any]:
        """What is sent for ``case`` (the cache's key): the content hash of the endpoint
        and the body's fixed part (model, parameters, response format), computed once, and
        the rendered messages."""
        if self._static_hash is None:
            self._static_hash = content_hash({"url": self.url, **self._static})
        return {"static": self._static_hash, "messages": self.body(case)["messages"]}

    async def run(self, case: Case, ctx: TargetContext) -> Reply:
        extra = {"traceparent": ctx.traceparent} if ctx.traceparent else None
        got = await self.client.post_json(self.url, self.body(case), extra)
        if isinstance(got, Reply):
            return scrub(got, self._secrets)
        body, raw = got
        return scrub(parse_completion(body, raw), self._secrets)
