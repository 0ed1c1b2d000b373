"""What ``assay gate`` shows: every rule's result, and the report the rules read."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from assay.gates._rules import GateResult, gates_passed
from assay.report import Report


@dataclass(frozen=True)
class GateOutcome:
    """The results of gating ``report`` (None for a composite report, whose gate is shown
    only as text): the terminal summary, the Markdown summary and JUnit draw it."""

    results: tuple[GateResult, ...]
    report: Report | None = None

    @classmethod
    def of(cls, results: Sequence[GateResult], report: Report | None = None) -> GateOutcome:
        return cls(tuple(results), report)

    @property
    def passed(self) -> bool:
        """Whether every rule holds."""
        return gates_passed(self.results)


__all__ = ["GateOutcome"]
