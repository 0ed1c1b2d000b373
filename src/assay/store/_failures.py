"""What a database failure means for the user: one ``StoreError`` with a clear message.

A damaged file, a full disk, a read-only file or mount, a lock held too long: each is
named, with what was kept and what to do, instead of a driver's traceback.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterator
from typing import Any, Concatenate, ParamSpec, Protocol, TypeVar

from sqlalchemy.exc import DBAPIError, IntegrityError

from assay.errors import StoreError
from assay.store._damage import ROW_ADVICE, DamagedRow, row_failure

P = ParamSpec("P")
T = TypeVar("T")

# (kind, words found in the driver's message or SQLSTATE codes). SQLite reports by message;
# PostgreSQL's SQLSTATE classes: 53 insufficient resources, 25006 read-only transaction,
# XX001/XX002 data corrupted.
_KINDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("full", ("database or disk is full", "no space left", "could not extend file", "53100")),
    ("read_only", ("readonly database", "read-only", "25006", "readonly")),
    (
        "damaged",
        (
            "file is not a database",
            "malformed",
            "database corrupt",
            "xx001",
            "xx002",
            "no such table",
            "no such column",
        ),
    ),
    ("locked", ("database is locked", "lock timeout", "55p03")),
    ("cannot_open", ("unable to open database file", "disk i/o error", "connection refused")),
)

_ADVICE = {
    "full": (
        "the disk (or the database's size limit) has no room left. Nothing already stored "
        "was lost; free some space, then go on"
    ),
    "read_only": (
        "it is read-only (a read-only mount, an immutable file, or no write permission). "
        "It can still be read (assay runs, report, view); record new runs elsewhere "
        "with --store"
    ),
    "damaged": (
        "the file is damaged or is not an assay store (truncated, overwritten, or another "
        "kind of file). Nothing was written to it; keep it for recovery (`sqlite3 FILE "
        ".recover` salvages what is readable) and record new runs elsewhere with --store"
    ),
    "locked": ("another process held it locked for too long; try again when that process ends"),
    "cannot_open": "it cannot be opened; check the path, its permissions and the disk",
    "failed": "the database refused the operation",
}


def _code(err: DBAPIError) -> str:
    return str(getattr(err.orig, "sqlstate", "") or "").lower()


def store_failure(err: DBAPIError, url: str) -> StoreError:
    """The ``StoreError`` for a driver error on the store at ``url``."""
    detail = str(err.orig).strip().splitlines()[0] if str(err.orig).strip() else type(err).__name__
    found = f"{detail} {_code(err)}".lower()
    kind = next((k for k, words in _KINDS if any(w in found for w in words)), "failed")
    return StoreError(f"the store {url} cannot be used ({detail}): {_ADVICE[kind]}", kind)


class _HasUrl(Protocol):
    url: str


S = TypeVar("S", bound=_HasUrl)


def guarded(method: Callable[Concatenate[S, P], T]) -> Callable[Concatenate[S, P], T]:
    """A ``RunStore`` method whose database failures become a ``StoreError`` (a record
    stored twice stays an ``IntegrityError``: that is a bug of the caller)."""

    def wrapper(self: S, /, *args: P.args, **kwargs: P.kwargs) -> T:
        try:
            return method(self, *args, **kwargs)
        except IntegrityError:
            raise
        except DBAPIError as err:
            raise store_failure(err, self.url) from None
        except DamagedRow as err:
            raise row_failure(err, self.url) from None
        except ValueError as err:  # a stored row that no longer parses, found elsewhere
            first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
            raise StoreError(
                f"the store {self.url} holds a row assay cannot read ({first}): it was changed "
                f"outside assay or is damaged. {ROW_ADVICE}",
                "damaged",
            ) from None

    functools.update_wrapper(wrapper, method)
    return wrapper


def guard_call(url: str, call: Callable[[], Any]) -> Any:
    """``call()`` with its database failures turned into a ``StoreError``."""
    try:
        return call()
    except IntegrityError:
        raise
    except DBAPIError as err:
        raise store_failure(err, url) from None


@contextlib.contextmanager
def rows_named(url: str, run_id: str | None = None) -> Iterator[None]:
    """A block whose damaged stored rows (``DamagedRow``) become the ``StoreError`` that
    names them in the store at ``url`` (in run ``run_id``, when the row did not say)."""
    try:
        yield
    except DamagedRow as err:
        raise row_failure(err if run_id is None else err.of_run(run_id), url) from None
