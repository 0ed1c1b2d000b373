"""Looking up a path a user gave, so that a name the system refuses (too long, under a
file, in a folder that cannot be searched, holding a NUL) is one message naming the path
and what gave it, never a traceback.

``path_exists`` answers for an option or argument (``--output``, ``DIRECTORY``); ``named_file``
for a field of a file the user wrote (a suite's ``dataset``, a grader's ``profile``), at
that field's line.
"""

from __future__ import annotations

import errno
import stat
from collections.abc import Callable
from pathlib import Path

from assay.errors import AssayConfigError, InputFormatError, Location, Problem


def lookup_refusal(path: Path) -> str | None:
    """Why the system cannot say what is at ``path`` (``File name too long``,
    ``Permission denied``…), or None when it can, nothing there included."""
    try:
        path.stat()
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as err:
        return str(err.strerror or err)
    except ValueError:  # an embedded NUL, which no name may hold
        return "the name holds a NUL character"
    return None


def path_exists(path: Path, named_by: str) -> bool:
    """Whether anything is at ``path``, which ``named_by`` gave (``--output``, an
    argument's name); an ``AssayConfigError`` naming both when the system cannot tell."""
    refusal = lookup_refusal(path)
    if refusal is not None:
        raise AssayConfigError(f"{named_by} {path}: cannot be used: {refusal}")
    return path.exists()


def too_long(path: Path) -> bool:
    """Whether the system refuses ``path`` as a name too long: nothing can be there."""
    try:
        path.stat()
    except OSError as err:
        return err.errno == errno.ENAMETOOLONG
    except ValueError:
        return False
    return False


def file_refusal(path: Path) -> str | None:
    """Why ``path`` cannot be read as a file: ``no such file``, a directory, or the reason
    the system refuses the name; None when a file (or a device, which the reader refuses
    in its own words) is there."""
    try:
        info = path.stat()
    except (FileNotFoundError, NotADirectoryError):
        return "no such file"
    except OSError as err:
        return f"cannot be read: {err.strerror or err}"
    except ValueError:
        return "cannot be read: the name holds a NUL character"
    if stat.S_ISDIR(info.st_mode):
        return "is a directory, expected a file"
    return None


def named_file(value: str, base_dir: Path, where: Location, field: str, what: str) -> Path:
    """The file that ``field`` of the file at ``where`` names (``value``, relative to
    ``base_dir`` unless absolute); an ``InputFormatError`` at ``where`` naming the field,
    headed "invalid ``what``", when no file can be read there."""
    return _named(value, base_dir, where, field, what, file_refusal)


def named_path(value: str, base_dir: Path, where: Location, field: str, what: str) -> Path:
    """``named_file`` for a file that need not exist yet (a cache assay creates): refused
    only when the system refuses the name itself."""
    return _named(value, base_dir, where, field, what, lookup_refusal)


def _named(
    value: str,
    base_dir: Path,
    where: Location,
    field: str,
    what: str,
    refusal_of: Callable[[Path], str | None],
) -> Path:
    path = Path(value)
    path = path if path.is_absolute() else base_dir / path
    refusal = refusal_of(path)
    if refusal is not None:
        if refusal_of is lookup_refusal:
            refusal = f"cannot be used: {refusal}"
        place = "" if str(path) == value else f" ({path})"
        raise InputFormatError(
            [Problem(f"{field} {value}: {refusal}{place}", where, field)],
            summary=f"{where.file}: invalid {what}",
        )
    return path
