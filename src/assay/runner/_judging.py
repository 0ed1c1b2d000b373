"""Sending the judge's requests through the runner's machinery: the same HTTP session
kind, timeouts, retries with backoff, rate limit and concurrency as a target's calls."""

from __future__ import annotations

import asyncio
import json
import os
import secrets
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from assay.cases import Case, content_hash
from assay.errors import AssayConfigError
from assay.grading import (
    CallingGrader,
    CaseResult,
    Judgment,
    RepeatVerdict,
    grade,
    judge_record,
    kept_repeats,
    repeat_verdict,
    ungraded_judgment,
)
from assay.grading.judge import JudgeAnswer, JudgeEndpoint
from assay.outcomes import Answer, Error, Record, Results, span_names
from assay.report import JUDGE_CACHE_HIT
from assay.runner._cache import cache_key
from assay.runner._execute import Execution, WorkItem, call
from assay.runner._options import RunOptions, Timing
from assay.runner._tracing import judge_span
from assay.runs import StoredGrader
from assay.targets import (
    BaseTarget,
    HttpClient,
    Reply,
    TargetContext,
    error_reply,
    scrub,
    usage_from,
)

if TYPE_CHECKING:
    from opentelemetry.trace import Tracer

    from assay.runner._cache import CacheUse


class JudgeTransport(BaseTarget):
    """A target whose "cases" are prepared judge requests: it posts each one to the judge
    model and returns the reply's message text as an answer (or an error outcome)."""

    name = "judge"

    def __init__(self, endpoint: JudgeEndpoint) -> None:
        self.endpoint = endpoint
        self.url = endpoint.base_url.rstrip("/") + "/chat/completions"
        self.client = HttpClient()
        self.pending: dict[tuple[str, int], dict[str, Any]] = {}
        self._secrets: tuple[str, ...] = ()

    def config(self) -> dict[str, Any]:
        return self.endpoint.model_dump(mode="json", exclude_none=True)

    async def start(self) -> None:
        name = self.endpoint.api_key_env
        if name is not None:
            key = os.environ.get(name)
            if not key:
                raise AssayConfigError(
                    f"judge api_key_env: the environment variable {name} is not set; "
                    "export it before judging"
                )
            self.client.headers["Authorization"] = f"Bearer {key}"
            self._secrets = (key,)
        await self.client.start()

    async def aclose(self) -> None:
        await self.client.aclose()
        self.client.headers.pop("Authorization", None)
        self._secrets = ()

    async def run(self, case: Case, ctx: TargetContext) -> Reply:
        body = self.pending[(case.id, ctx.trial)]
        extra = {"traceparent": ctx.traceparent} if ctx.traceparent else None
        got = await self.client.post_json(self.url, body, extra)
        if isinstance(got, Reply):
            return scrub(got, self._secrets)
        data, raw = got
        return scrub(_message_text(data, raw), self._secrets)


def _message_text(body: Any, raw: str) -> Reply:
    try:
        message = body["choices"][0]["message"]
    except (KeyError, IndexError, TypeError):
        return error_reply("parse_error", "no choices[0].message in the reply", raw)
    usage_data = body.get("usage") if isinstance(body, dict) else None
    usage = None
    if isinstance(usage_data, dict):
        usage = usage_from(usage_data.get("prompt_tokens"), usage_data.get("completion_tokens"))
    if message.get("refusal"):
        return Reply(error_reply("refusal", str(message["refusal"])).outcome, usage)
    content = message.get("content")
    if not isinstance(content, str):
        return Reply(error_reply("parse_error", "the message has no content", raw).outcome, usage)
    return Reply(Answer(text=content), usage)


