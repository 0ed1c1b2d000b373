"""The bounds every input file is held to, so that an odd or hostile file is refused with
one located message instead of crashing, hanging or exhausting memory.

The limits are documented for users in docs/reliability.md ("Hostile input files").
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path
from typing import Any

from assay._controls import LONE_SURROGATE
from assay.errors import InputFormatError, Location, Problem

MAX_FILE_BYTES = 1 << 30
"""Largest input file read (1 GiB): about 3 million typical cases."""

MAX_DEPTH = 64
"""Deepest nesting of lists and mappings in one record (or one YAML/JSON document)."""

MAX_ALIAS_NODES = 100_000
"""Most YAML nodes that aliases (``*name``) may add beyond the nodes written in the file."""

MAX_INT_DIGITS = 4_300
"""Longest integer literal (Python's own limit for converting text to an integer)."""

MAX_CSV_CELL = 131_072
"""Longest CSV cell, in characters (the limit of Python's csv module)."""

# A lone surrogate can only come from an escape (JSON \uD800, YAML \uD800 or \U0000D800):
# the file's text itself is decoded UTF-8, which never holds one. Records are searched
# for surrogates only when the text holds such an escape.
_SURROGATE_ESCAPE = re.compile(r"\\(?:u|U0000)[dD][89a-fA-F][0-9a-fA-F]{2}")


def fail(path: Path, message: str, line: int | None = None) -> InputFormatError:
    """The one-problem error for a file that cannot be read at all."""
    return InputFormatError(
        [Problem(message, Location(str(path), line))], summary=f"{path}: cannot read"
    )


def read_bounded(path: Path, limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of ``path`` when it is a regular file of at most ``limit`` bytes.

    The file's type is checked on the opened descriptor before anything is read, so a
    device (``/dev/zero``), a FIFO or a socket is refused without blocking or reading it.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise fail(path, "no such file") from None
    except IsADirectoryError:
        raise fail(path, "is a directory, expected a file") from None
    except OSError as err:
        raise fail(path, f"cannot be read: {err.strerror or err}") from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise fail(path, "is a directory, expected a file")
        if not stat.S_ISREG(info.st_mode):
            raise fail(path, "is not a regular file (a device, FIFO or socket); give a file")
        if info.st_size > limit:
            raise fail(path, f"is {info.st_size:,} bytes; the limit is {limit:,} bytes")
        chunks: list[bytes] = []
        size = 0
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            size += len(chunk)
            if size > limit:  # grew while being read
                raise fail(path, f"is over {limit:,} bytes; the limit is {limit:,} bytes")
            chunks.append(chunk)
    except OSError as err:
        raise fail(path, f"cannot be read: {err.strerror or err}") from None
    finally:
        os.close(fd)
    return b"".join(chunks)


def may_hold_surrogates(text: str) -> bool:
    """Whether ``text`` escapes a UTF-16 surrogate, so its decoded strings need a check."""
    return _SURROGATE_ESCAPE.search(text) is not None


def value_problems(value: Any, surrogates: bool = True) -> list[str]:
    """What makes ``value`` (decoded JSON or YAML) unfit to keep: nesting deeper than
    ``MAX_DEPTH``, a lone surrogate in a string or key (when ``surrogates``), a binary value
    or a set. Empty when it is fine."""
    problems: list[str] = []
    stack: list[tuple[Any, int]] = [(value, 0)]
    seen: set[int] = set()
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            if surrogates and LONE_SURROGATE.search(item):
                problems.append(
                    "a string holds a lone UTF-16 surrogate (an escape like \\ud800 "
                    "without its pair), which is not text"
                )
                surrogates = False  # said once per value
            continue
        if isinstance(item, (bytes, bytearray)):
            problems.append("binary values (!!binary) are not supported; write text")
            continue
        if isinstance(item, (set, frozenset)):
            problems.append("sets (!!set) are not supported; write a list")
            continue
        if not isinstance(item, (dict, list, tuple)):
            continue
        if depth >= MAX_DEPTH:
            problems.append(f"nested deeper than {MAX_DEPTH} levels")
            break
        if id(item) in seen:  # a YAML alias shares one object; checking it once suffices
            continue
        seen.add(id(item))
        if isinstance(item, dict):
            for key, inner in item.items():
                if surrogates and isinstance(key, str) and LONE_SURROGATE.search(key):
                    stack.append((key, depth + 1))
                stack.append((inner, depth + 1))
        else:
            stack.extend((inner, depth + 1) for inner in item)
    return problems


def number_problem(err: ValueError) -> str | None:
    """The message for Python refusing an over-long integer literal, else None."""
    if "digits" in str(err) and "limit" in str(err).lower():
        return f"a number is longer than {MAX_INT_DIGITS:,} digits"
    return None


def bounded_yaml_loader() -> type[Any]:
    """PyYAML's safe loader backed by libyaml (``CSafeLoader``) when PyYAML was built with
    it, which composes a file ten times quicker or more (20,000 cases: 0.9 s against 15 s)
    and refuses nesting beyond 1,000 levels as it scans (``yaml_error`` says so as
    "nested deeper than ``MAX_DEPTH``"); the nodes it makes carry their lines as the pure
    Python ones do.

    Without libyaml, the pure Python safe loader, refusing flow collections (``[``,
    ``{``) nested deeper than ``MAX_DEPTH`` as it scans them: its scanner's work grows with
    the square of that depth (100,000 ``[`` took 10 s), long before the composer would run
    out of stack."""
    import yaml

    fast: type[Any] | None = getattr(yaml, "CSafeLoader", None)
    if fast is not None:
        return fast

    class BoundedSafeLoader(yaml.SafeLoader):
        def fetch_flow_collection_start(self, token_class: Any) -> None:
            if self.flow_level >= MAX_DEPTH:
                raise yaml.scanner.ScannerError(
                    None, None, f"nested deeper than {MAX_DEPTH} levels", self.get_mark()
                )
            super().fetch_flow_collection_start(token_class)

    return BoundedSafeLoader


_REFUSED_TAGS = {
    "tag:yaml.org,2002:binary": "binary values (!!binary) are not supported; write text",
    "tag:yaml.org,2002:set": "sets (!!set) are not supported; write a list",
}


def _children(node: Any) -> list[Any]:
    import yaml

    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def _expanded_size(root: Any, cap: int) -> tuple[int, int] | None:
    """How many nodes the document has once every alias is expanded (at most ``cap``) and
    how deep it is then, or None when an alias refers to a node that contains it."""
    size: dict[int, int] = {}
    depth: dict[int, int] = {}
    visiting: set[int] = set()
    stack: list[tuple[Any, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        if key in size:
            continue
        kids = _children(node)
        if done:
            visiting.discard(key)
            size[key] = min(cap, 1 + sum(size[id(k)] for k in kids))
            depth[key] = 1 + max((depth[id(k)] for k in kids), default=0)
            continue
        if key in visiting:
            return None
        visiting.add(key)
        stack.append((node, True))
        for kid in kids:
            if id(kid) in visiting:
                return None
            if id(kid) not in size:
                stack.append((kid, False))
    return size[id(root)], depth[id(root)]


def yaml_problems(root: Any, path: Path) -> list[Problem]:
    """What makes a composed YAML document unfit to load: a key that is a list or mapping,
    a ``!!binary`` or ``!!set`` value, nesting deeper than ``MAX_DEPTH``, or aliases that
    expand to more than ``MAX_ALIAS_NODES`` nodes beyond those written ("billion laughs")."""
    import yaml

    problems: list[Problem] = []
    seen: set[int] = set()
    shared = False  # a node reached twice: the document has aliases
    mapping, sequence, scalar = yaml.MappingNode, yaml.SequenceNode, yaml.ScalarNode
    stack: list[tuple[Any, int]] = [(root, 0)]
    while stack:
        node, depth = stack.pop()
        key = id(node)
        if key in seen:
            shared = True
            continue
        seen.add(key)
        if node.tag in _REFUSED_TAGS:
            where = Location(str(path), node.start_mark.line + 1)
            problems.append(Problem(_REFUSED_TAGS[node.tag], where))
        if depth >= MAX_DEPTH:
            where = Location(str(path), node.start_mark.line + 1)
            problems.append(Problem(f"nested deeper than {MAX_DEPTH} levels", where))
            return problems
        kind = type(node)
        if kind is scalar:
            continue
        inner = depth + 1
        if kind is mapping or isinstance(node, mapping):
            for name, value in node.value:
                if type(name) is not scalar and not isinstance(name, scalar):
                    at = Location(str(path), name.start_mark.line + 1)
                    problems.append(
                        Problem("malformed YAML: a mapping key must be a plain value", at)
                    )
                stack.append((name, inner))
                stack.append((value, inner))
        elif kind is sequence or isinstance(node, sequence):
            stack.extend([(kid, inner) for kid in node.value])
    if problems or not shared:  # without aliases the document is as written: checked
        return problems
    written = len(seen)
    expanded = _expanded_size(root, written + MAX_ALIAS_NODES + 1)
    if expanded is None:
        problems.append(Problem("an alias refers to a node that contains it", Location(str(path))))
    elif expanded[1] > MAX_DEPTH:  # a chain of aliases, each nesting the one before
        problems.append(
            Problem(f"nested deeper than {MAX_DEPTH} levels through aliases", Location(str(path)))
        )
    elif expanded[0] - written > MAX_ALIAS_NODES:
        problems.append(
            Problem(
                f"aliases expand to more than {MAX_ALIAS_NODES:,} nodes beyond the "
                f"{written:,} written; write the data out instead",
                Location(str(path)),
            )
        )
    return problems


def names_a_file(path: Path) -> bool:
    """Whether ``path`` is meant as a file: it exists, or the system refuses the name
    itself (too long, no permission), so reading it gives that reason instead of the
    argument being taken for something else (a run id)."""
    try:
        path.stat()
    except (FileNotFoundError, NotADirectoryError):
        return False
    except OSError:
        return True
    except ValueError:  # an embedded NUL
        return False
    return True
