"""assay's modules compiled to bytecode before a benchmark times whole processes.

An installed wheel has its ``.pyc`` files (pip compiles them on install), and a checkout
run without ``PYTHONDONTWRITEBYTECODE`` writes them on its first run. In an editable
install run with ``PYTHONDONTWRITEBYTECODE=1`` (as CI and sandboxes often set), every
process would compile assay's ~230 modules from source again: 0.2–0.3 s of CPU that no
user of an installed assay pays. The benchmarks compile them once, up front, and say so.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

NOTE = (
    "assay's modules were compiled to bytecode first (`compileall`), as pip does on "
    "install: no process compiles them from source."
)

_COMPILE = (
    "import compileall, os, sys, assay; "
    "sys.exit(0 if compileall.compile_dir(os.path.dirname(assay.__file__), quiet=1) else 1)"
)


def precompile(python: str = sys.executable) -> str:
    """Compile the ``assay`` package that ``python`` imports; a line for RESULTS.md
    (saying what failed, when compiling did)."""
    done = subprocess.run([python, "-c", _COMPILE], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:]
        return f"assay's modules could not all be compiled to bytecode: {' '.join(tail)}"
    return NOTE


def precompile_src(python: str, src: Path) -> str:
    """Compile the ``assay`` package in the directory ``src`` (another checkout's), as
    ``python`` would import it; a line for RESULTS.md."""
    done = subprocess.run(
        [python, "-c", _COMPILE],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "PYTHONPATH": str(src)},
    )
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:]
        return f"its modules could not all be compiled to bytecode: {' '.join(tail)}"
    return "its modules were compiled to bytecode first, as this checkout's were"
