"""Where a run came from: its id, the git commit, package versions."""

from __future__ import annotations

import secrets
import subprocess
import sys
import threading
from datetime import datetime
from importlib import metadata
from pathlib import Path

PACKAGES = (
    "aiohttp",
    "opentelemetry-sdk",
    "psycopg",
    "pydantic",
    "PyYAML",
    "rich",
    "scipy",
    "SQLAlchemy",
    "typer",
)


def new_run_id(now: datetime) -> str:
    """A sortable, unique run id: ``YYYYMMDD-HHMMSS-xxxxxx``."""
    return f"{now:%Y%m%d-%H%M%S}-{secrets.token_hex(3)}"


def git_commit(where: Path) -> str | None:
    """The commit checked out around ``where`` (``+dirty`` if changed), or None."""
    try:
        head = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=where, capture_output=True, text=True, timeout=5
        )
        if head.returncode != 0:
            return None
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=where,
            capture_output=True,
            text=True,
            timeout=5,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    commit = head.stdout.strip()
    return f"{commit}+dirty" if dirty.stdout.strip() else commit


class GitCommit:
    """``git_commit(where)`` asked now, in a thread, and answered by ``result()``: git
    runs while the caller gets on with its work."""

    def __init__(self, where: Path) -> None:
        self._found: list[str | None] = []
        self._thread = threading.Thread(
            target=lambda: self._found.append(git_commit(where)), name="assay-git", daemon=True
        )
        self._thread.start()

    def result(self) -> str | None:
        """What ``git_commit(where)`` returned."""
        self._thread.join()
        return self._found[0] if self._found else None


def package_versions() -> dict[str, str]:
    """Versions of Python and the packages that can change a run's results."""
    found = {"python": sys.version.split()[0]}
    for name in PACKAGES:
        try:
            found[name] = installed_version(name)
        except metadata.PackageNotFoundError:
            continue
    return found


def installed_version(name: str) -> str:
    """``importlib.metadata.version(name)``, read from the metadata's headers alone rather
    than by parsing the whole file (a package's description) as an e-mail message."""
    dist = metadata.distribution(name)
    text = dist.read_text("METADATA") or dist.read_text("PKG-INFO") or ""
    lines = text.splitlines()
    for at, line in enumerate(lines):
        if not line:  # the end of the headers
            break
        if line.startswith("Version:"):
            folded = at + 1 < len(lines) and lines[at + 1][:1] in (" ", "\t")
            if not folded:
                return line.split(":", 1)[1].lstrip(" \t")
            break
    return dist.version
