"""The response cache: target replies kept on disk, keyed by the full request and the trial.

A key is the hash of the cache's key version, the target's configuration (every setting:
endpoint, model, temperature…), the request the target would send for the case (its
rendered messages or body) and the trial number; with ``deterministic`` the trial is left
out, so every trial reuses one reply. Error replies are never stored. A served reply keeps
its original timestamp, latency and usage, and is marked ``cache.hit`` in the record.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Annotated, Any, Protocol

from pydantic import BaseModel, BeforeValidator, ConfigDict, ValidationError

from assay.cases import Case, canonical_json
from assay.errors import AssayConfigError
from assay.outcomes import Error, Outcome, Record, Usage
from assay.targets import Reply, Target, outcome_from_mapping

CACHE_KEY_VERSION = 1
CACHE_FILE = "cache.db"
_SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    key_version INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    target TEXT NOT NULL,
    reply TEXT NOT NULL
)
"""


def request_of(target: Target, case: Case) -> Any:
    """What ``target`` would send for ``case``: its own rendering when it shows one
    (``request(case)``), else the case's full definition."""
    shown = target.request(case)
    return shown if shown is not None else case.model_dump(mode="json", exclude_none=True)


def cache_key(config_hash: str, request: Any, trial: int | None) -> str:
    """The key of one request at one trial (``None``: any trial, a deterministic target);
    ``config_hash`` is the content hash of the target's full configuration.

    The content hash of ``{"key_version", "request", "target", "trial"}``."""
    return _key_of(canonical_json(config_hash), canonical_json(request), trial)


def _key_of(target_json: str, request_json: str, trial: int | None) -> str:
    """``cache_key`` from the canonical JSON of the configuration hash and of the request
    (each encoded once for many keys): the key mapping's canonical JSON, hashed."""
    text = (
        f'{{"key_version":{CACHE_KEY_VERSION},"request":{request_json},'
        f'"target":{target_json},"trial":{"null" if trial is None else int(trial)}}}'
    )
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class CachedReply:
    """A reply served from the cache, with what was measured when it was first made."""

    reply: Reply
    latency_ms: float | None
    attempts: int
    created_at: str
    run_id: str


def served_record(hit: CachedReply, case_id: str, trial: int) -> Record:
    """The record of ``case_id`` at ``trial`` served from the cache: the reply's outcome,
    usage and extra with its original latency and attempts, marked ``cache.hit``."""
    note = {
        "hit": True,
        "key_version": CACHE_KEY_VERSION,
        "created_at": hit.created_at,
        "run_id": hit.run_id,
    }
    extra = {**hit.reply.extra, "cache": note}
    latency, attempts = hit.latency_ms, hit.attempts
    return Record(
        case_id=case_id,
        trial=trial,
        outcome=hit.reply.outcome,
        attempts=attempts,
        latency_ms=latency,
        usage=hit.reply.usage,
        extra=extra,
    )


@dataclass(frozen=True)
class CacheStats:
    """What a cache file holds."""

    path: str
    entries: int
    bytes: int
    oldest: str | None
    newest: str | None
    by_key_version: dict[int, int]


