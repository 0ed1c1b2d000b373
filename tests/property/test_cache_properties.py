"""The response cache's key, written around a request encoded once, is the content hash
of the key's mapping it has always been (also when a request's text is made around its
chat messages), and a stored reply reads back, the short way, exactly as the long way reads
it, into the record validation makes: no cached reply is lost, misattributed or altered."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from assay.cases import canonical_json, content_hash
from assay.outcomes import Abstain, Answer, Record, Usage
from assay.runner._cache import (
    _SLOT,
    CACHE_KEY_VERSION,
    CachedReply,
    RequestFrames,
    ResponseCache,
    _cached,
    _cached_slowly,
    cache_key,
    served_record,
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


# Values that are equal in Python yet encode differently (0, 0.0, -0.0, False), and the
# marker the frames put in place of the messages, so that reusing a frame wrongly shows.
TRICKY: st.SearchStrategy[Any] = st.sampled_from(
    [0, 0.0, -0.0, False, 1, 1.0, True, None, "", "0", _SLOT, float("nan"), float("inf")]
)
VALUE: st.SearchStrategy[Any] = st.recursive(
    TRICKY | st.integers() | st.floats() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(["a", "b", _SLOT, "messages"]), inner, max_size=3)
    ),
    max_leaves=8,
)
MESSAGES = st.lists(
    st.dictionaries(st.sampled_from(["role", "content"]), VALUE, max_size=2), max_size=3
)


@st.composite
def requests(draw: st.DrawFn) -> dict[str, Any]:
    """A request shaped as the ``openai`` target's, any of whose parts may vary."""
    body = draw(st.dictionaries(st.sampled_from(["model", "seed", "temperature"]), VALUE))
    body["messages"] = draw(MESSAGES | VALUE)
    request = draw(st.dictionaries(st.sampled_from(["method", "url", "headers"]), VALUE))
    request["body"] = draw(st.just(body) | VALUE)
    return request


@settings(max_examples=300, deadline=None)
@given(first=requests(), others=st.lists(requests() | VALUE, max_size=5), messages=MESSAGES)
def test_requests_encoded_around_their_messages_are_their_canonical_json(
    first: dict[str, Any], others: list[Any], messages: list[Any]
) -> None:
    frames = RequestFrames()
    sequence = [first, *others]
    if isinstance(first.get("body"), dict):  # the usual run: only the messages vary
        sequence.append({**first, "body": {**first["body"], "messages": messages}})
    for request in sequence:
        assert frames.encode(request) == canonical_json(request)


@settings(max_examples=300, deadline=None)
@given(
    outcome=OUTCOMES,
    usage=USAGE,
    extra=st.dictionaries(st.text(), JSON, max_size=4),
    latency=st.none() | st.floats(allow_nan=False) | st.integers(),
    attempts=st.integers(min_value=1, max_value=20),
    case_id=st.text(min_size=1, max_size=5),
    trial=st.integers(min_value=1, max_value=9),
)
def test_a_served_record_is_the_record_validation_makes(
    outcome: Answer | Abstain,
    usage: Usage | None,
    extra: dict[str, Any],
    latency: float | None,
    attempts: int,
    case_id: str,
    trial: int,
) -> None:
    hit = CachedReply(Reply(outcome, usage, None, extra), latency, attempts, "2026-12-01", "r")
    made = served_record(hit, case_id, trial)
    note = {"hit": True, "key_version": CACHE_KEY_VERSION, "created_at": "2026-12-01"}
    validated = Record(
        case_id=case_id,
        trial=trial,
        outcome=outcome,
        attempts=attempts,
        latency_ms=latency,
        usage=usage,
        extra={**extra, "cache": {**note, "run_id": "r"}},
    )
    assert made == validated
    assert made.model_fields_set == validated.model_fields_set
    assert made.model_dump_json() == validated.model_dump_json()
    assert type(made.latency_ms) is type(validated.latency_ms)


def test_a_request_changed_in_place_or_by_type_is_encoded_as_it_is_now() -> None:
    frames = RequestFrames()
    schema = {"type": "object", "strict": True, "limits": [1, 2.5]}
    body: dict[str, Any] = {"model": "m", "temperature": 0, "format": schema, "messages": []}
    request = {"url": "http://h/v1", "body": body}
    texts = []
    for change in (
        lambda: None,
        lambda: body.update(temperature=0.0),
        lambda: body.update(temperature=-0.0),
        lambda: body.update(temperature=False),
        lambda: schema.update(strict=1),
        lambda: schema["limits"].append(3),  # type: ignore[attr-defined]
        lambda: body.update(messages=[{"role": "user", "content": "hi"}]),
        lambda: body.update(model=_SLOT),
    ):
        change()  # the same objects, changed in place, as a target reusing them might
        texts.append(frames.encode(request))
        assert texts[-1] == canonical_json(request)
    assert len(set(texts)) == len(texts)
