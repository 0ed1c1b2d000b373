"""A matrix as one self-contained HTML page: the variants side by side, per-slice rates, the
pairwise table and a case × variant grid that filters to the cases where variants disagree."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from markupsafe import Markup

import assay.render._format as f
from assay.render.comparison import rate_text
from assay.render.html import allowed_script, environment
from assay.render.matrix import (
    PAIR_HEAD,
    cache_text,
    notes,
    overrides_text,
    pair_cells,
    statuses_text,
    usage_text,
)

if TYPE_CHECKING:
    from assay.compare import MatrixReport


@functools.cache
def matrix_script() -> tuple[Markup, str]:
    """The page's filter script and its CSP hash: only this exact script may run."""
    env = environment()
    assert env.loader is not None
    source, _, _ = env.loader.get_source(env, "matrix.js")
    return allowed_script(source)


def render_matrix_html(m: MatrixReport) -> str:
    """``m`` as a self-contained HTML page (``assay matrix --format html``)."""
    variants: list[dict[str, Any]] = [
        {
            "name": v.name,
            "run_id": v.run_id,
            "status": v.status,
            "success": v.task_success,
            "success_value": f.value(v.task_success),
            "success_fraction": f.fraction(v.task_success),
            "success_ci": f.ci(v.task_success),
            "overrides": overrides_text(v),
            "task_success": rate_text(v.task_success),
            "answer_coverage": rate_text(v.answer_coverage),
            "answered_accuracy": rate_text(v.answered_accuracy),
            "statuses": statuses_text(v),
            "usage": usage_text(v),
            "cache": cache_text(v),
        }
        for v in m.variants
    ]
    names = list(dict.fromkeys(s for v in m.variants for s in v.slices))
    slices = [
        (s, [rate_text(v.slices[s]) if s in v.slices else "—" for v in m.variants]) for s in names
    ]
    grid = [
        {
            "id": g.id,
            "label": g.id if m.trials == 1 else f"{g.id} #{g.trial}",
            "slice": g.slice,
            "disagree": g.disagree,
            "cells": [g.statuses.get(v.name, "missing") for v in m.variants],
        }
        for g in m.grid
    ]
    first = m.variants[0]
    script, script_hash = matrix_script()
    return (
        environment()
        .get_template("matrix.html.j2")
        .render(
            m=m,
            title=f"assay matrix · {m.matrix_id}",
            unit="case-trials" if m.trials > 1 else "cases",
            variants=variants,
            slices=slices,
            pair_head=PAIR_HEAD,
            pairs=[pair_cells(p) for p in m.pairs],
            grid=grid,
            disagree=sum(1 for g in m.grid if g.disagree),
            denominators=(
                f"task success: {first.task_success.denominator_name}; answer coverage: "
                f"{first.answer_coverage.denominator_name}; answered accuracy: "
                f"{first.answered_accuracy.denominator_name}"
            ),
            notes=notes(m),
            script=script,
            script_hash=script_hash,
        )
    )