class ResponseCache:
    """A SQLite file of replies; ``put`` buffers writes until ``flush`` (or ``close``);
    ``read_ahead`` reads many entries in one query for the ``get`` calls to come."""

    def __init__(self, path: str | Path, *, batch: int = 500) -> None:
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            # A commit is not synced to disk (the run store does the same): a crash of the
            # machine may drop the latest replies, which the next run then asks for again.
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute("PRAGMA busy_timeout=10000")
            self._db.execute(_SCHEMA)
        except (OSError, sqlite3.Error) as err:
            raise AssayConfigError(f"cannot open the response cache {self.path}: {err}") from None
        self._pending: dict[str, tuple[str, int, str, str, str]] = {}
        self._batch = batch
        # Entries read ahead: (reply, created_at), or None when the file had no entry.
        self._read: dict[str, tuple[str, str] | None] = {}
        self.write_error: str | None = None

    def get(self, key: str) -> CachedReply | None:
        """The reply stored under ``key``, or None (also for an entry that cannot be read:
        the target is asked again and the entry replaced)."""
        pending = self._pending.get(key)
        if pending is not None:
            return _cached(pending[4], pending[2])
        if key in self._read:
            row = self._read[key]
        else:
            row = self._db.execute(
                "SELECT reply, created_at FROM responses WHERE key = ?", (key,)
            ).fetchone()
        if row is None:
            return None
        try:
            return _cached(row[0], row[1])
        except (ValueError, KeyError, TypeError):
            return None

    def read_ahead(self, keys: Sequence[str]) -> None:
        """Read the entries of ``keys`` now, in few queries, for ``get`` to serve."""
        wanted = [k for k in dict.fromkeys(keys) if k not in self._read]
        for start in range(0, len(wanted), _QUERY_KEYS):
            chunk = wanted[start : start + _QUERY_KEYS]
            marks = ",".join("?" * len(chunk))
            try:
                rows = self._db.execute(
                    f"SELECT key, reply, created_at FROM responses WHERE key IN ({marks})", chunk
                ).fetchall()
            except sqlite3.Error:
                return  # ``get`` asks for each entry itself
            found = {row[0]: (row[1], row[2]) for row in rows}
            for key in chunk:
                self._read[key] = found.get(key)

    def forget(self, keys: Sequence[str]) -> None:
        """Drop entries read ahead (``get`` reads them from the file again)."""
        for key in keys:
            self._read.pop(key, None)

    def put(
        self,
        key: str,
        target: str,
        reply: Reply,
        latency_ms: float | None,
        attempts: int,
        run_id: str,
        now: datetime,
    ) -> bool:
        """Keep ``reply`` under ``key``; an error reply is never kept (returns False)."""
        if isinstance(reply.outcome, Error):
            return False
        data = {
            "outcome": reply.outcome.model_dump(mode="json", exclude_none=True),
            "usage": reply.usage.model_dump(mode="json") if reply.usage else None,
            "extra": reply.extra,
            "latency_ms": latency_ms,
            "attempts": attempts,
            "run_id": run_id,
        }
        text = json.dumps(data, default=str)
        self._read.pop(key, None)  # read ahead before this reply was made
        self._pending[key] = (key, CACHE_KEY_VERSION, now.isoformat(), target, text)
        if len(self._pending) >= self._batch:
            self.flush()
        return True

    def flush(self) -> None:
        """Write the buffered replies in one transaction. A cache that cannot be written
        (disk full, locked too long) never stops a run: the replies are not kept, and
        ``write_error`` says why."""
        if not self._pending:
            return
        try:
            with self._transaction():
                self._db.executemany(
                    "INSERT OR REPLACE INTO responses "
                    "(key, key_version, created_at, target, reply) VALUES (?, ?, ?, ?, ?)",
                    list(self._pending.values()),
                )
        except sqlite3.Error as err:
            self.write_error = f"{self.path}: {err}"
        self._pending = {}

    def stats(self) -> CacheStats:
        """Entries, size on disk, oldest and newest entry, entries per key version."""
        self.flush()
        count, oldest, newest = self._db.execute(
            "SELECT COUNT(*), MIN(created_at), MAX(created_at) FROM responses"
        ).fetchone()
        versions = dict(
            self._db.execute(
                "SELECT key_version, COUNT(*) FROM responses GROUP BY key_version ORDER BY 1"
            ).fetchall()
        )
        size = sum(p.stat().st_size for p in _files(self.path))
        return CacheStats(str(self.path), int(count), size, oldest, newest, versions)

    def clear(self, older_than: timedelta | None = None, now: datetime | None = None) -> int:
        """Remove every entry (or those made more than ``older_than`` before ``now``);
        returns how many were removed."""
        self.flush()
        self._read = {}
        with self._transaction():
            if older_than is None:
                gone = self._db.execute("DELETE FROM responses").rowcount
            else:
                cutoff = ((now or datetime.now(UTC)) - older_than).isoformat()
                gone = self._db.execute(
                    "DELETE FROM responses WHERE created_at < ?", (cutoff,)
                ).rowcount
        self._db.execute("VACUUM")
        return int(gone)

    def close(self) -> None:
        self.flush()
        self._db.close()

    def _transaction(self) -> Any:
        db = self._db

        class _Tx:
            def __enter__(self) -> None:
                db.execute("BEGIN IMMEDIATE")

            def __exit__(self, kind: object, *_: object) -> None:
                db.execute("ROLLBACK" if kind is not None else "COMMIT")

        return _Tx()


_SLOT = "\x00assay:messages\x00"
_SLOT_JSON = canonical_json(_SLOT)

