"""Masking secrets (API keys, header values) in whatever a target got back.

A server may echo a key whole (``Bearer sk-…``), as the token alone (``invalid token
sk-…``), JSON-escaped (``sk-…\\/…``, ``\\u0073k-…``), URL-encoded, in base64 (a Basic
header, a JWT-like echo) or broken over lines. ``Masker`` finds every one of those forms
(see ``assay.targets._echoes``), in every string of every outcome kind and of a reply's
extra data, and replaces it with ``<redacted>``.
"""

from __future__ import annotations

import bisect
import itertools
import json
import re
import weakref
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from typing import Any

from assay.outcomes import OUTCOME_ADAPTER
from assay.targets._base import Reply
from assay.targets._echoes import (
    LINE_BREAK,
    base64_cores,
    basic_credentials,
    decoded,
    encoded_bytes,
    secret_pattern,
    swallowed,
)

MASK = "<redacted>"
# A word of a header value shorter than this (``Bearer``, ``Basic``) is not masked alone.
MIN_TOKEN = 8
# A secret shorter than this (a placeholder key such as ``x`` for a local server) is not
# masked: masking it would rewrite ordinary words and field names of every reply.
MIN_SECRET = 6
_OUTCOME = OUTCOME_ADAPTER
_TO_JSON = json.JSONEncoder(ensure_ascii=False).encode  # json.dumps(…, ensure_ascii=False)


def _document(values: Any) -> str | None:
    """One JSON text holding every string of ``values`` as ``json`` writes a string (its
    numbers may read otherwise: they are never masked), or None when ``values`` is not
    plain JSON data. orjson writes it (several times quicker); what orjson refuses, json."""
    try:
        return (_ORJSON[0] if _ORJSON else _orjson())(values).decode("utf-8")
    except TypeError:  # orjson.JSONEncodeError: a key not a string, a lone surrogate…
        pass
    try:
        return _TO_JSON(values)
    except (TypeError, ValueError):
        return None


_ORJSON: list[Callable[[Any], bytes]] = []  # orjson.dumps, imported on first use


def _orjson() -> Callable[[Any], bytes]:
    import orjson

    _ORJSON.append(orjson.dumps)
    return orjson.dumps


# What an escaped echo needs: a backslash, or a ``%`` and two hex digits.
_PERCENT_ENCODED = re.compile("%[0-9A-Fa-f]{2}")
_LINE_BREAK = re.compile(LINE_BREAK)
# Fewer characters than this left of a form makes the screen of escaped text pass all.
_SCREENED = 4
# The characters of a form a screen searches for: enough that a text holds them by chance
# next to never, few enough to search quickly.
_PIECE = 20
_BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


def secret_parts(secret: str) -> set[str]:
    """What of ``secret`` is masked wherever it is echoed: the value and each long word of
    it (the token of ``Bearer <token>``); of a basic-credentials token (base64 of
    ``user:password``), the credentials and the password."""
    parts = {secret, secret.strip()}
    parts |= {word for word in secret.split() if len(word) >= MIN_TOKEN}
    for word in secret.split():
        credentials = basic_credentials(word)
        if credentials is not None:
            user, password = credentials
            parts.add(f"{user}:{password}")
            if len(password.strip()) >= MIN_SECRET:
                parts.add(password)
    return {part for part in parts if part}


def _escaped(text: str) -> bool:
    """Whether ``text`` holds a backslash or a percent-encoded byte (string methods first:
    far quicker than a search)."""
    return "\\" in text or ("%" in text and _PERCENT_ENCODED.search(text) is not None)


def _folded(text: str) -> str:
    """``text`` with the characters an echo may spell otherwise read as one: ``+`` for a
    space (URL forms), ``-`` and ``_`` for ``+`` and ``/`` (URL-safe base64)."""
    return text.replace("+", " ").replace("-", " ").replace("_", "/")


def _plain(text: str) -> str:
    """Text as a screen reads it: without line breaks, ``_folded``."""
    return _folded(text.replace("\r", "").replace("\n", ""))


def _plain_document(document: str) -> str:
    """A JSON text none of whose strings holds a backslash, read as ``_plain`` reads each
    of its strings (its only escapes are JSON's own, a line break two characters)."""
    return _folded(document.replace("\\r", "").replace("\\n", ""))


