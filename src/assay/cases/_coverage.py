"""The coverage matrix: cases by slice × expected behaviour × split, with thin cells named."""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from assay.cases._case import Case

BEHAVIORS: tuple[str, ...] = ("answer", "abstain")
SPLITS: tuple[str, ...] = ("dev", "heldout")

Severity = Literal["error", "warning"]


@dataclass(frozen=True)
class Cell:
    """The cases of one slice, expected behaviour and split; ``synthetic`` of them flagged."""

    slice: str
    behavior: str
    split: str
    cases: int
    synthetic: int

    @property
    def real(self) -> int:
        return self.cases - self.synthetic


@dataclass(frozen=True)
class CoverageProblem:
    """An empty or thin cell, or a required slice that is missing or empty."""

    severity: Severity
    code: str
    message: str


@dataclass(frozen=True)
class Coverage:
    """Every cell of the matrix (empty ones included) and what is wrong with it."""

    slices: tuple[str, ...]
    splits: tuple[str, ...]
    cells: tuple[Cell, ...]
    min_cases: int
    problems: tuple[CoverageProblem, ...]
    dataset: str = ""

    def cell(self, slice_: str, behavior: str, split: str) -> Cell:
        for c in self.cells:
            if (c.slice, c.behavior, c.split) == (slice_, behavior, split):
                return c
        return Cell(slice_, behavior, split, 0, 0)

    @property
    def total(self) -> int:
        return sum(c.cases for c in self.cells)

    @property
    def has_errors(self) -> bool:
        return any(p.severity == "error" for p in self.problems)


def coverage_matrix(
    cases: Sequence[Case], required: Sequence[str] = (), min_cases: int = 3, dataset: str = ""
) -> Coverage:
    """The matrix of ``cases`` (of the dataset named ``dataset``), every cell shown.

    A cell is thin below ``min_cases`` real cases. It is empty (a warning) when its slice
    has cases of that expected behaviour in another split; a slice that never expects that
    behaviour shows 0 without a warning. A slice in ``required`` with no case, or only
    synthetic ones, is an error. Splits shown: dev, and held-out when any case is held out.
    """
    slices = tuple(sorted({c.slice for c in cases} | set(required)))
    splits = SPLITS if any(c.split == "heldout" for c in cases) else ("dev",)
    counts: dict[tuple[str, str, str], list[int]] = {}
    for case in cases:
        entry = counts.setdefault((case.slice, case.expected_behavior, case.split), [0, 0])
        entry[0] += 1
        entry[1] += int(case.synthetic)
    cells = tuple(
        Cell(s, b, sp, *counts.get((s, b, sp), [0, 0]))
        for s in slices
        for b in BEHAVIORS
        for sp in splits
    )
    problems: list[CoverageProblem] = []
    for name in required:
        real = sum(1 for c in cases if c.slice == name and not c.synthetic)
        if not any(c.slice == name for c in cases):
            problems.append(
                CoverageProblem("error", "missing-slice", f"required slice '{name}' has no case")
            )
        elif real == 0:
            problems.append(
                CoverageProblem(
                    "error", "empty-slice", f"required slice '{name}' has only synthetic cases"
                )
            )
    used = {(c.slice, c.expected_behavior) for c in cases}
    for cell in cells:
        where = f"{cell.slice} × {cell.behavior} × {cell.split}"
        if cell.cases == 0:
            if (cell.slice, cell.behavior) in used:
                problems.append(CoverageProblem("warning", "empty-cell", f"{where}: no case"))
        elif cell.real < min_cases:
            synthetic = f" (+{cell.synthetic} synthetic)" if cell.synthetic else ""
            problems.append(
                CoverageProblem(
                    "warning",
                    "thin-cell",
                    f"{where}: {cell.real} real case(s){synthetic}, fewer than {min_cases}",
                )
            )
    return Coverage(slices, splits, cells, min_cases, tuple(problems), dataset)


def cell_count(cell: Cell) -> str:
    """'7 (1 syn)': a cell's cases and how many of them are synthetic."""
    return f"{cell.cases} ({cell.synthetic} syn)" if cell.synthetic else str(cell.cases)


def coverage_columns(cov: Coverage) -> list[tuple[str, str]]:
    """Each column of the matrix: (expected behaviour, split), split by split."""
    return [(b, sp) for sp in cov.splits for b in BEHAVIORS]


def coverage_json(cov: Coverage) -> dict[str, Any]:
    """The matrix as plain JSON data."""
    return {
        "total": cov.total,
        "min_cases": cov.min_cases,
        "slices": list(cov.slices),
        "splits": list(cov.splits),
        "cells": [
            {
                "slice": c.slice,
                "expected_behavior": c.behavior,
                "split": c.split,
                "cases": c.cases,
                "synthetic": c.synthetic,
            }
            for c in cov.cells
        ],
        "problems": [
            {"severity": p.severity, "code": p.code, "message": p.message} for p in cov.problems
        ],
    }


def _shade(cell: Cell, top: int, min_cases: int) -> str:
    if cell.cases == 0:
        return "#f4c7c3"
    if cell.real < min_cases:
        return "#fce8b2"
    level = 0.25 + 0.75 * (cell.cases / top) if top else 0.25
    green = int(255 - 120 * level)
    return f"rgb({int(255 - 200 * level)},{green},{int(255 - 180 * level)})"


def coverage_html(cov: Coverage) -> str:
    """The matrix as a standalone HTML page: a heat map of the counts."""
    title = cov.dataset
    top = max((c.cases for c in cov.cells), default=0)
    e = html.escape
    head = "".join(f"<th>{e(b)}<br>{e(sp)}</th>" for b, sp in coverage_columns(cov))
    body = []
    for s in cov.slices:
        tds = []
        for b, sp in coverage_columns(cov):
            cell = cov.cell(s, b, sp)
            tip = f"{cell.real} real, {cell.synthetic} synthetic"
            tds.append(
                f'<td style="background:{_shade(cell, top, cov.min_cases)}" title="{e(tip)}">'
                f"{e(cell_count(cell))}</td>"
            )
        body.append(f"<tr><th>{e(s)}</th>{''.join(tds)}</tr>")
    problems = "".join(
        f'<li class="{p.severity}">{e(p.severity)}: {e(p.message)}</li>' for p in cov.problems
    )
    return (
        "<!DOCTYPE html>\n<!-- generated by assay coverage -->\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f"<title>assay coverage: {e(title)}</title><style>"
        "body{font-family:system-ui,sans-serif;margin:2em}"
        "table{border-collapse:collapse}td,th{border:1px solid #bbb;padding:.4em .8em}"
        "td{text-align:right;min-width:5em}li.error{color:#a50e0e}"
        "</style></head><body>"
        f"<h1>Coverage: {e(title)}</h1>"
        f"<p>{cov.total} cases. Red: empty cell; amber: fewer than {cov.min_cases} real "
        "cases; green deepens with the count.</p>"
        f"<table><tr><th>slice</th>{head}</tr>{''.join(body)}</table>"
        f"<ul>{problems}</ul></body></html>\n"
    )
