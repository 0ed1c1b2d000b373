"""A run store with two recorded runs of the seed dataset, for the viewer's tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.run_stores import fill_store


def make_store(path: Path) -> str:
    """A SQLite store at ``path`` with runs ``base`` and ``cand``; returns its URL."""
    return fill_store(f"sqlite:///{path}")


@pytest.fixture
def run_store(tmp_path: Path) -> tuple[str, Path]:
    """(URL, file) of a store with runs ``base`` and ``cand``."""
    path = tmp_path / "store" / "assay.db"
    return make_store(path), path