_Where = tuple[str | int, ...]


class RequestFrames:
    """``canonical_json`` of many requests that differ only in their chat messages (the
    ``openai`` target's: the same method, URL, headers and body but for ``messages``).

    The text around the messages is encoded once, with a copy of the request it came from
    (its frame); a request equal to the frame but for its messages, with numbers and
    booleans of the same types and floats of the same text (``0 == 0.0 == False`` and
    ``0.0 == -0.0`` encode differently), is encoded as that text with its own messages'
    JSON in place; any other request is encoded whole (and frames the ones after it).
    """

    def __init__(self) -> None:
        self._frame: dict[str, Any] | None = None
        self._numbers: list[tuple[_Where, type, str]] = []
        self._head = ""
        self._tail = ""

    def encode(self, request: Any) -> str:
        """``canonical_json(request)``."""
        if type(request) is not dict:
            return canonical_json(request)
        body = request.get("body")
        if type(body) is not dict:
            return canonical_json(request)
        messages = body.get("messages")
        if type(messages) is not list:
            return canonical_json(request)
        if not self._fits(request, body) and not self._reframe(request):
            return canonical_json(request)
        return self._head + canonical_json(messages) + self._tail

    def _fits(self, request: dict[str, Any], body: dict[str, Any]) -> bool:
        frame = self._frame
        if frame is None or request.keys() != frame.keys():
            return False
        framed = frame["body"]
        if body.keys() != framed.keys():
            return False
        for key, value in request.items():
            if key != "body" and value != frame[key]:
                return False
        for key, value in body.items():
            if key != "messages" and value != framed[key]:
                return False
        for path, kind, text in self._numbers:
            found: Any = request
            for step in path:
                found = found[step]
            if type(found) is not kind or (kind is float and float.__repr__(found) != text):
                return False
        return True

    def _reframe(self, request: dict[str, Any]) -> bool:
        self._frame = None
        shape = {**request, "body": {**request["body"], "messages": _SLOT}}
        if not _plain(shape):
            return False
        parts = canonical_json(shape).split(_SLOT_JSON)
        if len(parts) != 2:  # the marker's text also stands elsewhere in the request
            return False
        self._frame, self._head, self._tail = _copy(shape), parts[0], parts[1]
        self._numbers = list(_numbers(self._frame, ()))
        return True


def _plain(value: Any) -> bool:
    """Only JSON's own types (no subclass), every key a string."""
    t = type(value)
    if t is dict:
        return all(type(k) is str and _plain(v) for k, v in value.items())
    if t is list:
        return all(_plain(v) for v in value)
    return t is str or t is int or t is float or t is bool or value is None


def _copy(value: Any) -> Any:
    """A copy of plain JSON data that nothing else holds (a target may reuse its own)."""
    if type(value) is dict:
        return {k: _copy(v) for k, v in value.items()}
    if type(value) is list:
        return [_copy(v) for v in value]
    return value


def _numbers(value: Any, path: _Where) -> Iterator[tuple[_Where, type, str]]:
    """Where plain JSON data holds a number or boolean: path, type, and a float's text."""
    t = type(value)
    if t is dict:
        for key, item in value.items():
            yield from _numbers(item, (*path, key))
    elif t is list:
        for index, item in enumerate(value):
            yield from _numbers(item, (*path, index))
    elif t is int or t is float or t is bool:
        yield path, t, float.__repr__(value) if t is float else ""


_QUERY_KEYS = 500  # keys per query: within every SQLite's limit of bound parameters
READ_AHEAD = 500
"""Case-trials whose keys are made, and entries read, at once."""


class Planned(Protocol):
    """A case-trial a run will execute."""

    @property
    def case(self) -> Case: ...

    @property
    def trial(self) -> int: ...


@dataclass
class _Ahead:
    """A run's planned case-trials and the keys made so far, by window of ``READ_AHEAD``."""

    items: Sequence[Planned]
    windows: dict[int, list[str]] = field(default_factory=dict)
    frames: RequestFrames = field(default_factory=RequestFrames)


