"""How another tool's score value becomes an assay status: a fixed, documented rule.

inspect_ai scorers give ``C`` (correct), ``I`` (incorrect), ``P`` (partial), ``N`` (no
answer), booleans or numbers. ``C`` and ``True`` pass; ``I``, ``N`` and ``False`` fail;
``P`` fails unless the rule says partial credit passes; a number passes when it reaches
the scorer's threshold (1.0 unless configured). Anything else is ``ungraded``: never
guessed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

MappedStatus = Literal["passed", "failed", "ungraded"]

LETTERS: dict[str, MappedStatus] = {"C": "passed", "I": "failed", "N": "failed"}


@dataclass(frozen=True)
class ScoreRule:
    """Per-scorer thresholds for numeric values and whether partial credit passes."""

    thresholds: dict[str, float] = field(default_factory=dict)
    partial_passes: bool = False
    default_threshold: float = 1.0

    def threshold(self, scorer: str) -> float:
        """The value a numeric score of ``scorer`` must reach to pass."""
        return self.thresholds.get(scorer, self.default_threshold)


def map_score(scorer: str, value: Any, rule: ScoreRule) -> tuple[MappedStatus, str]:
    """The status of ``value`` given by ``scorer`` under ``rule``, with the reason."""
    if isinstance(value, bool):
        return ("passed" if value else "failed"), f"{scorer} gave {value}"
    if isinstance(value, str):
        if value in LETTERS:
            return LETTERS[value], f"{scorer} gave {value!r}"
        if value == "P":
            status: MappedStatus = "passed" if rule.partial_passes else "failed"
            return status, f"{scorer} gave 'P' (partial credit {status})"
        return "ungraded", f"{scorer} gave {value!r}, which has no mapping to pass or fail"
    if isinstance(value, int | float):
        limit = rule.threshold(scorer)
        if value != value:  # NaN
            return "ungraded", f"{scorer} gave NaN"
        verdict: MappedStatus = "passed" if value >= limit else "failed"
        return verdict, f"{scorer} gave {value:g} ({'≥' if value >= limit else '<'} {limit:g})"
    return "ungraded", f"{scorer} gave {value!r}, which has no mapping to pass or fail"


def parse_threshold(text: str) -> tuple[str, float]:
    """``SCORER=NUMBER`` as given on the command line; ValueError when malformed."""
    name, sep, number = text.partition("=")
    if not sep or not name.strip():
        raise ValueError(f"--threshold {text!r}: expected SCORER=NUMBER, e.g. model_graded=0.5")
    try:
        return name.strip(), float(number)
    except ValueError:
        raise ValueError(f"--threshold {text!r}: {number!r} is not a number") from None
