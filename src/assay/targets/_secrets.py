"""Masking secrets (API keys, header values) in whatever a target got back.

A server may echo a key whole (``Bearer sk-…``), as the token alone (``invalid token
sk-…``), JSON-escaped (``sk-…\\/…``), URL-encoded or base64-encoded (a Basic header, a
JWT-like echo). ``Masker`` finds every one of those forms, in every string of every
outcome kind and of a reply's extra data, and replaces it with ``<redacted>``.
"""

from __future__ import annotations

import base64
import json
import re
import weakref
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from typing import Any
from urllib.parse import quote, quote_plus

from assay.outcomes._outcome import OUTCOME_ADAPTER
from assay.targets._base import Reply

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


def _encodings(value: str) -> set[str]:
    escaped = json.dumps(value)[1:-1]
    raw = value.encode()
    forms = {
        value,
        escaped,
        escaped.replace("/", "\\/"),
        json.dumps(value, ensure_ascii=False)[1:-1],
        quote(value, safe=""),
        quote(value),
        quote_plus(value),
    }
    for encoded in (base64.b64encode(raw), base64.urlsafe_b64encode(raw)):
        text = encoded.decode()
        forms |= {text, text.rstrip("=")}
    return forms


def secret_forms(secret: str) -> set[str]:
    """Every form of ``secret`` a server may echo: the value and each long word of it
    (the token of ``Bearer <token>``), raw, JSON-escaped, URL-encoded and base64."""
    parts = {secret, secret.strip()}
    parts |= {word for word in secret.split() if len(word) >= MIN_TOKEN}
    forms: set[str] = set()
    for part in parts:
        if part:
            forms |= _encodings(part)
    return {form for form in forms if form}


class Masker:
    """Replaces every form of the given secrets with ``<redacted>``."""

    def __init__(self, secrets: Iterable[str]) -> None:
        forms: set[str] = set()
        for secret in secrets:
            if len(secret.strip()) >= MIN_SECRET:
                forms |= secret_forms(secret)
        # Longest first, so that a whole header is masked before its token.
        ordered = sorted(forms, key=len, reverse=True)
        self._pattern = (
            re.compile("|".join(re.escape(f) for f in ordered), re.IGNORECASE) if ordered else None
        )
        # Every form as it reads inside a JSON string: a string holding a form puts that
        # form's escaped text into the JSON document, so one search of the document tells
        # whether anything needs masking (a hit across two strings only costs the walk).
        inside_json = {json.dumps(f, ensure_ascii=False)[1:-1] for f in ordered}
        self._screen = (
            re.compile("|".join(re.escape(f) for f in sorted(inside_json)), re.IGNORECASE)
            if inside_json
            else None
        )
        # For ASCII forms in an ASCII document, ignoring case is lower-casing both: plain
        # substring tests then say what the screen says, far faster on a long document.
        self._lowered: tuple[str, ...] | None = (
            tuple(sorted({f.lower() for f in inside_json}))
            if all(f.isascii() for f in inside_json)
            else None
        )
        # The replies this masker gave out, by identity: a reply masked by the target and
        # handed to the runner is not screened a second time.
        self._given: weakref.WeakValueDictionary[int, Reply] = weakref.WeakValueDictionary()

    def __bool__(self) -> bool:
        return self._pattern is not None

    def text(self, value: str) -> str:
        """``value`` with every secret form masked."""
        if self._pattern is None:
            return value
        return self._pattern.sub(MASK, value)

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
        """False only when no string in ``values`` can hold a secret form."""
        if self._screen is None:
            return True
        document = _document(values)
        if document is None:  # not plain JSON data: walk it instead
            return True
        if self._lowered is not None and document.isascii():
            lowered = document.lower()
            return any(form in lowered for form in self._lowered)
        return self._screen.search(document) is not None

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
