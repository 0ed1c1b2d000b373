"""Snapshot tests of what ``assay runs``, ``assay validate``, ``assay dedupe``, ``assay
diff-dataset`` and ``assay cache stats`` print, text and JSON, from fixed inputs (the fixed
store, two small datasets, a cache of fixed entries), run through the real CLI.

To accept a deliberate change of output, regenerate the snapshots and review the diff:

    ASSAY_UPDATE_GOLDEN=1 .venv/bin/pytest tests/golden/test_listing_pages.py
"""

from __future__ import annotations

import os
import re
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest
from tests.conftest import RunAssay
from tests.golden._inputs import HERE

UPDATE = os.environ.get("ASSAY_UPDATE_GOLDEN") == "1"
INPUTS = HERE / "inputs"
STORE = HERE / "stores" / "runs.db"


def _check(rendered: str, name: str) -> None:
    snapshot = HERE / "snapshots" / name
    if UPDATE:
        snapshot.write_text(rendered, encoding="utf-8")
    assert snapshot.exists(), f"no snapshot {snapshot}; run with ASSAY_UPDATE_GOLDEN=1"
    assert rendered == snapshot.read_text(encoding="utf-8"), (
        f"{snapshot.name} changed; if intended, run ASSAY_UPDATE_GOLDEN=1 pytest "
        "tests/golden/test_listing_pages.py and review the diff"
    )


def _suffix(fmt: str) -> str:
    return "txt" if fmt == "text" else fmt


@pytest.fixture
def inputs(tmp_path: Path) -> Path:
    for name in ("listings.jsonl", "listings-v2.jsonl"):
        shutil.copy(INPUTS / name, tmp_path / name)
    lines = (INPUTS / "listings.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    (tmp_path / "clean.jsonl").write_text("".join(lines[:6]), encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize("fmt", ["text", "json"])
@pytest.mark.parametrize("strict", [False, True])
def test_validation_matches_its_snapshot(
    fmt: str, strict: bool, inputs: Path, run_assay: RunAssay
) -> None:
    args = ["validate", "listings.jsonl", "-f", fmt, *(["--strict"] if strict else [])]
    done = run_assay(*args, cwd=inputs)
    assert done.returncode == 2, done.stderr
    _check(done.stdout, f"validate{'-strict' if strict else ''}.{_suffix(fmt)}")
    clean = run_assay("validate", "clean.jsonl", "-f", fmt, cwd=inputs)
    assert clean.returncode == 0, clean.stderr
    _check(clean.stdout, f"validate-clean.{_suffix(fmt)}")


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_duplicates_match_their_snapshot(fmt: str, inputs: Path, run_assay: RunAssay) -> None:
    done = run_assay("dedupe", "listings.jsonl", "-f", fmt, cwd=inputs)
    assert done.returncode == 0, done.stderr
    _check(done.stdout, f"dedupe.{_suffix(fmt)}")
    none = run_assay("dedupe", "listings.jsonl", "--threshold", "1", "-f", fmt, cwd=inputs)
    _check(none.stdout, f"dedupe-exact.{_suffix(fmt)}")


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_a_dataset_diff_matches_its_snapshot(fmt: str, inputs: Path, run_assay: RunAssay) -> None:
    done = run_assay("diff-dataset", "listings.jsonl", "listings-v2.jsonl", "-f", fmt, cwd=inputs)
    assert done.returncode == 0, done.stderr
    _check(done.stdout, f"diff-dataset.{_suffix(fmt)}")


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_cache_stats_match_their_snapshot(fmt: str, tmp_path: Path, run_assay: RunAssay) -> None:
    from assay.outcomes import Answer
    from assay.runner._cache import ResponseCache
    from assay.targets import Reply

    empty = run_assay("cache", "stats", "--cache-path", "cache.db", "-f", fmt, cwd=tmp_path)
    _check(empty.stdout, f"cache-stats-empty.{_suffix(fmt)}")
    cache = ResponseCache(tmp_path / "cache.db")
    try:
        for n, day in enumerate((3, 5, 9)):
            when = datetime(2026, 11, day, 8, 30, tzinfo=UTC)
            reply = Reply(Answer(text=f"answer {n}"))
            cache.put(f"key{n}", "target", reply, 12.5, 1, "run-1", when)
    finally:
        cache.close()
    done = run_assay("cache", "stats", "--cache-path", "cache.db", "-f", fmt, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    # The file's size depends on SQLite's version and page size, not on assay.
    shown = re.sub(r"(size: |\"bytes\": )\d+", r"\g<1>SIZE", done.stdout)
    assert "SIZE" in shown
    _check(shown, f"cache-stats.{_suffix(fmt)}")


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_the_run_listing_matches_its_snapshot(
    fmt: str, tmp_path: Path, run_assay: RunAssay
) -> None:
    shutil.copy(STORE, tmp_path / "runs.db")
    done = run_assay("runs", "--store", "runs.db", "-f", fmt, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    _check(done.stdout, f"runs.{_suffix(fmt)}")
    empty = run_assay("runs", "--store", "runs.db", "--limit", "0", "-f", fmt, cwd=tmp_path)
    _check(empty.stdout, f"runs-empty.{_suffix(fmt)}")
