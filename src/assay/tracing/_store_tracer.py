"""A tracer whose spans go only to the run store.

When no OTLP collector is configured, the run store is the only consumer of a run's spans,
and the SDK's general machinery (span processors, samplers, per-span locks, attribute
containers cleaning every value) costs more than the call it traces. ``StoreTracer`` makes
real OpenTelemetry API spans (current in the context, propagated as ``traceparent``) that
record exactly what the SDK records with ``ALWAYS_ON`` sampling and the same span limits,
and become stored ``Span`` rows when they end. With a collector, the SDK is used instead.
"""

from __future__ import annotations

import functools
import inspect
import logging
import os
import threading
import time
import traceback
from collections import deque
from collections.abc import Mapping, Sequence
from contextlib import ContextDecorator
from random import getrandbits
from types import TracebackType
from typing import TYPE_CHECKING, Any

from opentelemetry import context as context_api
from opentelemetry import trace
from opentelemetry.attributes import BoundedAttributes, _clean_attribute_value
from opentelemetry.context import Context, get_current
from opentelemetry.trace import SpanContext, SpanKind, Status, StatusCode, TraceFlags
from opentelemetry.trace.propagation import _SPAN_KEY
from opentelemetry.util import types

from assay.outcomes import Span, SpanRow
from assay.tracing._limits import StoreLimits
from assay.tracing._sink import CASE_ID, STATUS, SpanSink, case_of_attributes

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import SpanLimits

logger = logging.getLogger(__name__)

# Values the SDK stores as given (a string only while no length limit applies).
_SIMPLE = frozenset({bool, int, float, type(None)})
_PLAIN = _SIMPLE | {str}  # values stored as given while no length limit applies
_STR = frozenset({str})
_SAMPLED = TraceFlags.SAMPLED
_RANDOM = TraceFlags.RANDOM_TRACE_ID
_UNSET = Status(StatusCode.UNSET)
_ROOT_FLAGS = TraceFlags(_SAMPLED | _RANDOM)
_CHILD_FLAGS = TraceFlags(_SAMPLED)


def _random_id(bits: int) -> int:
    """A random non-zero id, as the SDK's ``RandomIdGenerator`` makes it."""
    found = getrandbits(bits)
    while not found:
        found = getrandbits(bits)
    return found


def _cleaned(value: Any, kind: type, max_length: int | None) -> Any:
    """``_clean_attribute_value(value, max_length)``; a list of strings without a length
    limit (a response's finish reasons, a judgment's labels) is made a tuple directly."""
    if kind is list and max_length is None and _STR.issuperset(map(type, value)):
        return tuple(value)
    return _clean_attribute_value(value, max_length)