def _either_case(text: str) -> str:
    """A pattern for ``text`` with each letter in every case it has: a case-blind set of
    characters may miss a letter beyond U+FFFF that it holds in one case only."""
    found = []
    for char in text:
        cased = {char} | {c for c in (char.lower(), char.upper()) if len(c) == 1}
        found.append(re.escape(char) if len(cased) == 1 else f"[{''.join(sorted(cased))}]")
    return "".join(found)


class _Forms:
    """Whether a text holds any of some forms, ignoring case: a text that holds a form
    holds each piece of it, so only the last ``_PIECE`` characters of each form that holds
    no other are searched for."""

    def __init__(self, forms: Iterable[str]) -> None:
        kept: list[str] = []
        for form in sorted(set(forms), key=len):
            if not any(other in form for other in kept):
                kept.append(form)
        pieces = sorted({form[-_PIECE:] for form in kept})
        self._pattern = re.compile("|".join(_either_case(p) for p in pieces), re.IGNORECASE)
        # For ASCII forms in ASCII text, ignoring case is lower-casing both: plain
        # substring tests then say what the pattern says, far faster on a long text.
        ascii_only = all(p.isascii() for p in pieces)
        self._lowered = tuple(sorted({p.lower() for p in pieces})) if ascii_only else None

    def in_(self, text: str) -> bool:
        if self._lowered is not None and text.isascii():
            lowered = text.lower()
            return any(piece in lowered for piece in self._lowered)
        return self._pattern.search(text) is not None


class _Screen:
    """A quick test that a text or a JSON document cannot hold an echo of some parts,
    without the full pattern.

    An echo without escapes holds a part, or one of its base64 cores, once line breaks are
    dropped and ``_folded``. An escaped echo reads so once ``decoded``, but for its
    first characters, which may be read with what precedes them: it holds what follows.
    """

    def __init__(self, parts: set[str]) -> None:
        cores = {
            core for part in parts for raw in encoded_bytes(part) for core in base64_cores(raw)
        }
        self._plain = _Forms(_plain(f) for f in parts | cores)
        self._document = _Forms(_plain_document(_TO_JSON(f)[1:-1]) for f in parts | cores)
        tails = [part[swallowed(part) :] for part in parts]
        tails += [
            core[max(swallowed(core), *(swallowed(c + core) - 1 for c in _BASE64)) :]
            for core in cores
        ]
        # A part that holds what decoding changes (a backslash, a %, a line break or
        # another control character, half a surrogate pair) is not screened when escaped.
        self._escaped: _Forms | None = _Forms(_plain(tail) for tail in tails)
        if any(len(tail) < _SCREENED for tail in tails) or any(
            not part.isprintable() or "\\" in part or "%" in part for part in parts
        ):
            self._escaped = None

    def text(self, value: str) -> bool:
        """False only when ``value`` holds no echo."""
        if not _escaped(value):
            return self._plain.in_(_plain(value))
        return self._escaped is None or self._escaped.in_(_plain(decoded(value)))

    def document(self, document: str) -> bool:
        """False only when no string of the JSON text ``document`` holds an echo."""
        # A JSON text writes a backslash ``\\\\``; its other escapes are JSON's own, which
        # ``decoded`` reads as it reads an escaped echo (a string's ``\\u0041`` is
        # ``\\\\u0041`` there, an escape doubled).
        if "\\\\" in document or ("%" in document and _PERCENT_ENCODED.search(document)):
            return self._escaped is None or self._escaped.in_(_plain(decoded(document)))
        return self._document.in_(_plain_document(document))


def _with_spans_masked(value: str, spans: Iterable[tuple[int, int]]) -> str:
    """``value`` with each of the (possibly overlapping) spans replaced by ``MASK``."""
    pieces: list[str] = []
    at = 0
    for start, end in sorted(spans):
        if start >= at:
            pieces += [value[at:start], MASK]
        at = max(at, end)  # a span overlapping the one before extends it
    return "".join(pieces) + value[at:]


