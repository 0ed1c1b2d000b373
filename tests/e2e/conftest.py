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


STREAMED_RUNS = ("one", "three", "declared", "plugin", "unjudged")
"""The runs of ``streamed_store``: one trial; three; a declared policy; a grader that is not
installed; a recorded answer without the run grader's judgment."""


@pytest.fixture(scope="session")
def streamed_store(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The URL of a store of the ``STREAMED_RUNS`` over 60 cases (every status, slices,
    synthetic and held-out cases), written once for the session's streamed-report tests."""
    from tests.unit.runs.test_stored_summary import _cases, _fill

    from assay.store import open_store

    url = f"sqlite:///{tmp_path_factory.mktemp('streamed') / 'assay.db'}"
    store = open_store(url)
    try:
        cases = _cases(60, True)
        _fill(store, "one", 1, cases, 1)
        _fill(store, "three", 2, cases, 3)
        _fill(store, "declared", 3, cases, 4, policy="pass^k")
        _fill(store, "plugin", 4, cases, 2, grader={"name": "not-installed", "version": "7"})
        _fill(store, "unjudged", 5, cases, 1, unjudged=True)
    finally:
        store.close()
    return url
