"""A PostgreSQL store whose per-case tables sit on a full disk: the run stops
``interrupted`` with one message, nothing stored is lost, and ``--resume`` finishes once
there is room again.

The records, judgments and spans are moved to a tablespace on a small tmpfs (the server's
own files stay on the main disk, as a database server's catalog usually does); the test is
skipped, with the reason, where a tmpfs cannot be mounted or no server can be started."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.pg_cluster import fresh_database

pytestmark = pytest.mark.postgres

ROOT = Path(__file__).resolve().parents[3]
PER_CASE_TABLES = ("records", "judgments", "spans")


def _assay(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1"}
    env.pop("ASSAY_STORE", None)
    return subprocess.run(
        [sys.executable, "-m", "assay", *map(str, args)],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip


def _suite(folder: Path, cases: int) -> Path:
    rows = [
        {"id": f"C{i:03d}", "slice": "s", "question": f"q{i}", "expected_behavior": "answer",
         "expected_fact": "f"}
        for i in range(cases)
    ]  # fmt: skip
    (folder / "cases.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    # A reply that does not compress, so each record takes its room on disk.
    text = uuid.uuid4().hex * 40
    suite = folder / "suite.yaml"
    suite.write_text(
        "dataset: cases.jsonl\ntarget:\n  type: scripted\n  default: {kind: answer, fact: f, "
        f"text: {json.dumps(text)}}}\nconcurrency: 2\ntrials: 2\n"
    )
    return suite


@pytest.fixture
def small_disk() -> Iterator[Path]:
    """A 768 KB tmpfs the postgres user owns (skipped where mounting is not allowed)."""
    base = Path(tempfile.mkdtemp(prefix="assay-pg-disk-"))
    os.chmod(base, 0o755)  # the server (user postgres) must reach the mount inside
    point = base / "space"
    point.mkdir()
    made = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=768k,mode=0700", "tmpfs", str(point)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    if made.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {made.stderr.strip()}")
    try:
        if os.geteuid() == 0:
            shutil.chown(point, user="postgres")
        yield point
    finally:
        subprocess.run(["umount", "-l", str(point)], capture_output=True, check=False)
        shutil.rmtree(base, ignore_errors=True)


def _sql(url: str, *statements: str) -> list[tuple[object, ...]]:
    import psycopg

    plain = url.replace("postgresql+psycopg://", "postgresql://")
    rows: list[tuple[object, ...]] = []
    with psycopg.connect(plain, autocommit=True) as conn:
        for statement in statements:
            cursor = conn.execute(statement)
            if cursor.description is not None:
                rows = [tuple(r) for r in cursor.fetchall()]
    return rows


def test_a_full_tablespace_stops_the_run_as_interrupted_and_resume_finishes_it(
    postgres_server: str, small_disk: Path, tmp_path: Path
) -> None:
    url = fresh_database(postgres_server)
    space = f"full_{uuid.uuid4().hex[:8]}"
    try:
        first = _assay("run", _suite(tmp_path, cases=2), "--store", url, cwd=tmp_path)
        assert first.returncode == 0, first.stderr  # the schema exists, on the main disk
        _sql(url, f"CREATE TABLESPACE {space} LOCATION '{small_disk}'")
        _sql(url, *(f"ALTER TABLE {t} SET TABLESPACE {space}" for t in PER_CASE_TABLES))

        ran = _assay("run", _suite(tmp_path, cases=400), "--store", url, cwd=tmp_path)
        assert ran.returncode == 2, ran.stdout + ran.stderr
        assert "Traceback" not in ran.stderr
        assert "--resume" in ran.stderr
        assert "no space left on device" in ran.stderr.lower(), ran.stderr
        assert len([line for line in ran.stderr.splitlines() if line.startswith("assay:")]) == 1
        listed = _assay("runs", "--store", url, "--format", "json", cwd=tmp_path)
        assert listed.returncode == 0, listed.stderr
        run = next(r for r in json.loads(listed.stdout) if r["status"] != "completed")
        assert run["status"] == "interrupted"
        keys = "SELECT case_id, trial FROM records WHERE run_id = '{}'"
        kept = _sql(url, keys.format(run["id"]))
        assert 0 < len(kept) < 800

        subprocess.run(["mount", "-o", "remount,size=16m", str(small_disk)], check=True)
        resumed = _assay("run", "--resume", run["id"], "--store", url, "-f", "json", cwd=tmp_path)
        assert resumed.returncode == 0, resumed.stderr
        assert json.loads(resumed.stdout)["total"] == 800  # case-trials
        final = _sql(url, keys.format(run["id"]))
        assert set(kept) <= set(final)
        assert len(final) == len(set(final)) == 800
    finally:
        # The database and its tablespace go before the tmpfs is unmounted: a page of it
        # left in the shared cluster's buffers would fail the next checkpoint, in
        # whichever later test asks for one (CREATE DATABASE does).
        name = url.rsplit("/", 1)[1]
        _sql(postgres_server, f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        _sql(postgres_server, f"DROP TABLESPACE IF EXISTS {space}")