class Masker:
    """Replaces every echo of the given secrets with ``<redacted>``."""

    def __init__(self, secrets: Iterable[str]) -> None:
        parts: set[str] = set()
        for secret in secrets:
            if len(secret.strip()) >= MIN_SECRET:
                parts |= secret_parts(secret)
        source = secret_pattern(sorted(parts))
        self._pattern = re.compile(source, re.IGNORECASE) if source else None
        self._screen = _Screen(parts)
        # The replies this masker gave out, by identity: a reply masked by the target and
        # handed to the runner is not screened a second time.
        self._given: weakref.WeakValueDictionary[int, Reply] = weakref.WeakValueDictionary()

    def __bool__(self) -> bool:
        return self._pattern is not None

    def text(self, value: str) -> str:
        """``value`` with every echo of a secret masked."""
        if self._pattern is None:
            return value
        if not self._screen.text(value):
            return value
        masked = self._pattern.sub(MASK, value)
        return self._unbroken(masked) if _LINE_BREAK.search(masked) else masked

    def _unbroken(self, value: str) -> str:
        """``value`` with every echo broken by line breaks masked: each is found in the
        text without its line breaks and masked where it is, with the breaks inside it.

        A line break read so may have taken characters of the echo: an escaped break just
        before it its first ones (``\\`` + ``n0t…`` reads ``\\n`` + ``0t…``), one after a
        backslash of the secret that backslash (``\\`` + ``\\n`` reads ``\\\\n``); and a
        secret may hold what reads as one (``%0a``). So when something may still be there,
        each break is read in turn as text, from or up to each of its characters."""
        breaks = [(found.start(), found.end()) for found in _LINE_BREAK.finditer(value)]
        spans = self._spans(value, breaks)
        masked = _with_spans_masked(value, spans)
        if not self._screen.text(masked):
            return masked
        for index, (start, end) in enumerate(breaks):
            for cut in range(start, end):
                spans += self._spans(value, breaks, (index, cut, end))
                if cut > start:
                    spans += self._spans(value, breaks, (index, start, cut))
        return _with_spans_masked(value, spans)

    def _spans(
        self,
        value: str,
        breaks: list[tuple[int, int]],
        read: tuple[int, int, int] | None = None,
    ) -> list[tuple[int, int]]:
        """Where in ``value`` the pattern matches once every line break is dropped, but of
        the break ``read`` names (its index), the characters it names (from, to) are kept."""
        assert self._pattern is not None
        pieces: list[tuple[int, int]] = []  # each piece of value kept, as (start, end)
        at = 0
        for index, (start, end) in enumerate(breaks):
            pieces.append((at, start))
            if read is not None and read[0] == index:
                pieces.append(read[1:])
            at = end
        pieces.append((at, len(value)))
        joined = "".join(value[start:end] for start, end in pieces)
        ends = list(itertools.accumulate(end - start for start, end in pieces))  # in joined

        def where(index: int) -> int:  # a character of joined, in value
            piece = bisect.bisect_right(ends, index)
            start, end = pieces[piece]
            return start + index - (ends[piece] - (end - start))

        return [
            (where(found.start()), where(found.end() - 1) + 1)
            for found in self._pattern.finditer(joined)
            if found.end() > found.start()
        ]

    def data(self, value: Any) -> Any:
        """``value`` (strings, mappings, lists, nested) with every string masked."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, Mapping):
            return {self.data(k): self.data(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return type(value)(self.data(v) for v in value)
        return value

    def outcome_data(self, dumped: Mapping[str, Any]) -> dict[str, Any]:
        """An outcome's JSON form with every value masked but its kind: the field names and
        the kind are the model's own words, never a secret (a secret that reads
        ``citations`` or ``answer`` must not rename a field)."""
        return {k: v if k == "kind" else self.data(v) for k, v in dumped.items()}

    def _may_hold_secret(self, *values: Any) -> bool:
        """False only when no string in ``values`` can hold an echo of a secret."""
        if self._pattern is None:
            return False
        document = _document(values)
        if document is None:  # not plain JSON data: walk it instead
            return True
        return self._screen.document(document)

    def reply(self, reply: Reply) -> Reply:
        """``reply`` with every secret masked in its outcome (any kind) and extra data; a
        reply this masker returned before is returned as it is (its data is not changed
        after masking)."""
        if self._pattern is None:
            return reply
        given = self._given
        if given.get(id(reply)) is reply:
            return reply
        found = self._masked(reply)
        try:
            given[id(found)] = found
        except TypeError:  # a reply-like value that has no weak reference
            return found
        return found

    def _masked(self, reply: Reply) -> Reply:
        dumped = reply.outcome.model_dump(mode="json")
        if not self._may_hold_secret(dumped, reply.extra):
            return reply
        masked = self.outcome_data(dumped)
        extra = self.data(reply.extra) if reply.extra else reply.extra
        if masked == dumped and extra == reply.extra:
            return reply
        outcome = _OUTCOME.validate_python(masked) if masked != dumped else reply.outcome
        return replace(reply, outcome=outcome, extra=extra)