class StoreSpan(trace.Span):
    """One span of a ``StoreTracer``: what the SDK's span records, kept in plain fields."""

    __slots__ = (
        "_attributes",
        "_context",
        "_end_ns",
        "_events",
        "_lock",
        "_name",
        "_parent",
        "_parent_hex",
        "_record_exception",
        "_set_status_on_exception",
        "_start_ns",
        "_status",
        "_trace_id",
        "_tracer",
        "_tuples",
    )

    def __init__(
        self,
        tracer: StoreTracer,
        name: str,
        context: SpanContext,
        parent: SpanContext | None,
        record_exception: bool,
        set_status_on_exception: bool,
        trace_id: int | None = None,
        parent_hex: str | None = None,
    ) -> None:
        self._tracer = tracer
        self._name = name
        self._context = context
        self._parent = parent
        # Read once here: SpanContext's fields are properties.
        self._trace_id = trace_id if trace_id is not None else context.trace_id
        self._parent_hex = (
            parent_hex if parent_hex is not None or parent is None else f"{parent.span_id:016x}"
        )
        self._record_exception = record_exception
        self._set_status_on_exception = set_status_on_exception
        self._attributes: dict[str, Any] = {}
        self._tuples = False  # whether any value is a cleaned sequence (a tuple)
        self._events: deque[tuple[str, Mapping[str, Any]]] | None = None
        self._status = _UNSET
        self._start_ns = 0
        self._end_ns: int | None = None
        self._lock = threading.Lock()

    # -- attributes, as the SDK's bounded attributes keep them --------------------------

    def _put(self, key: str, value: Any) -> None:
        """Clean and store one value (the caller holds the lock and checked the key)."""
        found = self._attributes
        kind = type(value)
        if (
            (kind in _SIMPLE or (kind is str and self._tracer.max_length is None))
            and key not in found
            and len(found) < (self._tracer.max_attributes or 0)
        ):
            found[key] = value  # what the general case does with a plain new value
            return
        self._put_all({key: value})

    def _put_all(self, attributes: Mapping[str, Any]) -> None:
        """Clean and store values as the SDK does: a key set again moves to the end, and
        past the count limit the oldest attribute is dropped."""
        tracer = self._tracer
        limit = tracer.max_attributes
        if limit == 0:
            return
        max_length = tracer.max_length
        found = self._attributes
        if (
            limit is not None
            and len(found) + len(attributes) <= limit
            and "" not in attributes
            and _STR.issuperset(map(type, attributes))
            and found.keys().isdisjoint(attributes)
        ):  # new, valid keys within the limit: nothing moves or is dropped
            if max_length is None and _PLAIN.issuperset(map(type, attributes.values())):
                found.update(attributes)  # nothing to clean either
                return
            for key, value in attributes.items():
                kind = type(value)
                if kind not in _SIMPLE and (kind is not str or max_length is not None):
                    value = _cleaned(value, kind, max_length)
                    if type(value) is tuple:
                        self._tuples = True
                found[key] = value
            return
        for key in attributes:
            if type(key) is not str or not key:
                attributes = _clean_attribute_value(attributes, max_length)
                break
        for key, value in attributes.items():
            kind = type(value)
            if kind not in _SIMPLE and (kind is not str or max_length is not None):
                value = _cleaned(value, kind, max_length)
                if type(value) is tuple:
                    self._tuples = True
            if key in found:
                del found[key]
            if limit is not None and len(found) >= limit:
                logger.debug("span attribute limit reached: the oldest attribute is dropped")
                del found[next(iter(found))]
            found[key] = value

    def set_attributes(self, attributes: Mapping[str, types.AnyValue]) -> None:
        with self._lock:
            if self._end_ns is not None:
                logger.warning("Setting attribute on ended span.")
                return
            self._put_all(attributes)

    def set_attribute(self, key: str, value: types.AnyValue) -> None:
        with self._lock:
            if self._end_ns is not None:
                logger.warning("Setting attribute on ended span.")
                return
            if self._tracer.max_attributes == 0:
                return
            if not key or not isinstance(key, str):
                logger.warning("invalid key `%s`. must be non-empty string.", key)
                return
            self._put(key, value)

    # -- events, links, status, name ----------------------------------------------------

    def add_event(
        self, name: str, attributes: types.Attributes = None, timestamp: int | None = None
    ) -> None:
        tracer = self._tracer
        cleaned = BoundedAttributes(
            tracer.limits.max_event_attributes,
            attributes,
            max_value_len=tracer.limits.max_attribute_length,
            immutable=True,
        )
        with self._lock:
            if self._end_ns is not None:
                logger.warning("Tried calling add_event on an ended span.")
                return
            if self._events is None:
                self._events = deque(maxlen=tracer.limits.max_events)
            self._events.append((name, cleaned))

    def add_link(self, context: SpanContext, attributes: types.Attributes = None) -> None:
        """Links are not stored with a run."""

    def record_exception(
        self,
        exception: BaseException,
        attributes: types.Attributes = None,
        timestamp: int | None = None,
        escaped: bool = False,
    ) -> None:
        module = type(exception).__module__
        qualname = type(exception).__qualname__
        kind = f"{module}.{qualname}" if module and module != "builtins" else qualname
        found: dict[str, Any] = {
            "exception.type": kind,
            "exception.message": str(exception),
            "exception.stacktrace": "".join(traceback.format_exception(exception)),
            "exception.escaped": str(escaped),
        }
        if attributes:
            found.update(attributes)
        self.add_event("exception", found, timestamp)

    def set_status(self, status: Status | StatusCode, description: str | None = None) -> None:
        with self._lock:
            if self._end_ns is not None:
                logger.warning("Tried calling set_status on an ended span.")
                return
            if self._status.status_code is StatusCode.OK:
                return
            if isinstance(status, Status):
                if status.status_code is StatusCode.UNSET:
                    return
                self._status = status
            elif status is not StatusCode.UNSET:
                self._status = Status(status, description)

    def update_name(self, name: str) -> None:
        with self._lock:
            if self._end_ns is None:
                self._name = name

    # -- the span's life ------------------------------------------------------------------

    def get_span_context(self) -> SpanContext:
        return self._context

    def is_recording(self) -> bool:
        return self._end_ns is None

    def end(self, end_time: int | None = None) -> None:
        with self._lock:
            if self._end_ns is not None:
                logger.warning("Calling end() on an ended span.")
                return
            self._end_ns = end_time if end_time is not None else time.time_ns()
        self._tracer.ended(self)

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> None:
        if exc_val is not None and self.is_recording():
            if self._record_exception:
                self.record_exception(exc_val, escaped=True)
            if self._set_status_on_exception:
                description = f"{type(exc_val).__name__}: {exc_val}"
                self.set_status(Status(StatusCode.ERROR, description))
        super().__exit__(exc_type, exc_val, exc_tb)

    @property
    def attributes(self) -> Mapping[str, Any]:
        return self._attributes

    def row(self, case_id: str | None, trial: int | None) -> SpanRow:
        """The stored form of the ended span (exception events become ``exception.*``),
        as ``to_span`` makes it of an SDK span; ``case_id`` and ``trial`` are its trace's
        unless the span names its own."""
        attributes: Mapping[str, Any] = self._attributes
        if self._events:
            attributes = dict(attributes)
            for name, event in self._events:
                if name == "exception" and event:
                    for key in ("exception.type", "exception.message"):
                        if key in event:
                            attributes.setdefault(key, event[key])
        if CASE_ID in self._attributes:
            own_case, own_trial = case_of_attributes(self._attributes)
            case_id = own_case or case_id
            trial = own_trial if own_trial is not None else trial
        status = self._status
        unset = status is _UNSET  # most spans: no status looked up
        return (
            f"{self._trace_id:032x}",
            f"{self._context.span_id:016x}",
            self._parent_hex,
            self._name,
            self._start_ns,
            self._end_ns or self._start_ns,
            "unset" if unset else STATUS[status.status_code],
            None if unset else status.description,
            attributes,
            case_id,
            trial,
        )

    def stored(self, case_id: str | None, trial: int | None) -> Span:
        """The ended span as a ``Span`` (sequences as lists, as ``to_span`` gives them)."""
        row = self.row(case_id, trial)
        attributes = row[8]
        fields = dict(zip(_FIELD_ORDER, row, strict=True))
        if self._tuples:
            fields["attributes"] = {
                k: list(v) if type(v) is tuple else v for k, v in attributes.items()
            }
        else:
            fields["attributes"] = dict(attributes)
        return Span.model_validate(fields)


