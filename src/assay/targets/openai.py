"""The ``openai`` target: any OpenAI-compatible ``/chat/completions`` endpoint.

Each case's messages come from the prompt (a template, or the system prompt plus the
question); the reply is read in the target's output mode (see ``assay.targets.chat``).
Every call records its transcript (messages sent, raw reply, finish reason, response
model) in the record's ``extra`` and, when tracing, a ``chat`` span with the GenAI
semantic conventions. The API key is read from the environment variable named by
``api_key_env`` when the run starts; it is sent as a bearer token and never stored,
logged or reported.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from json.encoder import encode_basestring as _string  # what to_json writes a string with
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from assay._urls import HttpUrl
from assay.cases import Case, Dataset, SourceLibrary
from assay.errors import AssayConfigError
from assay.outcomes import span_names
from assay.targets._base import BaseTarget, Reply, TargetContext, TargetType
from assay.targets._prompt import Prompt, PromptSettings
from assay.targets._replies import ENV_NAME, scrub, secret_from_env
from assay.targets._session import HttpClient, to_json
from assay.targets.chat import (
    DEFAULT_ABSTAIN_PATTERNS,
    OUTCOME_SCHEMA,
    RESPONSE_FORMAT,
    SCHEMA_INSTRUCTION,
    AbstainPatterns,
    AbstainRule,
    Completion,
    OutputMode,
    ResponseFormat,
    needs_schema_instruction,
    outcome_reply,
    parse_completion,
    read_completion,
    request_body,
)

__all__ = [
    "DEFAULT_SYSTEM_PROMPT",
    "DEFAULT_TEXT_SYSTEM_PROMPT",
    "OUTCOME_SCHEMA",
    "RESPONSE_FORMAT",
    "ChatEndpoint",
    "Exchange",
    "OpenAISettings",
    "OpenAITarget",
    "parse_completion",
]

DEFAULT_SYSTEM_PROMPT = (
    "Answer the user's question from the information you were given. Reply with JSON: "
    'kind "answer" with the short fact key that answers it (fact) and a one-sentence '
    'answer (text), or kind "abstain" when the information does not say.'
)
DEFAULT_TEXT_SYSTEM_PROMPT = (
    "Answer the user's question from the information you were given, in one short "
    "sentence. When the information does not say, reply: I don't know."
)
TRANSCRIPT_LIMIT = 20_000  # characters of a raw reply kept in the transcript


class OpenAISettings(BaseModel):
    """Suite settings of an ``openai`` target."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    type: str = "openai"
    base_url: HttpUrl
    model: str = Field(min_length=1)
    api_key_env: str | None = Field(default=None, pattern=ENV_NAME)
    system_prompt: str | None = None
    prompt: PromptSettings | None = None
    vars: dict[str, Any] = Field(default_factory=dict)
    output: OutputMode = "structured"
    response_format: ResponseFormat = "json_schema"
    abstain_patterns: AbstainPatterns = None
    temperature: float | None = Field(default=0.0, ge=0, le=2)
    seed: int | None = None
    max_tokens: int | None = Field(default=None, ge=1)


def _system_default(settings: OpenAISettings) -> str:
    if settings.system_prompt is not None:
        return settings.system_prompt
    return DEFAULT_TEXT_SYSTEM_PROMPT if settings.output == "text" else DEFAULT_SYSTEM_PROMPT


def _prompt_of(settings: OpenAISettings) -> Prompt:
    schema = (
        SCHEMA_INSTRUCTION
        if needs_schema_instruction(settings.output, settings.response_format)
        else ""
    )
    if settings.prompt is not None:
        if settings.system_prompt is not None:
            raise ValueError("give either prompt or system_prompt, not both")
        return Prompt(settings.prompt, settings.vars, schema)
    system = _system_default(settings)
    if schema:
        system = f"{system}\n\n{schema}"
    # system_prompt is plain text, not a template: braces in it are sent as written.
    literal = "{% raw %}" + system + "{% endraw %}" if "{%" in system or "{{" in system else system
    return Prompt(PromptSettings(system=literal), settings.vars, schema)


