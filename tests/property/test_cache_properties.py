"""The response cache's key, written around a request encoded once, is the content hash
of the key's mapping it has always been, and a stored reply reads back, the short way,
exactly as the long way reads it: no cached reply is lost, misattributed or altered."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from assay.cases import content_hash
from assay.outcomes import Abstain, Answer, Usage
from assay.runner._cache import (
    CACHE_KEY_VERSION,
    ResponseCache,
    _cached,
    _cached_slowly,
    cache_key,
)
from assay.targets import Reply

JSON: st.SearchStrategy[Any] = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(request=JSON, config=st.text(), trial=st.none() | st.integers(min_value=1))
def test_the_key_is_the_content_hash_of_its_mapping(
    request: Any, config: str, trial: int | None
) -> None:
    mapping = {
        "key_version": CACHE_KEY_VERSION,
        "target": config,
        "request": request,
        "trial": trial,
    }
    assert cache_key(config, request, trial) == content_hash(mapping)


OUTCOMES = st.one_of(
    st.builds(
        Answer,
        fact=st.text(),
        text=st.none() | st.text(),
        citations=st.lists(st.text(), max_size=3).map(tuple),
    ),
    st.builds(Answer, text=st.text()),
    st.builds(Abstain, reason=st.none() | st.text(), text=st.none() | st.text()),
)
USAGE = st.none() | st.builds(
    Usage,
    input_tokens=st.none() | st.integers(min_value=0),
    output_tokens=st.none() | st.integers(min_value=0),
)


@settings(max_examples=300, deadline=None)
@given(
    outcome=OUTCOMES,
    usage=USAGE,
    extra=st.dictionaries(st.text(), JSON, max_size=4),
    latency=st.none() | st.floats(min_value=0, allow_nan=False, allow_infinity=False),
    attempts=st.integers(min_value=1, max_value=20),
)
def test_a_stored_reply_reads_back_as_the_long_way_reads_it(
    outcome: Answer | Abstain,
    usage: Usage | None,
    extra: dict[str, Any],
    latency: float | None,
    attempts: int,
) -> None:
    cache = ResponseCache(":memory:")
    now = datetime(2026, 12, 1, tzinfo=UTC)
    assert cache.put("k", "t", Reply(outcome, usage, None, extra), latency, attempts, "r", now)
    text, created_at = cache._pending["k"][4], cache._pending["k"][2]
    fast, slow = _cached(text, created_at), _cached_slowly(text, created_at)
    assert fast == slow
    assert fast.reply.outcome == outcome and fast.reply.usage == usage
    assert (fast.latency_ms, fast.attempts, fast.run_id) == (latency, attempts, "r")
    cache.close()