_FIELD_ORDER = tuple(Span.model_fields)


class _Current(ContextDecorator):
    """A span started on entry and current inside the block: what ``trace.use_span``
    does around ``start_span``, without two generator-based context managers."""

    __slots__ = (
        "_attributes",
        "_context",
        "_end_on_exit",
        "_name",
        "_record",
        "_set_status",
        "_span",
        "_start_time",
        "_token",
        "_tracer",
    )

    def __init__(
        self,
        tracer: StoreTracer,
        name: str,
        context: Context | None,
        attributes: types.Attributes,
        start_time: int | None,
        end_on_exit: bool,
        record_exception: bool,
        set_status_on_exception: bool,
    ) -> None:
        self._tracer = tracer  # the span is its start_span's, in the given parent context
        self._name = name
        self._context = context
        self._attributes = attributes
        self._start_time = start_time
        self._end_on_exit = end_on_exit
        self._record = record_exception
        self._set_status = set_status_on_exception

    def _recreate_cm(self) -> _Current:
        return _Current(
            self._tracer,
            self._name,
            self._context,
            self._attributes,
            self._start_time,
            self._end_on_exit,
            self._record,
            self._set_status,
        )

    def __call__(self, func: Any) -> Any:
        """As a decorator: a span around each call, awaited to the end for a coroutine."""
        if inspect.iscoroutinefunction(func):

            @functools.wraps(func)
            async def spanned(*args: Any, **kwargs: Any) -> Any:
                with self._recreate_cm():
                    return await func(*args, **kwargs)

            return spanned
        return super().__call__(func)

    def __enter__(self) -> trace.Span:
        current = get_current()
        span = self._span = self._tracer.start_span(
            self._name,
            current if self._context is None else self._context,
            SpanKind.INTERNAL,
            self._attributes,
            (),
            self._start_time,
            self._record,
            self._set_status,
        )
        # Current in the current context, whatever context it was started in.
        self._token = context_api.attach(context_api.set_value(_SPAN_KEY, span, current))
        return span

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> None:
        span = self._span
        try:
            context_api.detach(self._token)
            # Only an Exception is an error; GeneratorExit and the like are not.
            if isinstance(exc_val, Exception) and span.is_recording():
                if self._record:
                    span.record_exception(exc_val)
                if self._set_status:
                    description = f"{type(exc_val).__name__}: {exc_val}"
                    span.set_status(Status(StatusCode.ERROR, description))
        finally:
            if self._end_on_exit:
                span.end()