def _with_schema(messages: list[dict[str, str]], prompt: Prompt) -> list[dict[str, str]]:
    """The schema instruction added to the system message when the template leaves it out."""
    if not prompt.schema or any(prompt.schema in m["content"] for m in messages):
        return messages
    if messages and messages[0]["role"] == "system":
        first = {**messages[0], "content": f"{messages[0]['content']}\n\n{prompt.schema}"}
        return [first, *messages[1:]]
    return [{"role": "system", "content": prompt.schema}, *messages]


@dataclass(frozen=True)
class Exchange:
    """One chat-completions call: the ``failure`` reply when the call failed (HTTP error,
    no connection, a body that is not JSON or has no message), else the ``completion``
    read from the reply; ``raw`` is the reply's text either way (None without a reply)."""

    failure: Reply | None
    completion: Completion | None
    raw: str | None


class ChatEndpoint:
    """An OpenAI-compatible ``/chat/completions`` endpoint: one pooled session, the API key
    read when started, secrets masked in what comes back. Reusable by anything that calls
    a chat model (the ``openai`` target, a model-graded judge)::

        endpoint = ChatEndpoint("http://127.0.0.1:8080/v1", api_key_env=None)
        await endpoint.start()
        got = await endpoint.send(request_body("m", messages, output="text"))
        await endpoint.aclose()
    """

    def __init__(self, base_url: str, api_key_env: str | None = None) -> None:
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.api_key_env = api_key_env
        self.client = HttpClient()
        self.secrets: tuple[str, ...] = ()

    async def start(self) -> None:
        if self.api_key_env is not None:
            key = secret_from_env(self.api_key_env, "api_key_env")
            self.client.headers["Authorization"] = f"Bearer {key}"
            self.secrets = (key,)
        await self.client.start()

    async def aclose(self) -> None:
        await self.client.aclose()
        self.client.headers.pop("Authorization", None)
        self.secrets = ()

    async def send(
        self, body: dict[str, Any], traceparent: str | None = None, text: bytes | None = None
    ) -> Exchange:
        """POST ``body`` (whose JSON text is ``text`` when given); the reply's completion,
        or the failure as an error reply."""
        extra = {"traceparent": traceparent} if traceparent else None
        got = await self.client.post_json(self.url, body, extra, text)
        if isinstance(got, Reply):
            failed = scrub(got, self.secrets)
            return Exchange(failed, None, getattr(failed.outcome, "raw", None))
        data, raw = got
        try:
            completion = read_completion(data)
        except ValueError:
            return Exchange(scrub(parse_completion(data, raw), self.secrets), None, raw)
        return Exchange(None, completion, raw)


