"""Checks of the HTTP addresses and headers a suite or judge settings give, so that one
that cannot be sent is refused where it is written instead of failing every call.

Kept apart from the targets so that the judge's settings (in the pure core) use the same
checks.
"""

from __future__ import annotations

import re
from typing import Annotated
from urllib.parse import urlsplit

from pydantic import AfterValidator, Field

# RFC 9110 token characters: what a header name may be made of.
_TOKEN = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
# Whitespace and control characters: none belongs in a URL (a space is written %20).
_UNSAFE_IN_URL = re.compile(r"[\x00-\x20\x7f-\x9f\s]")
# Control characters but tab: a line break in a header value would end the header.
_UNSAFE_IN_VALUE = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")


def check_http_url(value: str) -> str:
    """``value`` when it is an ``http://`` or ``https://`` URL a request can be sent to: a
    host, a port from 1 to 65535 if any, no whitespace or control character; else a
    ``ValueError`` saying what is wrong (the URL itself is not repeated: it may hold a
    key)."""
    example = "e.g. http://127.0.0.1:8000/answer"
    if _UNSAFE_IN_URL.search(value):
        raise ValueError(
            f"a URL may not hold spaces, line breaks or control characters (write a space "
            f"as %20), {example}"
        )
    try:
        parts = urlsplit(value)
    except ValueError:  # "http://[::1/x": an unclosed bracket
        raise ValueError(
            "not a URL: an IPv6 address is written whole in brackets, e.g. http://[::1]:8000/x"
        ) from None
    if parts.scheme not in ("http", "https"):
        raise ValueError(f"give an http:// or https:// URL, {example}")
    if not parts.hostname:
        raise ValueError(f"the URL names no host, {example}")
    try:
        port = parts.port
    except ValueError:  # "http://host:abc", "http://host:99999"
        port = 0
    if port == 0:
        raise ValueError(f"the port must be a number from 1 to 65535, {example}")
    return value


def check_headers(value: dict[str, str]) -> dict[str, str]:
    """``value`` when every header name is a token and no value holds a line break or
    other control character (a tab is allowed); else a ``ValueError`` naming the header
    (its value is not repeated: it may be a key)."""
    for name, text in value.items():
        if not _TOKEN.fullmatch(name):
            raise ValueError(
                f"header {name!r}: a header name is letters, digits and !#$%&'*+.^_`|~- "
                "only (no spaces, colons or line breaks)"
            )
        if _UNSAFE_IN_VALUE.search(text):
            raise ValueError(
                f"header {name!r}: its value holds a line break or another control "
                "character, which would end the header; write it on one line"
            )
    return value


HttpUrl = Annotated[str, Field(pattern=r"^https?://"), AfterValidator(check_http_url)]
"""A ``str`` setting holding an ``http(s)://`` URL that ``check_http_url`` accepts."""
