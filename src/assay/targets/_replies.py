"""Turning what a target got back into a ``Reply``: outcomes, error classes, Retry-After."""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any

from pydantic import ValidationError

from assay._controls import LONE_SURROGATE
from assay.errors import AssayConfigError
from assay.outcomes import (
    OUTCOME_ADAPTER,
    TRAJECTORY_KEY,
    Abstain,
    Answer,
    Error,
    Outcome,
    Record,
    Trajectory,
    Usage,
    trajectory_extra,
)
from assay.targets._base import Reply
from assay.targets._secrets import Masker

_OUTCOME = OUTCOME_ADAPTER
RAW_LIMIT = 4000
RETRYABLE: frozenset[str] = frozenset({"timeout", "http_429", "http_5xx", "connection_error"})


def error_reply(
    error_class: str, message: str, raw: str | None = None, retry_after_s: float | None = None
) -> Reply:
    """A ``Reply`` carrying an ``Error`` outcome of the given class."""
    if raw is not None and len(raw) > RAW_LIMIT:
        raw = f"{raw[:RAW_LIMIT]}… [truncated: {len(raw)} characters in all]"
    return Reply(Error(error_class=error_class, message=message, raw=raw), None, retry_after_s)


# Exception classes (by name, anywhere in an exception's ancestry) that mean the system
# could not be reached: Python's own, requests' (an OSError, not a builtin
# ConnectionError), httpx's and aiohttp's. Names, so that no client library is imported.
CONNECTION_ERRORS = frozenset({"ConnectionError", "ConnectError", "ClientConnectionError"})


def exception_reply(err: BaseException) -> Reply:
    """The ``Error`` reply for an exception: ``timeout``, ``connection_error`` (refused,
    reset, aborted: the system could not be reached) or ``exception:<Type>``."""
    if isinstance(err, TimeoutError):
        return error_reply("timeout", str(err) or "the call timed out")
    detail = f"{type(err).__name__}: {err}" if str(err) else type(err).__name__
    if any(kind.__name__ in CONNECTION_ERRORS for kind in type(err).__mro__):
        return connection_error_reply(detail)
    return error_reply(f"exception:{type(err).__name__}", str(err) or type(err).__name__)


TRACEBACK_FRAMES = 6


def traceback_text(err: BaseException, frames: int = TRACEBACK_FRAMES) -> str:
    """The last ``frames`` frames of ``err``'s traceback (file:line, function, source line)
    and the exception itself, as Python prints them."""
    import traceback

    stack = traceback.extract_tb(err.__traceback__)[-frames:]
    lines = traceback.format_list(stack)
    lines += traceback.format_exception_only(type(err), err)
    return "".join(lines)


def with_traceback(reply: Reply, err: BaseException) -> Reply:
    """``reply`` (the error outcome of ``err``) keeping the traceback in ``extra``."""
    return replace(reply, extra={**reply.extra, "traceback": traceback_text(err)})


def connection_error_reply(detail: str, url: str | None = None) -> Reply:
    """A ``connection_error`` reply: the system could not be reached (``detail`` says why)."""
    where = f" to {url}" if url else ""
    return error_reply("connection_error", f"no connection{where}: {detail}")


ENV_NAME = r"^[A-Za-z_][A-Za-z0-9_]*$"


def secret_from_env(name: str, setting: str) -> str:
    """The value of environment variable ``name``, read when a run starts; a missing one,
    or one with a line break or surrounding spaces (a key pasted with its newline), is a
    configuration error naming the target ``setting`` that asks for it."""
    value = os.environ.get(name)
    if not value:
        raise AssayConfigError(
            f"target.{setting}: the environment variable {name} is not set; "
            "export it before running"
        )
    if value != value.strip() or any(ord(c) < 32 or ord(c) == 127 for c in value):
        raise AssayConfigError(
            f"target.{setting}: the environment variable {name} holds a line break, a "
            "control character or surrounding spaces (a key copied with its newline?); "
            f"set it to the bare value, e.g. export {name}=\"$(tr -d '\\n' < keyfile)\""
        )
    return value


@functools.lru_cache(maxsize=64)
def _masker(secrets: tuple[str, ...]) -> Masker:
    return Masker(secrets)


def scrub(reply: Reply, secrets: Sequence[str]) -> Reply:
    """``reply`` with each secret masked (``<redacted>``) wherever it appears: in any
    outcome kind and in the extra data, raw or in any encoding a server may echo (see
    ``Masker``): a server that echoes a request's key must not put it in the store. A
    reply ``scrub`` returned is returned as it is by a later call with the same secrets,
    so no reply's data may change once it is masked."""
    if not secrets:
        return reply
    return _masker(tuple(secrets)).reply(reply)


