"""The span limits a ``StoreTracer`` applies, read from the environment exactly as the
OpenTelemetry SDK's ``SpanLimits()`` reads them, without loading the SDK.

A limit's own variable wins over the global one (``OTEL_ATTRIBUTE_COUNT_LIMIT``,
``OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT``), which wins over the default; a variable set to the
empty string means "no limit"; anything but a non-negative integer is a ``ValueError``
with the SDK's message.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from assay.errors import AssayConfigError

_DEFAULT_COUNT = 128  # the SDK's default for every count limit


def _from_env(environ: Mapping[str, str], name: str, default: int | None) -> int | None:
    """The SDK's ``SpanLimits._from_env_if_absent`` for a limit not given as an argument."""
    if name not in environ:
        return default
    text = environ.get(name, "").strip().lower()
    if text == "":
        return None
    try:
        value = int(text)
    except ValueError:
        raise ValueError(f"{name} must be a non-negative integer but got {text}") from None
    if value < 0:
        raise ValueError(f"{name} must be a non-negative integer but got {value}")
    return value


@dataclass(frozen=True, slots=True)
class StoreLimits:
    """What the SDK's ``SpanLimits()`` holds for the same environment (``None``: no limit)."""

    max_attributes: int | None
    max_events: int | None
    max_links: int | None
    max_span_attributes: int | None
    max_event_attributes: int | None
    max_link_attributes: int | None
    max_attribute_length: int | None
    max_span_attribute_length: int | None

    @classmethod
    def from_environ(cls, environ: Mapping[str, str]) -> StoreLimits:
        """The limits ``environ`` sets, in the SDK's order of reading (so the same
        variable's error is raised first)."""
        max_events = _from_env(environ, "OTEL_SPAN_EVENT_COUNT_LIMIT", _DEFAULT_COUNT)
        max_links = _from_env(environ, "OTEL_SPAN_LINK_COUNT_LIMIT", _DEFAULT_COUNT)
        global_count = _from_env(environ, "OTEL_ATTRIBUTE_COUNT_LIMIT", None)
        count = global_count if global_count is not None else _DEFAULT_COUNT
        max_span_attributes = _from_env(environ, "OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT", count)
        max_event_attributes = _from_env(environ, "OTEL_EVENT_ATTRIBUTE_COUNT_LIMIT", count)
        max_link_attributes = _from_env(environ, "OTEL_LINK_ATTRIBUTE_COUNT_LIMIT", count)
        max_length = _from_env(environ, "OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT", None)
        max_span_length = _from_env(environ, "OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT", max_length)
        return cls(
            max_attributes=count,
            max_events=max_events,
            max_links=max_links,
            max_span_attributes=max_span_attributes,
            max_event_attributes=max_event_attributes,
            max_link_attributes=max_link_attributes,
            max_attribute_length=max_length,
            max_span_attribute_length=max_span_length,
        )


def check_span_limits(environ: Mapping[str, str] | None = None) -> None:
    """Raise ``AssayConfigError`` naming the variable when an ``OTEL_*`` span limit in
    ``environ`` (the process's by default) is not a non-negative integer: bad input,
    reported before a run starts rather than as a failure inside it."""
    try:
        StoreLimits.from_environ(os.environ if environ is None else environ)
    except ValueError as err:
        raise AssayConfigError(
            f"environment: {err} (an OpenTelemetry span limit: unset it, or set a whole "
            "number of 0 or more)"
        ) from None
