"""Every way a server may echo a secret, as one regular expression.

An echo spells each character of the secret raw, JSON-escaped (``\\/``, ``\\u0073``, a
surrogate pair; the backslash doubled by each further JSON encoding) or percent-encoded
(either case of hex, ``+`` for a space, ``%25`` for a ``%`` encoded twice), in any mix.
Its base64 (UTF-8 or Latin-1; standard or URL-safe alphabet; padded or not) is matched
wherever it is, alone or inside a longer base64 text such as HTTP basic credentials
(``:key``, ``key:``, ``user:key`` for any user name): a secret that starts at byte 0, 1
or 2 of a three-byte group is spelt by one of three shifted texts, each matched with the
characters at its ends that also hold bits of the neighbouring bytes. A line break (raw,
JSON-escaped or percent-encoded) may stand anywhere inside an echo: ``LINE_BREAK``.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterable

# A percent sign, itself percent-encoded any number of times (``%`` ``%25`` ``%2525``).
_PERCENT = "%(?:25)*"
# A JSON escape's backslash, doubled by each further JSON encoding. (Patterns here start
# with a fixed character where they can: a search then skips to those characters.)
_ESCAPE = r"\\\\*+"
# A line break: raw (``\n``, ``\r\n``), JSON-escaped or percent-encoded.
LINE_BREAK = rf"\r\n|\n|{_ESCAPE}(?:r{_ESCAPE})?n|{_PERCENT}0(?:[dD]{_PERCENT}0)?[aA]"
_SHORT_ESCAPES = {'"': '"', "/": "/", "\b": "b", "\f": "f", "\n": "n", "\r": "r", "\t": "t"}


def _percent(text: str) -> str:
    """``text`` percent-encoded (for a pattern that ignores case)."""
    return "".join(f"{_PERCENT}{b:02x}" for b in text.encode("utf-8", "surrogatepass"))


def _json_unicode(char: str) -> str:
    """``char`` as a JSON \\u escape (for a pattern that ignores case)."""
    code = ord(char)
    if code <= 0xFFFF:
        return f"{_ESCAPE}u{code:04x}"
    code -= 0x10000
    high, low = 0xD800 + (code >> 10), 0xDC00 + (code & 0x3FF)
    return f"{_ESCAPE}u{high:04x}{_ESCAPE}u{low:04x}"


def _character(char: str) -> str:
    """One character of a secret: raw, JSON-escaped or percent-encoded."""
    # A backslash, escaped any number of times, leaves the next escape its own backslash.
    found = [r"\\+" if char == "\\" else re.escape(char)]
    if char == " ":
        found.append(r"\+")
    if char in _SHORT_ESCAPES:
        found.append(_ESCAPE + re.escape(_SHORT_ESCAPES[char]))
    found += [_json_unicode(char), _percent(char)]
    return f"(?:{'|'.join(found)})"


def spelt(text: str) -> str:
    """A pattern matching ``text`` however an echo spells it (not its base64)."""
    return "".join(_character(c) for c in text)


# Base64 characters an encoder may write otherwise: escaped, percent-encoded, in the
# URL-safe alphabet, or ``+`` decoded as a space by a form decoder.
_BASE64_SPECIAL = {
    "+": rf"[+\- ]|{_PERCENT}2[bB]|{_ESCAPE}u002[bB]",
    "/": rf"[/_]|{_ESCAPE}/|{_PERCENT}2[fF]|{_ESCAPE}u002[fF]",
    "=": rf"=|{_PERCENT}3[dD]|{_ESCAPE}u003[dD]",
}


def _base64_unit(chars: Iterable[str]) -> str:
    """One base64 character that is any of ``chars``."""
    chosen = sorted(set(chars))
    plain = "".join(c for c in chosen if c not in _BASE64_SPECIAL)
    found = [plain if len(plain) == 1 else f"[{plain}]"] if plain else []
    found += [_BASE64_SPECIAL[c] for c in chosen if c in _BASE64_SPECIAL]
    return found[0] if len(found) == 1 and plain else f"(?:{'|'.join(found)})"


def encoded_bytes(part: str) -> list[bytes]:
    """The bytes a client may send for ``part``: UTF-8, and Latin-1 when that differs
    (HTTP basic credentials were long Latin-1)."""
    found = [part.encode("utf-8", "surrogatepass")]
    try:
        latin = part.encode("latin-1")
    except UnicodeEncodeError:
        return found
    return found if latin == found[0] else [*found, latin]


def _at(offset: int, raw: bytes, before: int = 0, after: int = 0) -> str:
    """Base64 of ``raw`` at ``offset`` in its group, between the given byte values."""
    prefix = b"\0" * (offset - 1) + bytes([before]) if offset else b""
    return base64.b64encode(prefix + raw + bytes([after]) + b"\0").decode("ascii")


def base64_cores(raw: bytes) -> list[str]:
    """The base64 characters that depend on ``raw`` alone when it starts at byte 0, 1 and
    2 of a three-byte group (standard alphabet): one of them is in any base64 text
    holding ``raw``."""
    found = []
    for offset in range(3):
        first = -(-8 * offset // 6)  # the first character whose six bits are all of raw
        found.append(_at(offset, raw)[first : (8 * offset + 8 * len(raw)) // 6])
    return found


def _first_characters(raw: bytes, offset: int) -> set[str]:
    """The first base64 character holding bits of ``raw`` at ``offset``, whatever the
    low bits of the byte before (at most four of them are in it)."""
    return {_at(offset, raw, before=b)[8 * offset // 6] for b in range(16)}


def base64_pattern(raw: bytes, offset: int) -> str:
    """A pattern matching the base64 of ``raw`` at ``offset`` (0, 1 or 2) of a three-byte
    group, whatever bytes surround it: its end characters, which also hold bits of the
    neighbouring bytes, match any character those bits allow, and padding may follow."""
    first = 8 * offset // 6
    last = -(-(8 * offset + 8 * len(raw)) // 6)  # one past the last character holding raw
    text = _at(offset, raw)
    units = [_base64_unit(c) for c in text[first:last]]
    if offset:  # the first character also holds the low bits of the byte before
        units[0] = _base64_unit(_first_characters(raw, offset))
    if (8 * offset + 8 * len(raw)) % 6:  # the last character holds bits of the byte after
        units[-1] = _base64_unit({_at(offset, raw, after=b << 4)[last - 1] for b in range(16)})
    padding = f"(?:{_BASE64_SPECIAL['=']})?"
    return f"(?-i:{''.join(units)}{padding}{padding})"


def basic_credentials(word: str) -> tuple[str, str] | None:
    """The user name and password of a basic-credentials token (base64 of ``user:pass``),
    or None when ``word`` is not one."""
    if len(word) < 8 or len(word) % 4 or not word.isascii():
        return None
    try:
        decoded = base64.b64decode(word, validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return None
    if ":" not in decoded or not decoded.isprintable():
        return None
    user, _, password = decoded.partition(":")
    return user, password


def secret_pattern(parts: Iterable[str]) -> str:
    """One pattern (to compile case-blind) for every echo of every part but its line
    breaks: spelt out as ``spelt`` says, or in base64 (``base64_pattern``). Longer
    alternatives come first, so that an echo is masked whole rather than its start."""
    alternatives: dict[str, int] = {}
    starts: set[str] = set()
    for part in parts:
        alternatives.setdefault(spelt(part), len(part))
        starts |= _starts(part[0])
        for raw in encoded_bytes(part):
            for offset in range(3):
                alternatives.setdefault(base64_pattern(raw, offset), len(raw) * 4 // 3)
                starts |= _first_characters(raw, offset)
    if not alternatives:
        return ""
    ordered = sorted(alternatives, key=lambda pattern: -alternatives[pattern])
    # A look-ahead at what an echo can start with: one test rejects most positions, where
    # every alternative would otherwise be tried. Each character is there in every case:
    # a case-blind set may miss one beyond U+FFFF that it holds in one case only.
    chars = {c for s in starts for c in _starts(s)}
    chars |= {cased for c in chars for cased in (c.lower(), c.upper()) if len(cased) == 1}
    first = "".join(sorted(re.escape(c) for c in chars))
    return f"(?=[{first}])(?:{'|'.join(ordered)})"


def _starts(char: str) -> set[str]:
    """The characters an echo of ``char`` (in a secret or its base64) can start with."""
    found = {char, "\\", "%"}
    if char == " ":
        found.add("+")
    if char == "+":
        found |= {"-", " "}
    if char == "/":
        found.add("_")
    return found


# The escapes ``decoded`` reads, each pattern starting with a fixed character (a search
# then skips to it): a run of percent-encoded bytes; a JSON line break, a \\u escape (a
# surrogate pair as one) or any other JSON escape.
_PERCENT_RUN = re.compile(rf"%((?:25)*[0-9a-fA-F]{{2}}(?:{_PERCENT}[0-9a-fA-F]{{2}})*)")
_JSON_ESCAPE = re.compile(
    rf"{_ESCAPE}(?:(?:r{_ESCAPE})?n"
    rf"|[uU]([0-9a-fA-F]{{4}})(?:{_ESCAPE}[uU]([dD][c-fC-F][0-9a-fA-F]{{2}}))?"
    r"|(.))",
    re.DOTALL,
)


def decoded(text: str) -> str:
    """``text`` with its percent-encoded bytes, then its JSON escapes, decoded, and its
    line breaks (raw or encoded) dropped: where an echo spells a secret with escapes, the
    secret reads plainly, but for its first characters (see ``swallowed``)."""
    if "%" in text:
        text = _PERCENT_RUN.sub(_bytes, text)
    if "\\" in text:
        text = _JSON_ESCAPE.sub(_character_of, text)
    return text.replace("\r", "").replace("\n", "")


def _bytes(found: re.Match[str]) -> str:
    raw = bytes(int(item[-2:], 16) for item in found.group(1).split("%"))
    return raw.decode("utf-8", "replace")


def _character_of(found: re.Match[str]) -> str:
    code, low, char = found.groups()
    if code is not None:
        first = int(code, 16)
        if low is None:
            return chr(first)
        second = int(low, 16)
        if 0xD800 <= first < 0xDC00:
            return chr(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))
        return chr(first) + chr(second)
    # ``\\/`` is ``/``; a control character's escape reads as its letter; a line break
    # reads as nothing.
    return "" if char is None else char


# How the first characters of an echo written plainly may be read by ``decoded`` together
# with what precedes them: ``\\`` + ``u0041`` (or ``n``, ``rn``), ``%`` + ``41``, ``%2`` +
# ``541`` (``%2541``), ``%`` + ``5Cu0041`` (``%5C`` is a backslash).
_SWALLOWED = (
    re.compile(r"[uU]?[0-9a-fA-F]{0,4}"),
    re.compile(r"[rR]?[nN]?"),
    re.compile(r"5?(?:25)*[0-9a-fA-F]{0,2}[uU]?[0-9a-fA-F]{0,4}"),
    re.compile(r"5?(?:25)*[0-9a-fA-F]{0,2}[rR]?[nN]?"),
)


def swallowed(text: str) -> int:
    """How many of the first characters of an echo of ``text`` written plainly ``decoded``
    may read together with what precedes it; from there on, the echo reads plainly."""
    return max(pattern.match(text).end() for pattern in _SWALLOWED)  # type: ignore[union-attr]