def _surrogate_at(value: Any, where: str) -> str | None:
    """Where in ``value`` (dicts, lists and tuples of it walked) a text holds a lone
    UTF-16 surrogate, as ``where.key[1]``; None when none does."""
    if isinstance(value, str):
        return None if value.isascii() or not LONE_SURROGATE.search(value) else where
    if isinstance(value, dict):
        items: Any = value.items()
    elif isinstance(value, list | tuple):
        items = enumerate(value)
    else:
        return None
    for key, item in items:
        if isinstance(key, str) and not key.isascii() and LONE_SURROGATE.search(key):
            return f"{where}.{key.encode('unicode_escape').decode('ascii')}"
        found = _surrogate_at(item, f"{where}[{key}]" if isinstance(key, int) else f"{where}.{key}")
        if found is not None:
            return found
    return None


def refuse_non_text(reply: Reply) -> Reply:
    """``reply``, or a ``parse_error`` in its place when its outcome or extra data holds a
    lone UTF-16 surrogate: that is not text, and could be neither stored nor printed (a
    file holding one is refused the same way)."""
    where = _surrogate_at(vars(reply.outcome), "reply") or _surrogate_at(reply.extra, "extra")
    if where is None:
        return reply
    return error_reply(
        "parse_error",
        f"the reply is not text: {where} holds a lone UTF-16 surrogate (a \\ud800 to \\udfff "
        "without its pair), which cannot be stored or printed",
    )


def http_error_class(status: int) -> str:
    """``http_429``, ``http_5xx`` or ``http_4xx`` for a failing HTTP status."""
    if status == 429:
        return "http_429"
    return "http_5xx" if status >= 500 else "http_4xx"


def retry_after_seconds(value: str | None) -> float | None:
    """Seconds to wait from a Retry-After header (delta seconds or an HTTP date)."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


def outcome_from_mapping(data: Mapping[str, Any]) -> Outcome:
    """An outcome from its flat form (``{"kind": "answer", "fact": ...}``).

    Without ``kind``, a mapping carrying ``fact`` or ``text`` is an answer. ``class`` is
    accepted for ``error_class``. Raises ``ValueError`` when it is not an outcome.
    """
    raw = dict(data)
    if "kind" not in raw:
        if raw.get("fact") is None and raw.get("text") is None:
            raise ValueError('not an outcome: no "kind", "fact" or "text"')
        raw["kind"] = "answer"
    if raw.get("kind") == "error" and "class" in raw:
        raw["error_class"] = raw.pop("class")
    if raw.get("kind") == "answer" and isinstance(raw.get("citations"), list):
        raw["citations"] = tuple(str(c) for c in raw["citations"])
    try:
        return _OUTCOME.validate_python(raw)
    except ValidationError as err:
        first = err.errors(include_url=False)[0]
        where = ".".join(str(p) for p in first["loc"][1:])
        raise ValueError(f"not an outcome: {where + ': ' if where else ''}{first['msg']}") from None


def _raw_text(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, default=repr)
    except (TypeError, ValueError):
        return repr(value)


TRAJECTORY_FIELDS = ("steps", "ended", "state_before", "state_after")
"""The fields of an outcome mapping that carry the trajectory of an application that runs
its own agent loop (``Trajectory``'s fields): kept in ``extra["trajectory"]``."""


def _with_trajectory(data: Mapping[str, Any]) -> Reply:
    """The reply of an outcome mapping that may carry a trajectory (``TRAJECTORY_FIELDS``);
    a trajectory that is not one is a ``parse_error`` naming its first bad field."""
    carried = {k: data[k] for k in TRAJECTORY_FIELDS if k in data}
    outcome = outcome_from_mapping({k: v for k, v in data.items() if k not in carried})
    if not carried:
        return Reply(outcome)
    try:
        trajectory = Trajectory.model_validate(carried)
    except ValidationError as err:
        first = err.errors(include_url=False)[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ValueError(f"not a trajectory: {where}: {first['msg']}") from None
    return Reply(outcome, extra={TRAJECTORY_KEY: trajectory_extra(trajectory)})


def as_reply(value: Any) -> Reply:
    """A ``Reply`` from whatever a callable returned: a ``Reply``, an outcome, a record, a
    flat outcome mapping or a string of JSON. Anything else is a ``parse_error``.

    A mapping may also carry the trajectory of an agent loop the application runs itself
    (``steps``, ``ended``, ``state_before``, ``state_after``: see docs/agents.md); it is
    kept in ``extra["trajectory"]``."""
    if isinstance(value, Reply):
        return value
    if isinstance(value, Answer | Abstain | Error):
        return Reply(value)
    if isinstance(value, Record):
        return Reply(value.outcome, value.usage)
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError as err:
            return error_reply("parse_error", f"reply is not JSON: {err.msg}", value)
    if isinstance(value, Mapping):
        try:
            return _with_trajectory(value)
        except ValueError as err:
            return error_reply("parse_error", str(err), _raw_text(value))
    return error_reply(
        "parse_error", f"a target returned {type(value).__name__}, not an outcome", repr(value)
    )


def usage_from(input_tokens: Any, output_tokens: Any) -> Usage | None:
    """Token usage when either count is an integer, else None."""
    i = input_tokens if isinstance(input_tokens, int) else None
    o = output_tokens if isinstance(output_tokens, int) else None
    if i is None and o is None:
        return None
    return Usage(input_tokens=i, output_tokens=o)
