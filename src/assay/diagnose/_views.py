"""What ``assay diagnose`` and ``assay trace`` show, as values a renderer draws: every
not-passed case-trial of a run, and one case-trial's span tree with its transcript."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from assay._display import Displayed
from assay.diagnose._finding import Finding
from assay.diagnose._tree import TreeRow
from assay.outcomes import Trajectory


@dataclass(frozen=True)
class Diagnosis(Displayed):
    """The findings of every case-trial of run ``run_id`` (``diagnose --all``)."""

    run_id: str
    findings: tuple[Finding, ...]


@dataclass(frozen=True)
class TraceView:
    """One stored case-trial's spans as a tree (``rows``), with the transcript, the
    traceback and the agent's trajectory its record kept (None when it kept none).

    ``span_count`` is how many spans were recorded; ``every_attribute`` shows each span's
    every attribute instead of the ones worth reading."""

    run_id: str
    case_id: str
    trial: int
    rows: tuple[TreeRow, ...]
    span_count: int
    transcript: dict[str, Any] | None = None
    traceback: str | None = None
    every_attribute: bool = False
    trajectory: Trajectory | None = None

    @classmethod
    def of(
        cls,
        run_id: str,
        case_id: str,
        trial: int,
        rows: tuple[TreeRow, ...],
        span_count: int,
        extra: dict[str, Any],
        every_attribute: bool = False,
        trajectory: Trajectory | None = None,
    ) -> TraceView:
        """The view of a case-trial whose record's ``extra`` holds what it kept
        (``trajectory``: the one it carries, read with ``trajectory_of``)."""
        transcript = extra.get("transcript")
        traceback = extra.get("traceback")
        return cls(
            run_id,
            case_id,
            trial,
            rows,
            span_count,
            transcript if isinstance(transcript, dict) else None,
            traceback if isinstance(traceback, str) and traceback else None,
            every_attribute,
            trajectory,
        )


__all__ = ["Diagnosis", "TraceView"]
