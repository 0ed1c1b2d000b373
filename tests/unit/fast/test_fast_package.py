"""``assay._fast`` holds the speed tricks: importing the package loads none of them."""

from __future__ import annotations

import subprocess
import sys


def test_importing_the_package_imports_none_of_its_tricks() -> None:
    script = "import sys, assay._fast; print(sorted(m for m in sys.modules if 'assay._fast.' in m))"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
