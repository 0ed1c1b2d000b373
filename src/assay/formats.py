"""The formats each thing assay renders can be written in, said once: ``render`` checks
a format against this list, and every command's ``--format`` help and choices come from it.

Kept free of imports so that a command's help is built without loading the renderers.
"""

from __future__ import annotations

TEXT_JSON = ("text", "json")
DOCUMENT = ("text", "json", "markdown", "html")

FORMATS: dict[str, tuple[str, ...]] = {
    "report": (*DOCUMENT, "junit"),
    "comparison": DOCUMENT,
    "composite": DOCUMENT,
    "matrix": DOCUMENT,
    "calibration": DOCUMENT,
    "trend": DOCUMENT,
    "coverage": DOCUMENT,
    "plan": ("text", "json", "markdown"),
    "gate": ("text", "markdown", "junit"),
    "diagnosis": TEXT_JSON,
    "trace": TEXT_JSON,
    "runs": TEXT_JSON,
    "validation": TEXT_JSON,
    "duplicates": TEXT_JSON,
    "dataset-diff": TEXT_JSON,
    "cache-stats": TEXT_JSON,
    "export": ("jsonl", "csv", "parquet", "inspect"),
}
"""Each rendered thing's formats, the first the default when printing."""

NOTES: dict[tuple[str, str], str] = {
    ("export", "parquet"): "needs pyarrow",
    ("export", "inspect"): ".eval",
}
"""What a user must know about one format of one thing."""


REPORT_ROWS: dict[str, str] = {
    "text": "listed",
    "markdown": "listed",
    "json": "written",
    "html": "every",
    "junit": "every",
}
"""Which case rows each report format's writer reads, so that a report is made with those
alone: ``listed`` the rows it lists (the cases not passed; the others are counted),
``every`` every row, ``written`` every row, taking rows that another process wrote as
text as they were written. A new report format is a writer module, its name in
``FORMATS["report"]`` and its entry here."""


def report_rows(fmt: str) -> str:
    """``REPORT_ROWS`` of report format ``fmt`` (every row, for a format not listed)."""
    return REPORT_ROWS.get(fmt, "every")


def formats(kind: str) -> tuple[str, ...]:
    """The formats ``kind`` (a key of ``FORMATS``) is written in."""
    return FORMATS[kind]


def format_list(kind: str, *, notes: dict[str, str] | None = None) -> str:
    """'text, json, markdown or html': ``kind``'s formats in a sentence, each with its
    note ('parquet (needs pyarrow)'); ``notes`` adds a command's own (html: 'with traces')."""
    said = [
        f"{fmt} ({note})" if (note := {**_notes(kind), **(notes or {})}.get(fmt)) else fmt
        for fmt in FORMATS[kind]
    ]
    return said[0] if len(said) == 1 else ", ".join(said[:-1]) + " or " + said[-1]


def _notes(kind: str) -> dict[str, str]:
    return {fmt: note for (k, fmt), note in NOTES.items() if k == kind}


__all__ = ["FORMATS", "NOTES", "REPORT_ROWS", "format_list", "formats", "report_rows"]
