"""``assay --help`` starts without loading the packages only real work needs."""

from __future__ import annotations

import subprocess
import sys

HEAVY = (
    "aiohttp",
    "jinja2",
    "numpy",
    "opentelemetry",
    "pydantic",
    "scipy",
    "sqlalchemy",
    "assay.cases",
    "assay.report",
)

PROBE = """
import sys
from assay.cli import main
try:
    main(["--help"])
except SystemExit:
    pass
print(" ".join(name for name in {heavy!r} if name in sys.modules), file=sys.stderr)
"""


def test_help_loads_no_heavy_package() -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(heavy=HEAVY)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "Usage" in done.stdout
    assert done.stderr.strip() == ""