class OpenAITarget(BaseTarget):
    """Asks a chat model about each case: a structured outcome or a free-text answer."""

    name = "openai"

    def __init__(self, settings: OpenAISettings) -> None:
        self.settings = settings
        self.endpoint = ChatEndpoint(settings.base_url, settings.api_key_env)
        self.url = self.endpoint.url
        self.client = self.endpoint.client
        self.prompt = _prompt_of(settings)
        self.abstain = AbstainRule(settings.abstain_patterns or DEFAULT_ABSTAIN_PATTERNS)
        self._sources: SourceLibrary = SourceLibrary()
        self._facts: list[str] = []
        self._rendered: dict[str, list[dict[str, str]]] = {}
        self._text_parts: tuple[OpenAISettings, str, str] | None = None

    @classmethod
    def from_settings(cls, settings: OpenAISettings, base_dir: Path | None) -> OpenAITarget:
        return cls(settings)

    def config(self) -> dict[str, Any]:
        found = self.settings.model_dump(mode="json", exclude_none=True)
        found["prompt_version"] = self.prompt.version
        return found

    def use_dataset(self, dataset: Dataset, shared: dict[str, Any] | None = None) -> None:
        """Render every case's prompt before the run starts: the context is the case's
        source sections, ``facts`` every fact key of the dataset. A template that fails
        for a case stops the run (``AssayConfigError`` naming the case).

        ``shared`` (one dict per dataset, e.g. across the variants of a matrix) keeps the
        rendered prompts by prompt version: a target whose prompt was already rendered
        for this dataset reuses those messages instead of rendering them again."""
        self._sources = dataset.sources
        self._facts = sorted({fact for case in dataset for fact in case.facts})
        version = self.prompt.version if shared is not None else ""
        if shared is not None and version in shared:
            self._rendered = shared[version]
            return
        rendered: dict[str, list[dict[str, str]]] = {}
        for case in dataset:
            try:
                rendered[case.id] = self._render(case)
            except ValueError as err:
                raise AssayConfigError(f"target.prompt: case {case.id}: {err}") from None
        self._rendered = rendered
        if shared is not None:
            shared[version] = rendered

    def secrets(self) -> tuple[str, ...]:
        """The secret values sent since ``start()`` (the runner masks them too)."""
        return self.endpoint.secrets

    def _render(self, case: Case) -> list[dict[str, str]]:
        messages = self.prompt.render(case, self._sources.snapshot_for(case), self._facts)
        return _with_schema(messages, self.prompt)

    def messages(self, case: Case) -> list[dict[str, str]]:
        """The messages sent for ``case``."""
        found = self._rendered.get(case.id)
        return found if found is not None else self._render(case)

    def body(self, case: Case) -> dict[str, Any]:
        """The request body for ``case`` (exposed for tests, ``--dry-run`` and inspection)."""
        return self.body_for(self.messages(case))

    def body_text(self, body: dict[str, Any]) -> bytes:
        """The JSON text ``post_json`` sends for ``body``, a body this target made: its
        items other than the messages, the same for every case, are written once."""
        parts = self._text_parts
        if parts is None or parts[0] is not self.settings:
            parts = self._text_parts = (self.settings, *_text_around_messages(self.body_for([])))
        return (parts[1] + _messages_text(body["messages"]) + parts[2]).encode("utf-8")

    def body_for(self, messages: list[dict[str, str]]) -> dict[str, Any]:
        """The request body of ``messages``."""
        s = self.settings
        return request_body(
            s.model,
            messages,
            output=s.output,
            response_format=s.response_format,
            temperature=s.temperature,
            seed=s.seed,
            max_tokens=s.max_tokens,
        )

    def request(self, case: Case) -> dict[str, Any]:
        """The HTTP request ``case`` would send, the API key shown only by its variable's
        name (``--dry-run``, and the response cache's key; nothing is read from the
        environment)."""
        headers = {"Content-Type": "application/json"}
        if self.settings.api_key_env is not None:
            headers["Authorization"] = f"Bearer <${self.settings.api_key_env}>"
        return {"method": "POST", "url": self.url, "headers": headers, "body": self.body(case)}

    async def start(self) -> None:
        await self.endpoint.start()

    async def aclose(self) -> None:
        await self.endpoint.aclose()

    async def run(self, case: Case, ctx: TargetContext) -> Reply:
        body = self.body(case)
        if ctx.tracer is None:
            return await self._call(body, ctx, None)
        with ctx.tracer.start_as_current_span(f"chat {self.settings.model}") as span:
            return await self._call(body, ctx, span)

    async def _call(self, body: dict[str, Any], ctx: TargetContext, span: Any) -> Reply:
        got = await self.endpoint.send(body, ctx.traceparent, self.body_text(body))
        if got.failure is not None:
            reply = got.failure
        else:
            assert got.completion is not None
            s = self.settings
            reply = outcome_reply(got.completion, s.output, s.response_format, self.abstain)
        # Masked once with its transcript; the runner's own masking knows this reply.
        reply = scrub(
            _with_transcript(reply, body["messages"], got.completion, got.raw),
            self.endpoint.secrets,
        )
        _record_span(span, body, got.completion, reply)
        return reply


_MESSAGES = '"messages": []'