class StoreTracer(trace.Tracer):
    """Makes ``StoreSpan`` spans and writes them to ``sink`` in batches of ``batch_size``,
    in the thread that ends them (a SQLite store is only used from its own thread)."""

    def __init__(
        self,
        sink: SpanSink,
        run_id: str,
        batch_size: int = 256,
        limits: StoreLimits | SpanLimits | None = None,
    ) -> None:
        self.sink = sink
        self.run_id = run_id
        self.batch_size = batch_size
        self.limits = limits or StoreLimits.from_environ(os.environ)
        self.max_attributes: int | None = self.limits.max_span_attributes
        self.max_length: int | None = self.limits.max_span_attribute_length
        self.roots: dict[int, StoreSpan] = {}
        self._buffer: list[StoreSpan] = []
        self._lock = threading.Lock()

    def start_span(
        self,
        name: str,
        context: Context | None = None,
        kind: SpanKind = SpanKind.INTERNAL,
        attributes: types.Attributes = None,
        links: Sequence[trace.Link] | None = (),
        start_time: int | None = None,
        record_exception: bool = True,
        set_status_on_exception: bool = True,
    ) -> trace.Span:
        current = (context if context is not None else get_current()).get(_SPAN_KEY)
        if type(current) is StoreSpan:  # the usual parent: valid and local
            above = current._context
            trace_id = current._trace_id
            span_id = getrandbits(64) or _random_id(64)
            span = StoreSpan(
                self,
                name,
                SpanContext(
                    trace_id,
                    span_id,
                    False,
                    _ROOT_FLAGS if above.trace_flags.random_trace_id else _CHILD_FLAGS,
                    above.trace_state,
                ),
                above,
                record_exception,
                set_status_on_exception,
                trace_id,
                f"{above.span_id:016x}",
            )
            if attributes:
                span._put_all(attributes)
            span._start_ns = start_time if start_time is not None else time.time_ns()
            return span
        if current is None:  # no span current: the root of a new trace
            trace_id = getrandbits(128) or _random_id(128)
            span = StoreSpan(
                self,
                name,
                SpanContext(trace_id, getrandbits(64) or _random_id(64), False, _ROOT_FLAGS),
                None,
                record_exception,
                set_status_on_exception,
                trace_id,
            )
            if attributes:
                span._put_all(attributes)
            span._start_ns = start_time if start_time is not None else time.time_ns()
            self.roots[trace_id] = span
            return span
        parent: SpanContext | None = (
            current.get_span_context() if isinstance(current, trace.Span) else None
        )
        if parent is not None and not isinstance(parent, SpanContext):
            raise TypeError("parent_span_context must be a SpanContext or None.")
        if parent is None or not parent.is_valid:
            parent = None
            span_context = SpanContext(
                _random_id(128), _random_id(64), is_remote=False, trace_flags=_ROOT_FLAGS
            )
        else:
            flags = _ROOT_FLAGS if parent.trace_flags.random_trace_id else _CHILD_FLAGS
            span_context = SpanContext(
                parent.trace_id,
                _random_id(64),
                is_remote=False,
                trace_flags=flags,
                trace_state=parent.trace_state,
            )
        span = StoreSpan(
            self, name, span_context, parent, record_exception, set_status_on_exception
        )
        if attributes:
            span._put_all(attributes)
        span._start_ns = start_time if start_time is not None else time.time_ns()
        if parent is None or parent.is_remote:
            self.roots[span_context.trace_id] = span
        return span

    def start_as_current_span(  # type: ignore[override]
        self,
        name: str,
        context: Context | None = None,
        kind: SpanKind = SpanKind.INTERNAL,
        attributes: types.Attributes = None,
        links: Sequence[trace.Link] | None = (),
        start_time: int | None = None,
        record_exception: bool = True,
        set_status_on_exception: bool = True,
        end_on_exit: bool = True,
    ) -> _Current:
        return _Current(
            self,
            name,
            context,
            attributes,
            start_time,
            end_on_exit,
            record_exception,
            set_status_on_exception,
        )

    def ended(self, span: StoreSpan) -> None:
        with self._lock:
            self._buffer.append(span)
            full = len(self._buffer) >= self.batch_size
        if full:
            self.force_flush()

    def case_of(self, span: StoreSpan) -> tuple[str | None, int | None]:
        root = self.roots.get(span._trace_id)
        return case_of_attributes(root._attributes if root is not None else None)

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        """Write the ended spans not yet written; a request's trace is complete (and
        forgotten) once its root span is written."""
        with self._lock:
            batch, self._buffer = self._buffer, []
        if not batch:
            return True
        add_rows = getattr(self.sink, "add_span_rows", None)
        if add_rows is not None:
            add_rows(self.run_id, self._rows(batch))
        else:
            self.sink.add_spans(self.run_id, [s.stored(*self.case_of(s)) for s in batch])
        roots = self.roots
        for span in batch:
            trace_id = span._trace_id
            root = roots.get(trace_id)
            if root is span:
                del roots[trace_id]
        return True

    def _rows(self, batch: list[StoreSpan]) -> list[SpanRow]:
        """The batch's rows, each trace's case and trial read from its root once."""
        cases: dict[int, tuple[str | None, int | None]] = {}
        rows = []
        for span in batch:
            trace_id = span._trace_id
            case = cases.get(trace_id)
            if case is None:
                case = cases[trace_id] = self.case_of(span)
            rows.append(span.row(*case))
        return rows

    def shutdown(self) -> None:
        self.force_flush()
        self.roots.clear()
