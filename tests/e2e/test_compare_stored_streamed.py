"""``assay compare`` of two stored runs pairs them as the store streams them and prints,
in every format, with every gate and exit code, what comparing their reports printed; a
pair only the reports can compare (an unjudged answer) is compared from them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tests.inprocess import run_cli
from tests.unit.runs.test_paired_comparison import _cases, _fill

import assay.runs as paired
from assay.store import open_store


@pytest.fixture(scope="module")
def store_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    url = f"sqlite:///{tmp_path_factory.mktemp('streamed') / 'runs.db'}"
    store = open_store(url)
    try:
        cases = _cases(150, seed=5)
        _fill(store, "base", 1, cases, 1)
        _fill(store, "cand", 2, cases, 1, model="other")
        _fill(store, "late", 3, cases, 1, unjudged=True)
        _fill(store, "triple-a", 4, cases, 3)
        _fill(store, "triple-b", 5, cases, 3)
    finally:
        store.close()
    return url


def _outputs(url: str, cwd: Path, *args: str) -> list[tuple[int, str, str]]:
    outputs = []
    for fmt in ("json", "text", "markdown"):
        done = run_cli("compare", *args, "--store", url, "-f", fmt, cwd=cwd)
        outputs.append((done.returncode, done.stdout, done.stderr))
    return outputs


@pytest.mark.parametrize(
    "args",
    [
        ("base", "cand"),
        ("cand", "base", "--gate", "no-new-failures"),
        ("base", "cand", "--gate", "task_success_delta>=-0.5", "--confidence", "0.9"),
        ("triple-a", "triple-b", "--interval", "wilson"),
        ("triple-a", "triple-b", "--matching-only", "--across-graders"),
        ("base", "late"),
    ],
)
def test_the_streamed_pairing_prints_what_the_reports_did(
    store_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: tuple[str, ...]
) -> None:
    streamed: list[Any] = []
    pair = paired.paired_comparison

    def counted(*a: Any, **k: Any) -> Any:
        streamed.append(pair(*a, **k))
        return streamed[-1]

    monkeypatch.setattr(paired, "paired_comparison", counted)
    new = _outputs(store_url, tmp_path, *args)
    assert len(streamed) == 3
    assert all(c is None for c in streamed) == (args[1] == "late")
    monkeypatch.setattr(paired, "paired_comparison", lambda *a, **k: None)
    assert new == _outputs(store_url, tmp_path, *args)
    assert new[0][0] == (1 if "no-new-failures" in args else 0)