def _text_around_messages(body: dict[str, Any]) -> tuple[str, str]:
    """The JSON text of ``body``, whose messages are ``[]``, before and after the
    messages' text. The first ``"messages": []`` in it is that item: only the model, a
    string, comes before it, and a ``"`` inside a string is written ``\\"``."""
    text = to_json(body)
    at = text.index(_MESSAGES) + len(_MESSAGES) - 2
    return text[:at], text[at + 2 :]


def _messages_text(messages: Any) -> str:
    """``to_json(messages)``, written directly for a list of dicts of strings."""
    if type(messages) is not list:
        return to_json(messages)
    written = []
    for message in messages:
        if type(message) is not dict:
            return to_json(messages)
        items = []
        for key, value in message.items():
            if type(key) is not str or type(value) is not str:
                return to_json(messages)
            items.append(f"{_string(key)}: {_string(value)}")
        written.append("{" + ", ".join(items) + "}")
    return "[" + ", ".join(written) + "]"


def _with_transcript(
    reply: Reply, messages: list[dict[str, str]], completion: Completion | None, raw: str | None
) -> Reply:
    """``reply`` with the call's transcript in ``extra["transcript"]``."""
    transcript: dict[str, Any] = {"messages": messages}
    if completion is not None:
        content = completion.content or ""
        transcript["reply"] = _clip(content)
        if completion.finish_reason is not None:
            transcript["finish_reason"] = completion.finish_reason
        if completion.response_model is not None:
            transcript["response_model"] = completion.response_model
    else:
        transcript["reply"] = _clip(raw or "")
    return Reply(
        reply.outcome, reply.usage, reply.retry_after_s, {**reply.extra, "transcript": transcript}
    )


def _clip(text: str) -> str:
    if len(text) <= TRANSCRIPT_LIMIT:
        return text
    return f"{text[:TRANSCRIPT_LIMIT]}… [truncated: {len(text)} characters in all]"


def _record_span(
    span: Any, body: Mapping[str, Any], completion: Completion | None, reply: Reply
) -> None:
    """GenAI semantic-convention attributes of one chat call on ``span``."""
    if span is None:
        return
    attributes: dict[str, Any] = {
        span_names.GEN_AI_OPERATION_NAME: "chat",
        span_names.GEN_AI_PROVIDER_NAME: "openai",
        span_names.GEN_AI_REQUEST_MODEL: str(body["model"]),
        span_names.ANSWER_KIND: reply.outcome.kind,
    }
    for key, name in (("temperature", "temperature"), ("max_tokens", "max_tokens")):
        if body.get(key) is not None:
            attributes[f"gen_ai.request.{name}"] = body[key]
    if body.get("seed") is not None:
        attributes[span_names.GEN_AI_REQUEST_SEED] = body["seed"]
    if completion is not None:
        # As the reply's transcript has them: masked, should the server echo a key there.
        said = reply.extra.get("transcript") or {}
        if said.get("response_model"):
            attributes[span_names.GEN_AI_RESPONSE_MODEL] = str(said["response_model"])
        if said.get("finish_reason"):
            attributes[span_names.GEN_AI_RESPONSE_FINISH_REASONS] = [str(said["finish_reason"])]
    usage = reply.usage
    if usage is not None and usage.input_tokens is not None:
        attributes[span_names.GEN_AI_USAGE_INPUT_TOKENS] = usage.input_tokens
    if usage is not None and usage.output_tokens is not None:
        attributes[span_names.GEN_AI_USAGE_OUTPUT_TOKENS] = usage.output_tokens
    outcome = reply.outcome
    if outcome.kind == "error":
        from opentelemetry.trace import Status, StatusCode

        attributes["error.type"] = getattr(outcome, "error_class", None) or "error"
        span.set_status(Status(StatusCode.ERROR, getattr(outcome, "message", None) or ""))
    span.set_attributes(attributes)


OPENAI_TARGET = TargetType(OpenAISettings, OpenAITarget.from_settings)
