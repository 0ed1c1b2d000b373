"""Options shared by every report-producing command, defined once so they read alike.

Only typer is imported here: command modules import this at load time, and `assay --help`
must stay fast.
"""

from __future__ import annotations

import typer

CONFIDENCE = typer.Option(0.95, help="Confidence level of every interval.")
INTERVAL = typer.Option("clopper-pearson", help="clopper-pearson (exact) or wilson.")
