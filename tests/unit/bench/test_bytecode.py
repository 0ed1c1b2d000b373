"""The benchmarks time assay as installed: its modules compiled to bytecode first."""

from __future__ import annotations

import sys
from pathlib import Path

import assay

BENCH = Path(__file__).resolve().parents[3] / "bench"
sys.path.insert(0, str(BENCH))

from _bytecode import NOTE, precompile  # noqa: E402


def test_every_assay_module_has_bytecode_after_precompile() -> None:
    assert precompile(sys.executable) == NOTE
    package = Path(assay.__file__).parent
    sources = list(package.rglob("*.py"))
    tag = sys.implementation.cache_tag
    missing = [
        s for s in sources if not (s.parent / "__pycache__" / f"{s.stem}.{tag}.pyc").exists()
    ]
    assert sources and not missing


def test_a_python_that_cannot_import_assay_is_reported(tmp_path: Path) -> None:
    fake = tmp_path / "python"
    fake.write_text("#!/bin/sh\necho 'ModuleNotFoundError: assay' >&2\nexit 1\n")
    fake.chmod(0o755)
    said = precompile(str(fake))
    assert "could not all be compiled" in said and "ModuleNotFoundError" in said