class JudgeRunner:
    """Judges records with a ``CallingGrader`` (such as ``JudgeGrader``), calling its model
    through the runner's machinery."""

    def __init__(
        self,
        grader: CallingGrader,
        timing: Timing | None = None,
        nonce: Callable[[], str] | None = None,
        *,
        cache: CacheUse | None = None,
        run_id: str = "",
        repeats: int | None = None,
    ) -> None:

        if grader.endpoint is None:
            raise ValueError("the judge has no endpoint (base_url) to call")
        endpoint: JudgeEndpoint = grader.endpoint
        self.grader = grader
        # A judge's own settings say how often to ask and how to decide; ``repeats``
        # overrides the count (``assay regrade --repeats``).
        self.repeats: int = repeats or int(getattr(grader, "repeats", 1))
        self.verdict: RepeatVerdict = getattr(grader, "verdict", "first")
        config = getattr(grader, "config", None)
        self.model = str(getattr(config, "model", grader.name))
        self.transport = JudgeTransport(endpoint)
        options = RunOptions(
            concurrency=endpoint.concurrency,
            timeout_s=endpoint.timeout_s,
            retries=endpoint.retries,
            rpm=endpoint.rpm,
        )
        self.execution = Execution(self.transport, options, grader, timing=timing or Timing())
        self.nonce = nonce or (lambda: secrets.token_hex(12))
        self.cache = cache
        self.run_id = run_id
        self.config_hash = content_hash(self.transport.config()) if cache is not None else ""

    async def start(self) -> None:
        await self.transport.start()

    async def aclose(self) -> None:
        await self.transport.aclose()

    async def judge(
        self,
        case: Case,
        record: Record,
        traceparent: str | None = None,
        tracer: Tracer | None = None,
    ) -> Judgment:
        """The judgment on one record: error outcomes are ``error`` without a call. With
        a tracer, the call has its own ``assay.judge`` span (model, usage, attempts)."""
        return (await self.judged(case, record, traceparent, tracer))[0]

    async def judged(
        self,
        case: Case,
        record: Record,
        traceparent: str | None = None,
        tracer: Tracer | None = None,
    ) -> tuple[Judgment, list[Judgment]]:
        """The judgment on one record, and, when the judge's model was asked about it
        several times (``repeats``), every repeat's judgment as it is kept (``kept_repeats``;
        empty otherwise). The judgment is the verdict the judge's rule takes from them."""
        first = await self._judge_once(case, record, traceparent, tracer, 1)
        if isinstance(first, Judgment):
            return first, []
        if self.repeats == 1:
            return first[0], []
        repeats = [first[0]]
        for index in range(2, self.repeats + 1):
            again = await self._judge_once(case, record, traceparent, tracer, index)
            repeats.append(again if isinstance(again, Judgment) else again[0])
        return repeat_verdict(repeats, self.verdict), kept_repeats(repeats)

    async def _judge_once(
        self,
        case: Case,
        record: Record,
        traceparent: str | None,
        tracer: Tracer | None,
        repeat: int,
    ) -> Judgment | tuple[Judgment]:
        """One judgment: alone when no call was needed (an error outcome, a grader that
        failed or decided without its model), in a 1-tuple when the model was asked."""

        if record.outcome.kind == "error":
            return judge_record(case, record, self.grader)
        nonce = self.nonce()
        try:
            prepared = self.grader.prepare(case, record, nonce)
        except Exception as err:  # a grader failure is ungraded, never a default score
            return ungraded_judgment(case.id, record.trial, self.grader, err)
        if isinstance(prepared, Judgment):
            return prepared
        cache_at = self._cache_key(prepared.body, nonce, record.trial, repeat)
        if cache_at is not None:
            assert self.cache is not None
            hit = self.cache.cache.get(cache_at)
            if hit is not None:
                judged = self._conclude(case, record, prepared, _answer(hit.reply, hit.attempts))
                return (judged.model_copy(update={"labels": (*judged.labels, JUDGE_CACHE_HIT)}),)
        key = (case.id, record.trial)
        self.transport.pending[key] = prepared.body
        with judge_span(tracer, self.model) as attributes:
            if tracer is not None:
                traceparent = _current_traceparent() or traceparent
            try:
                item = WorkItem(0, case, record.trial)
                reply, attempts, _, latency_ms = await call(self.execution, item, traceparent)
            finally:
                self.transport.pending.pop(key, None)
            judgment = self._conclude(case, record, prepared, _answer(reply, attempts))
            if cache_at is not None and judgment.status in ("passed", "failed"):
                # Only a usable verdict is kept: a failed call (never kept, as for a
                # target) and a reply the judge's checks refused are asked again.
                assert self.cache is not None
                when = datetime.now(UTC)
                latency = round(latency_ms, 3)
                self.cache.cache.put(cache_at, "judge", reply, latency, attempts, self.run_id, when)
            attributes.update(_span_attributes(reply, attempts, judgment))
        return (judgment,)

    def _conclude(self, case: Case, record: Record, prepared: Any, answer: JudgeAnswer) -> Judgment:

        try:
            return self.grader.conclude(case, prepared, answer)
        except Exception as err:  # a reply the grader cannot read is ungraded, never a score
            return ungraded_judgment(case.id, record.trial, self.grader, err)

    def _cache_key(self, body: Any, nonce: str, trial: int, repeat: int = 1) -> str | None:
        """The response cache's key of a judge request (None without a cache): the judge's
        configuration, the request with its per-request nonce left out (a fresh nonce must
        not make every request new) and the trial, as for a target's reply; a repeat after
        the first is a request of its own (its reply is never the first one's again)."""
        if self.cache is None:
            return None
        request: dict[str, Any] = {"judge": json.loads(json.dumps(body).replace(nonce, "NONCE"))}
        if repeat > 1:
            request["repeat"] = repeat
        return cache_key(
            self.config_hash,
            request,
            None if self.cache.deterministic else trial,
        )


