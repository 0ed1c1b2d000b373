"""The store tracer's limits are the SDK's ``SpanLimits()`` for every environment."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from opentelemetry.sdk.trace import SpanLimits

from assay.errors import AssayConfigError
from assay.tracing._limits import StoreLimits, check_span_limits
from assay.tracing._store_tracer import StoreTracer

VARIABLES = (
    "OTEL_ATTRIBUTE_COUNT_LIMIT",
    "OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT",
    "OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT",
    "OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT",
    "OTEL_SPAN_EVENT_COUNT_LIMIT",
    "OTEL_SPAN_LINK_COUNT_LIMIT",
    "OTEL_EVENT_ATTRIBUTE_COUNT_LIMIT",
    "OTEL_LINK_ATTRIBUTE_COUNT_LIMIT",
)
FIELDS = (
    "max_attributes",
    "max_events",
    "max_links",
    "max_span_attributes",
    "max_event_attributes",
    "max_link_attributes",
    "max_attribute_length",
    "max_span_attribute_length",
)
# Set, unset ("" means no limit), padded, zero, negative, not a number, a float.
VALUES = ("7", "0", " 12 ", "", "  ", "-1", "abc", "1.5", "+3", "00", "9" * 30)


@pytest.fixture(autouse=True)
def _clean(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for name in VARIABLES:
        monkeypatch.delenv(name, raising=False)
    yield


def outcome(make: object) -> tuple[str, object]:
    """The limits ``make()`` gives, or the error it raises, in comparable form."""
    try:
        limits = make()  # type: ignore[operator]
    except ValueError as error:
        return ("error", str(error))
    return ("limits", tuple(getattr(limits, field) for field in FIELDS))


def both(monkeypatch: pytest.MonkeyPatch, env: dict[str, str]) -> tuple[object, object]:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    try:
        return outcome(SpanLimits), outcome(lambda: StoreLimits.from_environ(os.environ))
    finally:
        for name in env:
            monkeypatch.delenv(name)


def test_without_variables_the_defaults_are_the_sdks(monkeypatch: pytest.MonkeyPatch) -> None:
    sdk, ours = both(monkeypatch, {})
    assert ours == sdk == ("limits", (128, 128, 128, 128, 128, 128, None, None))


@pytest.mark.parametrize("name", VARIABLES)
@pytest.mark.parametrize("value", VALUES)
def test_each_variable_alone_reads_as_in_the_sdk(
    monkeypatch: pytest.MonkeyPatch, name: str, value: str
) -> None:
    sdk, ours = both(monkeypatch, {name: value})
    assert ours == sdk


@pytest.mark.parametrize("specific", ["7", "", None, "x"])
@pytest.mark.parametrize("general", ["3", "", None, "-2"])
@pytest.mark.parametrize(
    ("specific_name", "general_name"),
    [
        ("OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT", "OTEL_ATTRIBUTE_COUNT_LIMIT"),
        ("OTEL_EVENT_ATTRIBUTE_COUNT_LIMIT", "OTEL_ATTRIBUTE_COUNT_LIMIT"),
        ("OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT", "OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT"),
    ],
)
def test_a_specific_limit_wins_over_the_global_one_as_in_the_sdk(
    monkeypatch: pytest.MonkeyPatch,
    specific_name: str,
    general_name: str,
    specific: str | None,
    general: str | None,
) -> None:
    env = {specific_name: specific} if specific is not None else {}
    if general is not None:
        env[general_name] = general
    sdk, ours = both(monkeypatch, env)
    assert ours == sdk


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(VARIABLES),
        st.one_of(st.sampled_from(VALUES), st.integers(-5, 500).map(str), st.text(max_size=4)),
    )
)
def test_any_environment_reads_as_in_the_sdk(env: dict[str, str]) -> None:
    with pytest.MonkeyPatch.context() as monkeypatch:
        for name in VARIABLES:
            monkeypatch.delenv(name, raising=False)
        env = {name: value for name, value in env.items() if "\x00" not in value}
        sdk, ours = both(monkeypatch, env)
    assert ours == sdk


def test_the_store_tracer_reads_its_limits_when_made(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OTEL_ATTRIBUTE_COUNT_LIMIT", "5")
    monkeypatch.setenv("OTEL_SPAN_EVENT_COUNT_LIMIT", "")
    tracer = StoreTracer(sink=None, run_id="r")  # type: ignore[arg-type]
    assert (tracer.max_attributes, tracer.max_length, tracer.limits.max_events) == (5, None, None)
    assert outcome(lambda: tracer.limits) == outcome(SpanLimits)


def test_a_bad_limit_is_reported_as_bad_input_naming_the_variable() -> None:
    with pytest.raises(AssayConfigError, match="OTEL_SPAN_EVENT_COUNT_LIMIT must be a non-neg"):
        check_span_limits({"OTEL_SPAN_EVENT_COUNT_LIMIT": "-1"})
    check_span_limits({"OTEL_SPAN_EVENT_COUNT_LIMIT": "", "OTEL_ATTRIBUTE_COUNT_LIMIT": "3"})
