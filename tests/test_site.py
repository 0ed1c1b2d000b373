"""The documentation site (mkdocs.yml): its API reference is docs/api.md, which names every
public name and built-in check, each with a docstring, and ``mkdocs build --strict`` passes
(no broken link or anchor, no missing page)."""

from __future__ import annotations

import importlib.util
import inspect
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import assay

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "docs" / "api.md"


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "gen_api_docs", ROOT / "scripts" / "gen_api_docs.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _public() -> list[str]:
    return [name for name in assay.__all__ if name != "__version__"]


def test_the_site_shows_the_generated_reference() -> None:
    site = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert "Python API reference: api.md" in site
    assert not (ROOT / "docs" / "reference.md").exists()


def test_the_reference_documents_every_public_name_and_check() -> None:
    text = REFERENCE.read_text(encoding="utf-8")
    checks = list(_generator().check_functions())
    assert "answer_not_empty" in checks
    missing = [name for name in _public() + checks if f"### `{name}`\n" not in text]
    assert missing == [], f"docs/api.md has no entry for {missing}"
    assert "`assay.__version__`" in text


def _undocumented(obj: Any, path: str) -> list[str]:
    """``path`` and its public methods and properties that have no docstring of their own."""
    found = [] if (obj.__doc__ or "").strip() else [path]
    if inspect.isclass(obj):
        for name, member in vars(obj).items():
            if name.startswith("_"):
                continue
            target = member.__func__ if isinstance(member, classmethod | staticmethod) else member
            routine = inspect.isfunction(target) or isinstance(target, property)
            if routine and not (target.__doc__ or "").strip():
                found.append(f"{path}.{name}")
    return found


def test_every_public_name_has_a_docstring() -> None:
    generator = _generator()
    missing: list[str] = []
    for name in _public():
        obj = getattr(assay, name)
        if inspect.isclass(obj) or inspect.isroutine(obj):
            missing += _undocumented(obj, f"assay.{name}")
        elif not generator._first_paragraph(name, obj, assay._EXPORTS[name]):
            missing.append(f"assay.{name}")
    assert missing == [], f"public names without a docstring: {missing}"


def test_the_site_builds_in_strict_mode(tmp_path: Path) -> None:
    pytest.importorskip("mkdocs")
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
    assert not (tmp_path / "site" / "reference.html").exists()
    page = (tmp_path / "site" / "api.html").read_text(encoding="utf-8")
    for name in _public() + list(_generator().check_functions()):
        assert f"<code>{name}</code></h3>" in page or f"<code>{name}</code><a" in page, (
            f"the reference page does not show {name}"
        )
