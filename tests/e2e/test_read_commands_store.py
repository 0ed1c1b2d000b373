"""Reading commands never create a run store: a mistyped --store is one message, exit 2."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.inprocess import run_inprocess
from tests.run_stores import fill_store

READS: tuple[tuple[str, ...], ...] = (
    ("runs",),
    ("report", "base"),
    ("compare", "base", "cand"),
    ("gate", "base", "--rule", "task_success>=0.5"),
    ("trace", "base", "E1"),
    ("diagnose", "base", "E1"),
    ("export", "base"),
    ("trend", "policy"),
    ("runs", "tag", "base", "baseline"),
)


@pytest.mark.parametrize("args", READS, ids=lambda a: " ".join(a))
def test_read_command_on_a_mistyped_store_creates_nothing(
    args: tuple[str, ...], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mistyped = tmp_path / "typo" / "assay.db"
    result = run_inprocess(capsys, *args, "--store", str(mistyped))
    assert result.returncode == 2, result.stderr
    assert f"no run store at sqlite:///{mistyped}" in result.stderr
    assert "--store" in result.stderr
    assert "Traceback" not in result.stderr
    assert not mistyped.exists()
    assert not mistyped.parent.exists()


def test_an_empty_database_file_is_not_turned_into_a_store(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "empty.db"
    empty.write_bytes(b"")
    result = run_inprocess(capsys, "runs", "--store", str(empty))
    assert result.returncode == 2
    assert "no run store at" in result.stderr
    assert empty.read_bytes() == b""


def test_read_commands_read_an_existing_store(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = fill_store(f"sqlite:///{tmp_path / 'assay.db'}")
    result = run_inprocess(capsys, "runs", "--store", url)
    assert result.returncode == 0, result.stderr
    assert "base" in result.stdout and "cand" in result.stdout
