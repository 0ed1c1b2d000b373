"""The ways a server may echo a secret, written here independently of ``assay``'s masking,
a check that none of them survives in a text, and a masker without its quick screens."""

from __future__ import annotations

import base64
import contextlib
import json
import re
from urllib.parse import quote, quote_plus

from assay.targets._secrets import Masker


def _json_u(char: str, upper: bool = False) -> str:
    code = ord(char)
    units = [code] if code <= 0xFFFF else [0xD800 + ((code - 0x10000) >> 10),
                                          0xDC00 + ((code - 0x10000) & 0x3FF)]  # fmt: skip
    text = "".join(f"\\u{unit:04x}" for unit in units)
    return text.upper().replace("\\U", "\\u") if upper else text


def _percent_all(text: str) -> str:
    return "".join(f"%{b:02x}" for b in text.encode("utf-8"))


def _break(text: str, at: int, newline: str) -> str:
    if len(text) < 2:
        return text
    at = 1 + at % (len(text) - 1)  # strictly inside
    return text[:at] + newline + text[at:]


def _base64_inside(secret: bytes, before: bytes, after: bytes) -> str:
    return base64.b64encode(before + secret + after).decode()


def echoes(secret: str, at: int = 3, user: str = "alice") -> dict[str, str]:
    """Every encoding of ``secret`` a server may echo, by name; ``at`` says where a line
    break goes and ``user`` names the user of basic credentials."""
    raw = secret.encode("utf-8")
    php = json.dumps(secret)[1:-1].replace("/", "\\/")
    found = {
        "raw": secret,
        "JSON (json.dumps)": json.dumps(secret)[1:-1],
        "JSON, UTF-8 kept": json.dumps(secret, ensure_ascii=False)[1:-1],
        "JSON, slash escaped (PHP)": php,
        "JSON, every character \\u-escaped": "".join(_json_u(c) for c in secret),
        "JSON, every character \\u-escaped, upper-case hex": "".join(
            _json_u(c, upper=True) for c in secret
        ),
        "JSON, every other character \\u-escaped": "".join(
            _json_u(c) if i % 2 else c for i, c in enumerate(secret)
        ),
        "JSON twice": json.dumps(json.dumps(secret))[3:-3],
        "URL (quote)": quote(secret, safe=""),
        "URL, path-safe (quote)": quote(secret),
        "URL, lower-case hex": quote(secret, safe="").lower(),
        "URL, + for space": quote_plus(secret),
        "URL, every byte encoded": _percent_all(secret),
        "URL twice": quote(quote(secret, safe=""), safe=""),
        "URL, then JSON-escaped": json.dumps(quote(secret))[1:-1].replace("/", "\\/"),
        "base64": base64.b64encode(raw).decode(),
        "base64 of :key": base64.b64encode(b":" + raw).decode(),
        "base64 of key:": base64.b64encode(raw + b":").decode(),
        f"base64 of {user}:key": base64.b64encode(f"{user}:".encode() + raw).decode(),
        "base64, URL-safe, unpadded": base64.urlsafe_b64encode(raw).decode().rstrip("="),
        "base64 inside a blob, offset 1": _base64_inside(raw, b"x", b"tail"),
        "base64 inside a blob, offset 2": _base64_inside(raw, b"\xff\x01", b"\x00"),
        "base64 inside a blob, offset 3": _base64_inside(raw, b"abc", b"\xfe"),
        "base64, line-wrapped": _break(base64.b64encode(raw).decode(), at, "\r\n"),
        "base64, slash escaped": base64.b64encode(raw).decode().replace("/", "\\/"),
        "base64, URL-encoded": quote(base64.b64encode(raw).decode(), safe=""),
        "broken by \\n": _break(secret, at, "\n"),
        "broken by \\r\\n": _break(secret, at, "\r\n"),
        "broken by a JSON-escaped \\n": _break(secret, at, "\\n"),
        "broken by a JSON-escaped \\r\\n": _break(secret, at, "\\r\\n"),
        "broken twice": _break(_break(secret, at, "\n"), at + 5, "\\n"),
    }
    try:
        latin = secret.encode("latin-1")
    except UnicodeEncodeError:
        latin = raw
    if latin != raw:
        found["base64 of Latin-1"] = base64.b64encode(latin).decode()
    return found


def _base64_runs(text: str) -> list[bytes]:
    """What each run of base64 characters in ``text`` decodes to, at each alignment."""
    decoded = []
    plain = re.sub(r"\r?\n", "", text.replace("\\/", "/"))
    for run in re.findall(r"[A-Za-z0-9+/_-]{8,}", plain):
        run = run.replace("-", "+").replace("_", "/")
        for start in range(4):
            piece = run[start:]
            piece = piece[: len(piece) - len(piece) % 4]
            with contextlib.suppress(ValueError):
                decoded.append(base64.b64decode(piece))
    return decoded


def _unescaped(text: str) -> str:
    """``text`` read once as the inside of a JSON string, as far as it goes."""
    text = re.sub(r"\\u([dD][89abAB][0-9a-fA-F]{2})\\u([dD][c-fC-F][0-9a-fA-F]{2})",
                  lambda m: (chr(0x10000 + ((int(m[1], 16) - 0xD800) << 10)
                             + int(m[2], 16) - 0xDC00)), text)  # fmt: skip
    text = re.sub(r"\\u([0-9a-fA-F]{4})", lambda m: chr(int(m[1], 16)), text)
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "r": "\r"}.get(m[1], m[1]), text)


def _unquoted(text: str) -> str:
    def one(found: re.Match[str]) -> str:
        raw = bytes(int(h, 16) for h in re.findall(r"%([0-9a-fA-F]{2})", found[0]))
        return raw.decode("utf-8", "replace")

    return re.sub(r"(?:%[0-9a-fA-F]{2})+", one, text)


def survivors(text: str, secret: str, extra: tuple[str, ...] = ()) -> list[str]:
    """The echoes of ``secret`` (those of ``echoes``, ``extra``, and the secret itself in
    ``text`` read back however it was encoded) that ``text`` still holds."""
    left = [name for name, echo in echoes(secret).items() if echo in text]
    left += [f"given echo {echo!r}" for echo in extra if echo in text]
    readings = {"as it is": text}
    for _ in range(3):  # an echo encoded twice, then stored as JSON: read three times
        for name, reading in list(readings.items()):
            for how, read in (("unescaped", _unescaped), ("unquoted", _unquoted)):
                again = read(reading).replace("+", " ") if how == "unquoted" else read(reading)
                if again != reading:
                    readings[f"{name}, {how}"] = again
    for name, reading in readings.items():
        unbroken = reading.replace("\r", "").replace("\n", "")
        if secret in unbroken or secret in reading:
            left.append(f"the secret, read {name}")
        raw = secret.encode("utf-8")
        if any(raw in found for found in _base64_runs(reading)):
            left.append(f"the secret's base64, read {name}")
    return left


class _Open:
    """A screen that lets everything through."""

    def text(self, value: str) -> bool:
        return True

    def document(self, document: str) -> bool:
        return True


def unscreened(secrets: list[str]) -> Masker:
    """A masker that searches every text with its full pattern, never screening it first
    (and, after masking broken echoes, always reading each line break as text too)."""
    masker = Masker(secrets)
    masker._screen = _Open()  # type: ignore[assignment]
    return masker
