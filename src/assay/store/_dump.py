"""Compact JSON text of stored values, the same text ``json`` writes, made quicker.

``dump(value)`` is exactly ``json.JSONEncoder(separators=(",", ":"),
ensure_ascii=False).encode(value)``, with each lone surrogate written as its ``\\uXXXX``
escape (a database stores UTF-8, which cannot hold one; the escape reads back as the same
text), and the same error for a value that encoder refuses. A value made only of dicts
with string keys, lists, tuples, strings, integers, booleans, None and floats written
alike by both encoders (zero, and magnitudes from 1e-4: smaller ones differ in their
exponent's form, NaN and infinities in their name) is encoded by orjson, several times
quicker; any other value, and any value orjson refuses (an integer beyond 64 bits, a lone
surrogate, deep nesting), by ``json``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

from assay._controls import escape_surrogates

_JSON = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)
_ATOMS = frozenset({str, int, bool, type(None)})
_STR = frozenset({str})
_INF = float("inf")
_DEPTH = 64  # deeper values are left to ``json`` (orjson stops at 255 levels)


_ORJSON: list[Callable[[Any], bytes]] = []  # orjson.dumps, imported on first use


def dump(value: Any) -> str:
    """Compact JSON text, non-ASCII characters kept as they are."""
    if _plain(value, 0):
        try:
            return (_ORJSON[0] if _ORJSON else _orjson())(value).decode("utf-8")
        except TypeError:  # orjson.JSONEncodeError: out of orjson's range
            pass
    return escape_surrogates(_JSON.encode(value))


def _orjson() -> Callable[[Any], bytes]:
    import orjson

    _ORJSON.append(orjson.dumps)
    return orjson.dumps


def _number(value: float) -> bool:
    """Whether orjson writes the float ``value`` as ``json`` does."""
    return value == 0.0 or 1e-4 <= abs(value) < _INF


def _plain(value: Any, depth: int) -> bool:
    """Whether orjson writes ``value`` as ``json`` does (or refuses it)."""
    kind = type(value)
    if kind in _ATOMS:
        return True
    if kind is float:
        return _number(value)
    if depth >= _DEPTH:
        return False
    if kind is dict:
        if _STR.issuperset(map(type, value)) and _ATOMS.issuperset(map(type, value.values())):
            return True  # the usual flat mapping, checked without a loop in Python
        if not _STR.issuperset(map(type, value)):
            return False
        return _all_plain(value.values(), depth + 1)
    if kind is list or kind is tuple:
        return _all_plain(value, depth + 1)
    return False


def _all_plain(items: Iterable[Any], depth: int) -> bool:
    for item in items:
        kind = type(item)
        if kind is str or kind is int or kind is bool or item is None:
            continue
        if kind is float:
            if not _number(item):
                return False
        elif not _plain(item, depth):
            return False
    return True
