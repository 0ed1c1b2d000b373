"""Options shared by every report-producing command, defined once so they read alike.

Only typer is imported here: command modules import this at load time, and `assay --help`
must stay fast.
"""

from __future__ import annotations

from typing import Any

import typer

CONFIDENCE = typer.Option(0.95, help="Confidence level of every interval.")
INTERVAL = typer.Option("clopper-pearson", help="clopper-pearson (exact) or wilson.")
TRIAL_POLICY = typer.Option(
    None,
    "--trial-policy",
    help="How several trials of a case combine: mean, majority, pass^k (all k pass) or "
    "pass@k (at least one of k; needs --product-selects-best). Stated, it is the headline "
    "task success (and what a bare task_success gate rule reads).",
)
PRODUCT_SELECTS_BEST = typer.Option(
    False,
    "--product-selects-best",
    help="Declare that the product itself picks the best of several outputs: the only "
    "case in which pass@k (k > 1) measures it.",
)

STORE_HELP = "Store URL (default $ASSAY_STORE or sqlite:///.assay/assay.db)."
STORE = typer.Option(None, "--store", help=STORE_HELP)
OUTPUT = typer.Option(None, "--output", "-o", help="Write to this file.")


def store_option(argument: str) -> Any:
    """The ``--store`` option of a command whose ``argument`` may be a stored run's id."""
    return typer.Option(
        None,
        "--store",
        help=f"Store URL, when {argument} is a run id (default $ASSAY_STORE or "
        "sqlite:///.assay/assay.db).",
    )


def report_output(kept: str | None = None) -> Any:
    """The ``--output``/``-o`` option of a command that writes a report: an existing file
    is replaced only if it is an assay report; ``kept`` names what is never overwritten."""
    never = f"; {kept} are never overwritten." if kept else "."
    return typer.Option(
        None,
        "--output",
        "-o",
        help="Write the report to this file. An existing file is replaced only if it is "
        f"an assay report{never}",
    )


# How a --format option documents its default (see _options.output_format).
FORMAT_FROM_OUTPUT = "(default: from --output's extension, else text)"


def format_option(
    kind: str, *, from_output: bool = True, notes: dict[str, str] | None = None
) -> Any:
    """The ``--format``/``-f`` option of a command that renders ``kind`` (a key of
    ``assay.formats.FORMATS``): its help lists that thing's formats. With ``from_output``
    the default is what ``--output``'s extension names, else the first format."""
    from assay.formats import format_list, formats

    said = format_list(kind, notes=notes)
    if from_output:
        return typer.Option(None, "--format", "-f", help=f"{said} {FORMAT_FROM_OUTPUT}.")
    return typer.Option(formats(kind)[0], "--format", "-f", help=f"{said}.")
