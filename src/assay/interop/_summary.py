"""The side-by-side line: what the other tool reported beside what assay counts."""

from __future__ import annotations

import assay.render as f
from assay.interop._imported import Source
from assay.report import Report


def side_by_side(source: Source, report: Report) -> str:
    """``inspect reported … ; assay: task success 80/100 … , 10 errors, …``."""
    rate = report.task_success
    counts = report.statuses
    return (
        f"{source.reported}; assay: task success {f.fraction(rate)} ({f.value(rate)}) "
        f"{rate.confidence:.0%} CI {f.ci(rate)}, {counts.error} errors, {counts.missing} missing, "
        f"{counts.ungraded} ungraded"
    )
