"""A run that stops once its gates are decided: the cases in their seeded random order, the
anytime-valid test of every sequential rule as the cases are drawn, and the report's
section stating the verdict, its guarantee and the cases never drawn.

What a sequential run records (``metadata["sequential"]``), read here::

    {"seed": 7, "alpha": 0.05,
     "rules": [{"rule": "task_success>=0.8", "path": "task_success", "slice": null,
                "per_trial": false, "policy": "mean", "op": ">=", "threshold": 0.8}]}

Each rule's rate is over the run's real cases (those of its slice, for a slice's rule):
a case is the unit, scoring its trials' mean (or its score under the trial policy the run
stated), never a case-trial. The rules share ``alpha`` equally, so the probability that
any verdict is wrong is at most ``alpha``.

A paired rule ("not worse than a baseline run", ``path: paired``) also records
``baseline`` (the run's id) and ``baseline_scores`` (case id -> the baseline's trials'
mean, for the cases paired by id and content). Its unit is a paired case, scoring
(candidate − baseline + 1) / 2; the rate tested is the mean difference, against
``threshold`` (0: not worse). A case both runs pass, or both fail, scores exactly the
midpoint, so the test gains or loses on the discordant cases alone.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from assay.cases import Case
from assay.errors import AssayConfigError
from assay.metrics import (
    SEQUENTIAL_METHOD,
    SequentialTest,
    TrialPolicy,
    confidence_sequence,
    seeded_order,
)
from assay.report._denominators import name_denominators

SEQUENTIAL_KEY = "sequential"
"""The run metadata key of a sequential run's settings."""

PAIRED = "paired"
"""The path of a paired rule: the mean difference, run minus baseline, over paired cases."""

Verdict = Literal["pass", "fail"]
_PASSES_ABOVE = {">=": True, ">": True, "<=": False, "<": False}


class SequentialRule(BaseModel):
    """One sequential rule of a run: its verdict and the confidence sequence behind it."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    rule: str
    path: str
    op: str
    threshold: float
    alpha: float = Field(description="This rule's share of the run's error probability")
    verdict: Verdict | None = Field(
        description="pass or fail once the confidence sequence lies wholly on one side of the "
        "threshold; null while it still holds the threshold"
    )
    decided_at: int | None = Field(
        description="Cases of this rule's rate drawn when its verdict was reached"
    )
    cases: int = Field(description="Cases the rate is over (the full run's denominator)")
    drawn: int = Field(description="Of those, the cases drawn")
    score: float | None = Field(
        description="Passing cases / cases drawn (trials' mean per case); for a paired rule, "
        "the mean difference, run minus baseline"
    )
    low: float | None = Field(description="The confidence sequence's lower bound (to 0.001)")
    high: float | None = Field(description="The confidence sequence's upper bound (to 0.001)")
    baseline: str | None = Field(
        default=None, description="A paired rule's baseline run (null for a rule on a rate)"
    )


class SequentialSection(BaseModel):
    """A run that drew its cases in a seeded random order and stopped starting new ones
    once every sequential rule was decided."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    method: str = SEQUENTIAL_METHOD
    seed: int
    alpha: float = Field(description="The probability that the verdict is wrong, at most")
    cases: int = Field(description="Cases in the run's dataset")
    drawn: int = Field(description="Cases drawn (run), a prefix of the seeded order")
    decided_at: int | None = Field(
        description="Cases drawn when every sequential rule was decided; null when not decided"
    )
    stopped_early: bool = Field(
        description="The run stopped before drawing every case: its figures are over the "
        "cases drawn, and the cases not drawn are not missing"
    )
    verdict: Verdict | None = Field(
        description="fail when any sequential rule failed, pass when all passed, null when "
        "some rule is undecided"
    )
    rules: list[SequentialRule]
    not_drawn: list[str] = Field(
        default_factory=list, description="The cases never drawn, in the seeded order"
    )


def sequential_settings(metadata: Mapping[str, Any]) -> dict[str, Any] | None:
    """A run's sequential settings from its metadata (None for a fixed run)."""
    found = metadata.get(SEQUENTIAL_KEY)
    return found if isinstance(found, dict) else None


def sequence_text(rule: SequentialRule) -> str:
    """A rule's confidence sequence as an interval: '(0.700, 0.888)'. Each bound is the
    nearest grid point rejected, so the sequence lies strictly inside it (a bound at the
    end of the scale is kept: '[0.000, 0.123)')."""
    if rule.low is None or rule.high is None:
        return "n/a"
    lowest, highest = (-1.0, 1.0) if rule.baseline is not None else (0.0, 1.0)
    left = "[" if rule.low <= lowest else "("
    right = "]" if rule.high >= highest else ")"
    return f"{left}{rule.low:.3f}, {rule.high:.3f}{right}"


def is_paired(rule: Mapping[str, Any]) -> bool:
    """True for a rule comparing the run with a baseline run, case by case."""
    return rule.get("path") == PAIRED


def rule_verdict(op: str, side: str | None) -> Verdict | None:
    """The verdict on a rule ``op`` whose rate is known to lie on ``side`` of its threshold."""
    if side is None:
        return None
    return "pass" if (side == "above") == _PASSES_ABOVE[op] else "fail"