@dataclass
class CacheUse:
    """How an execution uses the response cache: the cache, and whether the target is
    declared deterministic (then every trial of a request shares one reply).

    A run that says which case-trials it will execute (``expect``) gets their keys made
    and their entries read a window at a time, ahead of the calls that need them."""

    cache: ResponseCache
    deterministic: bool = False
    inflight: dict[str, asyncio.Event] = field(default_factory=dict)
    ahead: dict[str, _Ahead] = field(default_factory=dict)

    def expect(self, run_id: str, items: Sequence[Planned]) -> None:
        """The case-trials run ``run_id`` will ask keys for, by their position."""
        self.ahead[run_id] = _Ahead(items)

    def key(
        self, run_id: str, target: Target, config_hash: str, index: int, case: Case, trial: int
    ) -> str:
        """The key of ``case`` at ``trial``, the ``index``-th case-trial the run expects."""
        ahead = self.ahead.get(run_id)
        if ahead is None or not 0 <= index < len(ahead.items):
            return cache_key(config_hash, request_of(target, case), self._trial(trial))
        planned = ahead.items[index]
        if planned.case is not case or planned.trial != trial:
            return cache_key(config_hash, request_of(target, case), self._trial(trial))
        start = index - index % READ_AHEAD
        keys = ahead.windows.get(start)
        if keys is None:
            keys = self._window(ahead, start, target, config_hash)
        return keys[index - start]

    def _window(self, ahead: _Ahead, start: int, target: Target, config_hash: str) -> list[str]:
        encoded: dict[int, str] = {}  # a case's request, encoded once for all its trials
        config_json = canonical_json(config_hash)
        keys: list[str] = []
        for planned in ahead.items[start : start + READ_AHEAD]:
            request = encoded.get(id(planned.case))
            if request is None:
                request = encoded[id(planned.case)] = ahead.frames.encode(
                    request_of(target, planned.case)
                )
            keys.append(_key_of(config_json, request, self._trial(planned.trial)))
        for old in [w for w in ahead.windows if w < start - READ_AHEAD]:
            self.cache.forget(ahead.windows.pop(old))  # long done: their entries were read
        ahead.windows[start] = keys
        self.cache.read_ahead(keys)
        return keys

    def _trial(self, trial: int) -> int | None:
        return None if self.deterministic else trial


def _files(path: Path) -> Iterator[Path]:
    for suffix in ("", "-wal", "-shm"):
        candidate = path.with_name(path.name + suffix)
        if candidate.exists():
            yield candidate


class _Entry(BaseModel):
    """A stored reply as ``put`` writes it: the outcome is read straight from the JSON
    text; the rest is plain JSON data, as ``json.loads`` reads it."""

    model_config = ConfigDict(extra="ignore", defer_build=True)

    outcome: Outcome
    usage: Annotated[Usage | None, BeforeValidator(lambda v: v or None)] = None
    extra: Any = None
    latency_ms: Any = None
    attempts: Any = None
    run_id: Any


def _cached(text: str, created_at: str) -> CachedReply:
    try:
        entry = _Entry.model_validate_json(text)
    except ValidationError:  # not as ``put`` writes it (a lone surrogate…): the long way
        return _cached_slowly(text, created_at)
    reply = Reply(entry.outcome, entry.usage, None, dict(entry.extra or {}))
    attempts = int(entry.attempts or 1)
    return CachedReply(reply, entry.latency_ms, attempts, created_at, entry.run_id)


def _cached_slowly(text: str, created_at: str) -> CachedReply:

    data = json.loads(text)
    usage = Usage.model_validate(data["usage"]) if data.get("usage") else None
    reply = Reply(outcome_from_mapping(data["outcome"]), usage, None, dict(data.get("extra") or {}))
    return CachedReply(
        reply, data.get("latency_ms"), int(data.get("attempts") or 1), created_at, data["run_id"]
    )


def default_cache_path(store_url: str) -> Path:
    """``cache.db`` beside a SQLite store's file; ``.assay/cache.db`` for any other store."""
    match = re.match(r"^sqlite(?:\+\w+)?:///(.+)$", store_url)
    if match and match.group(1) != ":memory:":
        return Path(match.group(1)).parent / CACHE_FILE
    return Path(".assay") / CACHE_FILE


_AGE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhdw])\s*$")
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}


def parse_age(text: str) -> timedelta:
    """A duration such as ``7d``, ``12h``, ``30m``, ``45s`` or ``2w``."""
    match = _AGE.match(text)
    if match is None:
        raise AssayConfigError(
            f"--older-than {text!r}: give a number and a unit s, m, h, d or w (e.g. 7d)"
        )
    return timedelta(seconds=float(match.group(1)) * _UNITS[match.group(2)])
