"""Two kinds of disagreement in a run whose judge was asked several times about each
recorded answer: the judge's own (one answer, different verdicts across the repeats) and
the system's (one case, different answers whose verdicts differ across the trials).
Defined in docs/statistics.md ("Judge noise and system noise")."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from pydantic import BaseModel, ConfigDict, Field

from assay.cases import Case
from assay.grading import Judgment, repeat_verdict

VERDICTS = ("passed", "failed")


class JudgeFlip(BaseModel):
    """A case-trial whose recorded answer got both verdicts across the judge's repeats."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    id: str
    trial: int
    passed: int = Field(description="Repeats that passed the answer")
    failed: int = Field(description="Repeats that failed it")
    repeats: int = Field(description="Times the judge was asked")


class JudgeNoise(BaseModel):
    """The judge's instability apart from the system's, over the real cases.

    ``judge_share``: of the case-trials whose answer got at least two verdicts (passed or
    failed) across the repeats, the fraction that got both. ``system_share``: of the cases
    with at least two trials that have a majority verdict (the verdict more than half of
    the trial's repeats gave; a trial the judge was asked about once counts with its
    verdict), the fraction whose trials' majority verdicts differ.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    repeats: int = Field(description="The most times the judge was asked about one answer")
    verdict: str = Field(
        description="How a case-trial's counted verdict is taken from its repeats: first "
        "(the first repeat's) or majority"
    )
    judged: int = Field(
        description="Real case-trials whose answer got at least two verdicts (passed or "
        "failed) across the repeats"
    )
    unstable: int = Field(description="Of those, the case-trials that got both verdicts")
    judge_share: float | None = Field(description="unstable / judged; null when judged is 0")
    ungraded_repeats: int = Field(
        description="Repeats that gave no verdict (a failed call, a reply refused)"
    )
    trials: int
    cases: int = Field(
        description="Real cases with at least two trials that have a majority verdict"
    )
    differing: int = Field(description="Of those, the cases whose trials' verdicts differ")
    system_share: float | None = Field(description="differing / cases; null when cases is 0")
    flips: list[JudgeFlip] = Field(
        default_factory=list,
        description="The judge-unstable case-trials (verdict flips under re-judging), in "
        "dataset order",
    )

    @property
    def unstable_cases(self) -> list[str]:
        """The ids of the cases with a judge-unstable trial, in dataset order."""
        return list(dict.fromkeys(f.id for f in self.flips))


def judge_unstable(repeats: Sequence[Judgment]) -> bool:
    """True when one answer got both verdicts (passed and failed) across the judge's
    repeats: a judge-unstable case-trial."""
    tally = Counter(j.status for j in repeats)
    return bool(tally["passed"] and tally["failed"])


def judge_noise(
    cases: Sequence[Case],
    trials: int,
    verdicts: Mapping[tuple[str, int], Judgment],
    repeats: Mapping[tuple[str, int], Sequence[Judgment]],
    verdict: str,
) -> JudgeNoise:
    """The judge's and the system's disagreement over the real ``cases`` run ``trials``
    times: ``repeats`` holds every kept repeat of a case-trial the judge was asked about
    several times, ``verdicts`` each case-trial's counted judgment."""
    judged = unstable = ungraded = differing = counted = 0
    most = 1
    flips: list[JudgeFlip] = []
    for case in cases:
        if case.synthetic:
            continue
        majorities: list[str] = []
        for trial in range(1, trials + 1):
            each = repeats.get((case.id, trial), ())
            if not each:
                found = verdicts.get((case.id, trial))
                if found is not None and found.status in VERDICTS:
                    majorities.append(found.status)
                continue
            most = max(most, len(each))
            tally = Counter(j.status for j in each)
            ungraded += len(each) - tally["passed"] - tally["failed"]
            if tally["passed"] + tally["failed"] >= 2:
                judged += 1
                if judge_unstable(each):
                    unstable += 1
                    flips.append(
                        JudgeFlip(
                            id=case.id,
                            trial=trial,
                            passed=tally["passed"],
                            failed=tally["failed"],
                            repeats=len(each),
                        )
                    )
            majority = repeat_verdict(each, "majority").status
            if majority in VERDICTS:
                majorities.append(majority)
        if len(majorities) >= 2:
            counted += 1
            differing += len(set(majorities)) > 1
    return JudgeNoise(
        repeats=most,
        verdict=verdict,
        judged=judged,
        unstable=unstable,
        judge_share=unstable / judged if judged else None,
        ungraded_repeats=ungraded,
        trials=trials,
        cases=counted,
        differing=differing,
        system_share=differing / counted if counted else None,
        flips=flips,
    )
