"""The W3C ``tracestate`` header an HTTP target sends beside ``traceparent``: members
configured in the suite, then those of the trace assay's request span continues."""

from __future__ import annotations

import re

# W3C Trace Context, section 3.3: a list-member is key=value; a key is a simple key or
# tenant@system; a value is 1-256 printable ASCII characters without ',' or '='.
_KEY = re.compile(
    r"^(?:[a-z][a-z0-9_\-*/]{0,255}|[a-z0-9][a-z0-9_\-*/]{0,240}@[a-z][a-z0-9_\-*/]{0,13})$"
)
_VALUE = re.compile(r"^[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}[\x21-\x2b\x2d-\x3c\x3e-\x7e]$")
MAX_MEMBERS = 32


def tracestate_members(header: str) -> list[tuple[str, str]]:
    """The list-members of a ``tracestate`` value, in order; ValueError naming the first
    malformed one (empty members, as the spec allows, are skipped)."""
    members: list[tuple[str, str]] = []
    for raw in header.split(","):
        member = raw.strip(" \t")
        if not member:
            continue
        key, sep, value = member.partition("=")
        if not sep or not _KEY.match(key) or not _VALUE.match(value):
            raise ValueError(
                f"{member!r} is not a W3C tracestate list-member (key=value, lowercase key)"
            )
        if any(key == seen for seen, _ in members):
            raise ValueError(f"key {key!r} appears twice")
        members.append((key, value))
    if len(members) > MAX_MEMBERS:
        raise ValueError(f"{len(members)} list-members; at most {MAX_MEMBERS} are allowed")
    return members


def merge_tracestate(configured: str | None, incoming: str | None) -> str | None:
    """The ``tracestate`` to send: the configured members first (they are this caller's
    own, most recently updated entries), then the incoming members with other keys, at
    most 32; None when there is nothing to send. A malformed incoming value is dropped
    whole, as the spec asks; a configured one was checked when the suite was read."""
    mine = tracestate_members(configured) if configured else []
    try:
        theirs = tracestate_members(incoming) if incoming else []
    except ValueError:
        theirs = []
    keys = {key for key, _ in mine}
    merged = mine + [(k, v) for k, v in theirs if k not in keys]
    return ",".join(f"{k}={v}" for k, v in merged[:MAX_MEMBERS]) or None