def _current_traceparent() -> str | None:
    from opentelemetry import trace

    ctx = trace.get_current_span().get_span_context()
    if not ctx.is_valid:
        return None
    return f"00-{ctx.trace_id:032x}-{ctx.span_id:016x}-{int(ctx.trace_flags):02x}"


def _span_attributes(reply: Reply, attempts: int, judgment: Judgment) -> dict[str, str | int]:
    found: dict[str, str | int] = {
        span_names.JUDGE_ATTEMPTS: attempts,
        span_names.JUDGMENT_STATUS: judgment.status,
    }
    if reply.usage is not None:
        if reply.usage.input_tokens is not None:
            found[span_names.GEN_AI_USAGE_INPUT_TOKENS] = reply.usage.input_tokens
        if reply.usage.output_tokens is not None:
            found[span_names.GEN_AI_USAGE_OUTPUT_TOKENS] = reply.usage.output_tokens
    if isinstance(reply.outcome, Error):
        found["error.type"] = reply.outcome.error_class or "_OTHER"
    return found


def _answer(reply: Reply, attempts: int) -> JudgeAnswer:
    outcome = reply.outcome
    usage = reply.usage
    tokens: dict[str, int | None] = {
        "input_tokens": usage.input_tokens if usage else None,
        "output_tokens": usage.output_tokens if usage else None,
    }
    if isinstance(outcome, Error):
        tries = f" (after {attempts} attempt{'s' if attempts != 1 else ''})"
        said = f"; the server said: {' '.join(outcome.raw.split())[:200]}" if outcome.raw else ""
        error = f"{outcome.error_class}: {outcome.message}{tries}{said}"
        return JudgeAnswer(None, error, attempts, **tokens)
    text = outcome.text if isinstance(outcome, Answer) else None
    return JudgeAnswer(text or "", None, attempts, **tokens)


async def judge_all(
    runner: JudgeRunner,
    items: Sequence[tuple[Case, Record]],
    on_done: Callable[[Judgment], None] | None = None,
    *,
    on_judged: Callable[[Judgment, list[Judgment]], None] | None = None,
) -> list[Judgment]:
    """Judge every record with the runner's concurrency; judgments in ``items`` order.
    Each judgment is given to ``on_done`` as it is made, and to ``on_judged`` with its
    repeats as they are kept (see ``JudgeRunner.judged``)."""
    found: list[Judgment | None] = [None] * len(items)
    queue = iter(enumerate(items))

    async def worker() -> None:
        for index, (case, record) in queue:
            judgment, repeats = await runner.judged(case, record)
            found[index] = judgment
            if on_done is not None:
                on_done(judgment)
            if on_judged is not None:
                on_judged(judgment, repeats)

    await runner.start()
    try:
        count = max(1, min(runner.execution.options.concurrency, len(items)))
        await asyncio.gather(*(worker() for _ in range(count)))
    finally:
        await runner.aclose()
    return [j for j in found if j is not None]


def judge_results(
    cases: Sequence[Case],
    records: Sequence[Record],
    grader: CallingGrader,
    trials: int | None = None,
    timing: Timing | None = None,
) -> list[CaseResult]:
    """Every case-trial judged by ``grader``'s model (missing ones stay ``missing``): the
    judge's calls run concurrently, with its timeout, retries and rate limit."""

    by_id = {c.id: c for c in cases}
    items = [(by_id[r.case_id], r) for r in records if r.case_id in by_id]
    judged = asyncio.run(judge_all(JudgeRunner(grader, timing), items))
    stored = StoredGrader(judged, grader)
    return grade(cases, Results(tuple(records)), stored, trials)
