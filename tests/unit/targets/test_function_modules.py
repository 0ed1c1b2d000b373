"""Two suites in one process, each with its own module of the same name, call their own."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from assay.targets.function import import_callable


@pytest.fixture
def restored() -> Iterator[None]:
    path, modules = list(sys.path), set(sys.modules)
    yield
    sys.path[:] = path
    for name in set(sys.modules) - modules:
        del sys.modules[name]


def _suite_dir(root: Path, name: str, reply: str) -> Path:
    folder = root / name
    folder.mkdir()
    (folder / "local_target_app.py").write_text(f"def answer(case):\n    return {reply!r}\n")
    return folder


def test_each_suite_directory_gets_its_own_module(tmp_path: Path, restored: None) -> None:
    first = import_callable("local_target_app:answer", _suite_dir(tmp_path, "a", "first"))
    second = import_callable("local_target_app:answer", _suite_dir(tmp_path, "b", "second"))
    assert (first(None), second(None)) == ("first", "second")


def test_the_same_directory_reuses_the_imported_module(tmp_path: Path, restored: None) -> None:
    folder = _suite_dir(tmp_path, "a", "first")
    assert import_callable("local_target_app:answer", folder) is import_callable(
        "local_target_app:answer", folder
    )


def test_a_module_not_in_the_suite_directory_is_left_alone(tmp_path: Path, restored: None) -> None:
    loaded = sys.modules["json"]
    import_callable("json:dumps", tmp_path)
    assert sys.modules["json"] is loaded