class SequentialMonitor:
    """The sequential rules of a run, fed its case-trials in any order and testing the cases
    in the seeded order: a case is tested once every trial of it, and of every case drawn
    before it, is in. ``decided`` once every rule is."""

    def __init__(self, settings: Mapping[str, Any], cases: Sequence[Case], trials: int) -> None:
        self.seed = int(settings["seed"])
        self.alpha = float(settings["alpha"])
        self.rules: list[dict[str, Any]] = list(settings["rules"])
        if not self.rules:
            raise AssayConfigError("a sequential run needs at least one sequential rule")
        self.trials = trials
        self.by_id = {c.id: c for c in cases}
        self.order = seeded_order([c.id for c in cases], self.seed)
        share = self.alpha / len(self.rules)
        self.tests: list[SequentialTest | None] = []
        for rule in self.rules:
            size = sum(1 for c in cases if self._counts(rule, c))
            threshold = float(rule["threshold"])
            if is_paired(rule):  # a difference in [-1, 1], tested on [0, 1]
                threshold = (threshold + 1) / 2
            self.tests.append(SequentialTest(threshold, size, share) if size else None)
        self.policies = [TrialPolicy.parse(str(r.get("policy") or "mean")) for r in self.rules]
        self.passed: dict[str, int] = {}
        self.seen: dict[str, int] = {}
        self.position = 0
        """Cases tested so far: a prefix of ``order``."""
        self.decided_at: int | None = None

    @staticmethod
    def _counts(rule: Mapping[str, Any], case: Case) -> bool:
        if is_paired(rule):
            return not case.synthetic and case.id in rule["baseline_scores"]
        return not case.synthetic and rule.get("slice") in (None, case.slice)

    def _score(
        self, rule: Mapping[str, Any], policy: TrialPolicy, case_id: str, passed: int
    ) -> float:
        if is_paired(rule):
            difference = passed / self.trials - float(rule["baseline_scores"][case_id])
            return min(1.0, max(0.0, (difference + 1) / 2))
        if rule.get("per_trial") or rule.get("slice") is not None:
            return passed / self.trials
        return policy.case_score(self.trials, passed)

    def add(self, case_id: str, passed: bool) -> None:
        """One case-trial of ``case_id`` finished (``passed`` or not)."""
        self.seen[case_id] = self.seen.get(case_id, 0) + 1
        self.passed[case_id] = self.passed.get(case_id, 0) + int(passed)

    def advance(self) -> None:
        """Test every case now complete, in order, up to the first that is not."""
        while self.position < len(self.order):
            case_id = self.order[self.position]
            if self.seen.get(case_id, 0) < self.trials:
                return
            case = self.by_id[case_id]
            for rule, policy, test in zip(self.rules, self.policies, self.tests, strict=True):
                if test is not None and self._counts(rule, case):
                    test.add(self._score(rule, policy, case_id, self.passed[case_id]))
            self.position += 1
            if self.decided_at is None and self.decided:
                self.decided_at = self.position

    @property
    def decided(self) -> bool:
        """True when every rule's confidence sequence lies wholly on one side of its threshold."""
        return all(t is not None and t.side is not None for t in self.tests)

    def drawn(self, recorded: set[str]) -> int:
        """The cases drawn: the seeded order up to the last case with a recorded trial."""
        last = max((i for i, c in enumerate(self.order) if c in recorded), default=-1)
        return last + 1

    def section(self, drawn: int, completed: bool) -> SequentialSection:
        """The report's section once ``drawn`` cases were drawn (``completed``: the run
        ended as it meant to, not interrupted)."""
        rules = []
        for rule, test in zip(self.rules, self.tests, strict=True):
            rules.append(self._rule_section(rule, test))
        verdicts = [r.verdict for r in rules]
        verdict: Verdict | None = None
        if "fail" in verdicts:
            verdict = "fail"
        elif all(v == "pass" for v in verdicts):
            verdict = "pass"
        return SequentialSection(
            seed=self.seed,
            alpha=self.alpha,
            cases=len(self.order),
            drawn=drawn,
            decided_at=self.decided_at,
            stopped_early=completed and drawn < len(self.order),
            verdict=verdict,
            rules=rules,
            not_drawn=self.order[drawn:] if completed else [],
        )

    def _rule_section(self, rule: Mapping[str, Any], test: SequentialTest | None) -> SequentialRule:
        op, threshold = str(rule["op"]), float(rule["threshold"])
        share = self.alpha / len(self.rules)
        low = high = None
        score = test.mean if test is not None else None
        if test is not None and test.drawn:
            low, high = confidence_sequence(test.scores, test.population, test.threshold, share)
        if is_paired(rule) and score is not None and low is not None and high is not None:
            score, low, high = 2 * score - 1, 2 * low - 1, 2 * high - 1
        return SequentialRule(
            rule=str(rule["rule"]),
            path=str(rule["path"]),
            op=op,
            threshold=threshold,
            alpha=share,
            verdict=rule_verdict(op, test.side) if test is not None else None,
            decided_at=test.decided_at if test is not None else None,
            cases=test.population if test is not None else 0,
            drawn=test.drawn if test is not None else 0,
            score=score,
            low=low,
            high=high,
            baseline=str(rule["baseline"]) if is_paired(rule) else None,
        )


def drawn_denominator(section: SequentialSection, slice_: bool = False) -> str:
    """'cases drawn, a seeded random sample of 212 of 1,000': a stopped run's denominator."""
    cases = "cases of the slice drawn" if slice_ else "cases drawn"
    return f"{cases}, a seeded random sample of {section.drawn:,} of {section.cases:,}"


def name_drawn(figures: dict[str, Any], section: SequentialSection) -> dict[str, Any]:
    """The fields of a report whose rates are over the cases drawn (``figures``: its
    ``task_success``, ``answer_coverage``, ``slices`` and ``trial_summary``) with each
    denominator named so, for a run that stopped early."""
    return name_denominators(
        figures, drawn_denominator(section), drawn_denominator(section, slice_=True)
    )
