"""A composite report as one self-contained HTML page: both verdicts' pass rates, the
status bar, per-check failures, and every case with every check's result in its drawer."""

from __future__ import annotations

from typing import Any

import assay.render._composite_format as cf
import assay.render._format as f
from assay.grading import STATUSES
from assay.render.html import (
    environment,
    page_script,
    rate_view,
    script_json,
    status_view,
)
from assay.report import CompositeCaseRow, CompositeReport


def _row(report: CompositeReport, row: CompositeCaseRow) -> dict[str, Any]:
    """A case row as the page's script reads it, with every check as a result."""
    weights, critical = report.profile.weights, set(report.profile.critical)
    return {
        "id": row.id,
        "slice": row.slice,
        "trial": row.trial,
        "synthetic": row.synthetic,
        "status": row.status,
        "reason": row.reason,
        "question": row.question,
        **({"text": row.answer} if row.answer is not None else {}),
        "grader": f"composite · profile {report.profile.name}",
        "expected_label": f"score ≥ {report.profile.threshold:g}, no critical failure",
        "outcome_label": (
            f"score {cf.score(row.score)} · {row.verdict} / strict {row.strict_verdict}"
        ),
        "checks": [
            {
                "name": name,
                "passed": result.passed,
                "reason": result.reason,
                "weight": weights.get(name),
                "critical": name in critical,
            }
            for name, result in row.checks.items()
        ],
        "score": row.score,
        "verdict": row.verdict,
        "strict verdict": row.strict_verdict,
        "critical failures": ", ".join(row.critical_failures) or "none",
        **({"provenance": cf.provenance(row)} if row.provenance else {}),
    }


def _checks(report: CompositeReport) -> list[dict[str, Any]]:
    total = report.total
    return [
        {
            "name": name,
            "weight": f"{c.weight:g}",
            "critical": c.critical,
            "failed": c.failed,
            "not_evaluated": c.not_evaluated,
            "share": c.failed / total * 100 if total else 0.0,
            "unknown_share": c.not_evaluated / total * 100 if total else 0.0,
        }
        for name, c in report.check_failures.items()
    ]


def render_composite_html(report: CompositeReport) -> str:
    """``report`` (``assay composite``) as a self-contained HTML page."""
    script, script_hash = page_script()
    synthetic = report.synthetic
    data = {
        "trials": report.trials,
        "statuses": list(STATUSES),
        "cases": [_row(report, row) for row in report.cases],
        "spans": {},
    }
    return (
        environment()
        .get_template("composite.html.j2")
        .render(
            report=report,
            title=f"assay composite · {report.dataset.name}",
            headline=[
                rate_view(label, key, r)
                for (label, r), key in zip(
                    cf.headline(report), ("composite_pass", "strict_pass"), strict=True
                )
            ],
            segments=status_view(report.statuses, report.total),
            status_sum=f.status_sum(report.statuses, report.total, cf.unit(report)),
            adds_up=report.statuses.total == report.total,
            unit=cf.unit(report),
            checks=_checks(report),
            divergence=cf.divergence(report),
            synthetic=synthetic,
            synthetic_rates=[
                rate_view("Composite pass", "synthetic_composite", synthetic.composite_pass),
                rate_view("Strict pass", "synthetic_strict", synthetic.strict_pass),
            ]
            if synthetic
            else [],
            profile_line=cf.profile_line(report),
            weights_line=cf.weights_line(report),
            data=script_json(data),
            script=script,
            script_hash=script_hash,
        )
    )
