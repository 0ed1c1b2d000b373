"""The documentation site (mkdocs.yml): the API reference names every public name and
built-in check, each with a docstring, and ``mkdocs build --strict`` passes (no broken
link or anchor, no missing page, no reference it cannot resolve)."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

import assay

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "docs" / "reference.md"


def _check_functions() -> list[str]:
    with (ROOT / "pyproject.toml").open("rb") as f:
        points = tomllib.load(f)["project"]["entry-points"]["assay.checks"]
    return [target.replace(":", ".") for target in points.values()]


def _documented() -> list[str]:
    return [f"assay.{name}" for name in assay.__all__ if name != "__version__"] + _check_functions()


def test_the_reference_documents_every_public_name_and_check() -> None:
    directives = {
        line.removeprefix("::: ").strip()
        for line in REFERENCE.read_text(encoding="utf-8").splitlines()
        if line.startswith("::: ")
    }
    missing = [name for name in _documented() if name not in directives]
    assert missing == [], f"docs/reference.md has no '::: NAME' for {missing}"
    assert "`assay.__version__`" in REFERENCE.read_text(encoding="utf-8")


def _undocumented(obj: Any, path: str) -> list[str]:
    """``path`` and its public methods and properties that have no docstring, as the
    reference reads them (griffe, from the source)."""
    found = [] if obj.docstring and obj.docstring.value.strip() else [path]
    if obj.is_class:
        for name, member in obj.members.items():
            if name.startswith("_") or not member.is_function:
                continue
            if not (member.docstring and member.docstring.value.strip()):
                found.append(f"{path}.{name}")
    return found


def test_every_public_name_has_a_docstring() -> None:
    griffe = pytest.importorskip("griffe")
    package = griffe.load("assay", search_paths=[str(ROOT / "src")], resolve_aliases=True)
    missing: list[str] = []
    for path in _documented():
        obj = package[path.removeprefix("assay.")]
        missing += _undocumented(obj.final_target if obj.is_alias else obj, path)
    assert missing == [], f"public names without a docstring: {missing}"


def test_the_site_builds_in_strict_mode(tmp_path: Path) -> None:
    pytest.importorskip("mkdocs")
    pytest.importorskip("mkdocstrings")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), env.get("PYTHONPATH", "")])
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    page = (tmp_path / "site" / "reference.html").read_text(encoding="utf-8")
    for path in _documented():
        assert f'id="{path}"' in page, f"the reference page does not show {path}"
