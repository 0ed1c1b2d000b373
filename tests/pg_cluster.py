"""A throwaway PostgreSQL cluster started with the machine's initdb/pg_ctl (as the
postgres user when running as root), for the tests and the store load benchmark."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

from tests.ports import reserved_port


class ClusterUnavailable(Exception):
    """The cluster cannot be started here; the message says why."""


PG_BIN_DIRS = ("/usr/local/bin", "/usr/lib/postgresql/current/bin")


def _find(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    for folder in PG_BIN_DIRS:
        candidate = Path(folder) / name
        if candidate.exists():
            return str(candidate)
    return None


@contextlib.contextmanager
def postgres_cluster() -> Iterator[str]:
    """A PostgreSQL cluster on 127.0.0.1 (trust auth) while the block runs, then removed;
    yields the URL of its ``postgres`` database. Raises ``ClusterUnavailable``."""
    initdb, pg_ctl = _find("initdb"), _find("pg_ctl")
    if initdb is None or pg_ctl is None:
        raise ClusterUnavailable("PostgreSQL server binaries (initdb, pg_ctl) are not installed")
    as_user: list[str] = []
    base = Path(tempfile.mkdtemp(prefix="assay-pg-"))
    if os.geteuid() == 0:  # the server refuses to run as root
        runuser = shutil.which("runuser")
        if runuser is None:
            raise ClusterUnavailable(
                "running as root and runuser is missing to start PostgreSQL as postgres"
            )
        shutil.chown(base, user="postgres")
        as_user = [runuser, "-u", "postgres", "--"]
    data = base / "data"
    try:
        subprocess.run(
            [
                *as_user,
                initdb,
                "-D",
                str(data),
                "-A",
                "trust",
                "-U",
                "postgres",
                "-E",
                "UTF8",
                "--no-sync",
            ],
            check=True,
            capture_output=True,
            timeout=120,
        )
        with reserved_port() as port:  # held until the server listens on it
            subprocess.run(
                [
                    *as_user,
                    pg_ctl,
                    "-D",
                    str(data),
                    "-l",
                    str(base / "server.log"),
                    "-w",
                    "-t",
                    "60",
                    "-o",
                    f"-p {port} -h 127.0.0.1 -k {base} -F",
                    "start",
                ],
                check=True,
                capture_output=True,
                timeout=120,
            )
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as err:
        shutil.rmtree(base, ignore_errors=True)
        raise ClusterUnavailable(f"could not start a PostgreSQL server: {err}") from None
    try:
        yield f"postgresql+psycopg://postgres@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run(
            [*as_user, pg_ctl, "-D", str(data), "-m", "immediate", "stop"],
            capture_output=True,
            timeout=60,
            check=False,
        )
        shutil.rmtree(base, ignore_errors=True)


def fresh_database(server: str) -> str:
    """A new empty database on the cluster at ``server``; returns its URL."""
    import psycopg

    name = f"assay_{uuid.uuid4().hex[:12]}"
    plain = server.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(plain, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    return server.rsplit("/", 1)[0] + f"/{name}"
