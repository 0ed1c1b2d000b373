"""The runner's spans: a root ``assay.request`` per case-trial and an ``assay.evaluation``
around grading. Nothing is created when tracing is off (no tracer)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from types import TracebackType
from typing import TYPE_CHECKING, NamedTuple

from assay.grading import Judgment
from assay.outcomes import Error, Outcome, span_names

if TYPE_CHECKING:
    from opentelemetry.trace import Span as OtelSpan
    from opentelemetry.trace import Tracer


class RequestTrace(NamedTuple):
    """The root span of one case-trial and the identifiers a target forwards."""

    span: OtelSpan | None = None
    traceparent: str | None = None
    trace_id: str | None = None
    tracestate: str | None = None


NO_TRACE = RequestTrace()


def request_span(
    tracer: Tracer | None, run_id: str, case_id: str, trial: int, config_version: str
) -> AbstractContextManager[RequestTrace]:
    """The ``assay.request`` span, current for the duration of the block."""
    if tracer is None:
        return nullcontext(NO_TRACE)
    attributes: dict[str, str | int] = {
        span_names.RUN_ID: run_id,
        span_names.CASE_ID: case_id,
        span_names.TRIAL: trial,
        span_names.CONFIG_VERSION: config_version,
    }
    return _RequestSpan(tracer, attributes)


class _RequestSpan:
    """The request span's block: the span current inside it, its identifiers given out."""

    __slots__ = ("_attributes", "_current", "_tracer")

    def __init__(self, tracer: Tracer, attributes: dict[str, str | int]) -> None:
        self._tracer = tracer
        self._attributes = attributes

    def __enter__(self) -> RequestTrace:
        current = self._tracer.start_as_current_span(
            span_names.REQUEST_SPAN, attributes=self._attributes
        )
        span = current.__enter__()
        self._current = current
        ctx = span.get_span_context()
        trace_id = f"{ctx.trace_id:032x}"
        state = ctx.trace_state  # of the trace it continues, if any
        return RequestTrace(
            span,
            f"00-{trace_id}-{ctx.span_id:016x}-{int(ctx.trace_flags):02x}",
            trace_id,
            (state.to_header() or None) if state else None,
        )

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> bool | None:
        return self._current.__exit__(exc_type, exc_val, exc_tb)


def mark_outcome(trace: RequestTrace, outcome: Outcome) -> None:
    """Put the outcome's kind on the request span; an error outcome also sets the span's
    error status and ``error.type`` (the error class), as OpenTelemetry asks of a failed
    operation."""
    if trace.span is None:
        return
    trace.span.set_attribute(span_names.OUTCOME_KIND, outcome.kind)
    if isinstance(outcome, Error):
        from opentelemetry.trace import Status, StatusCode

        error_type = outcome.error_class or "_OTHER"
        trace.span.set_attribute("error.type", error_type)
        detail = f"{error_type}: {outcome.message}" if outcome.message else error_type
        trace.span.set_status(Status(StatusCode.ERROR, detail))


def evaluation_span(tracer: Tracer | None, judged: list[Judgment]) -> AbstractContextManager[None]:
    """An ``assay.evaluation`` span around grading; its attributes name the judgment
    appended to ``judged`` inside the block."""
    if tracer is None:
        return nullcontext()
    return _EvaluationSpan(tracer, judged)


class _EvaluationSpan:
    """The evaluation span's block: the span current inside it, named after the judgment
    made in it when the block ends normally."""

    __slots__ = ("_current", "_judged", "_span", "_tracer")

    def __init__(self, tracer: Tracer, judged: list[Judgment]) -> None:
        self._tracer = tracer
        self._judged = judged

    def __enter__(self) -> None:
        current = self._tracer.start_as_current_span(span_names.EVALUATION_SPAN)
        self._span = current.__enter__()
        self._current = current

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> bool | None:
        if exc_type is None and self._judged:
            try:
                self._span.set_attributes(judgment_attributes(self._judged[-1]))
            except BaseException as err:  # ends the span as a failure inside the block would
                if not self._current.__exit__(type(err), err, err.__traceback__):
                    raise
                return None
        return self._current.__exit__(exc_type, exc_val, exc_tb)


REASON_LIMIT = 200


def judgment_attributes(j: Judgment) -> dict[str, str | float | list[str]]:
    """The evaluation record on a span: case, grader, status, labels, score, and the
    reason (its first ``REASON_LIMIT`` characters)."""
    reason = j.reason if len(j.reason) <= REASON_LIMIT else j.reason[: REASON_LIMIT - 1] + "…"
    attributes: dict[str, str | float | list[str]] = {
        span_names.CASE_ID: j.case_id,
        span_names.GRADER_NAME: j.grader,
        span_names.GRADER_VERSION: j.grader_version,
        span_names.JUDGMENT_STATUS: j.status,
        span_names.JUDGMENT_REASON: reason,
    }
    if j.labels:
        attributes[span_names.JUDGMENT_LABELS] = list(j.labels)
    if j.score is not None:
        attributes[span_names.JUDGMENT_SCORE] = j.score
    return attributes


@contextmanager
def judge_span(tracer: Tracer | None, model: str) -> Iterator[dict[str, str | int]]:
    """An ``assay.judge`` span around one call to a model judge; the attributes put in
    the yielded mapping inside the block (usage, attempts, status) are set on it."""
    found: dict[str, str | int] = {}
    if tracer is None:
        yield found
        return
    with tracer.start_as_current_span(
        span_names.JUDGE_SPAN, attributes={span_names.GEN_AI_REQUEST_MODEL: model}
    ) as span:
        yield found
        span.set_attributes(found)
