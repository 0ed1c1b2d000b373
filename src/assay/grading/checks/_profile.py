"""A scoring profile: each check's weight, the critical checks, and the pass threshold."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from decimal import Decimal
from typing import Any, TypeGuard

from pydantic import BaseModel, ConfigDict

from assay.errors import AssayConfigError, Problem, did_you_mean

SUM_TOLERANCE = Decimal("1e-9")
PROFILE_FIELDS = ("name", "description", "weights", "critical", "threshold")


def exact(value: float) -> Decimal:
    """The decimal a person wrote: ``exact(0.05) == Decimal("0.05")``, not the binary float.

    Weights are summed in decimals so that 0.05 + 0.25 + 0.20 + 0.05 + 0.20 + 0.10 is
    exactly 0.85 and meets a threshold of 0.85, whatever the order of the checks.
    """
    return Decimal(repr(float(value)))


class Profile(BaseModel):
    """Weights (summing to 1), critical checks (each weighted) and the threshold.

    Build one with ``make_profile`` so it is validated against the known check names.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    name: str = "default"
    weights: dict[str, float]
    critical: tuple[str, ...]
    threshold: float

    @property
    def checks(self) -> tuple[str, ...]:
        """The checks the profile scores, in the order the weights list them."""
        return tuple(self.weights)


class ProfileError(AssayConfigError):
    """A profile is invalid; ``problems`` lists every problem found."""

    def __init__(self, problems: Sequence[Problem], source: str) -> None:
        self.problems = tuple(problems)
        lines = [f"{source}: invalid scoring profile:", *(f"  {p}" for p in self.problems)]
        super().__init__("\n".join(lines))


def _number(value: Any) -> TypeGuard[float]:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _weight_problems(weights: Any, known: Collection[str]) -> list[str]:
    if not isinstance(weights, Mapping) or not weights:
        return ["weights must be a non-empty mapping of check name to weight"]
    problems = []
    for name, weight in weights.items():
        if str(name) not in known:
            problems.append(f'unknown check "{name}"{did_you_mean(str(name), list(known))}')
        if not _number(weight) or not 0 <= weight <= 1:
            problems.append(f"weights.{name} must be a number from 0 to 1 (got {weight!r})")
    if not problems:
        total = sum((exact(w) for w in weights.values()), Decimal(0))
        if abs(total - 1) > SUM_TOLERANCE:
            problems.append(f"weights sum to {total}, not 1 (allowed error 1e-9)")
    return problems


def make_profile(
    data: Mapping[str, Any], known: Collection[str], source: str = "profile"
) -> Profile:
    """A validated profile from plain data (as read from YAML); ``ProfileError`` listing
    every problem: unknown fields or checks (with "did you mean"), weights not summing to 1
    within 1e-9 (the sum is printed), a critical check without a weight, a bad threshold.
    """
    messages: list[str] = []
    for key in data:
        if key not in PROFILE_FIELDS:
            messages.append(f'unknown field "{key}"{did_you_mean(str(key), PROFILE_FIELDS)}')
    weights = data.get("weights")
    messages += _weight_problems(weights, known)
    critical = data.get("critical", [])
    if not isinstance(critical, list) or not all(isinstance(c, str) for c in critical):
        messages.append("critical must be a list of check names")
        critical = []
    for name in critical:
        if isinstance(weights, Mapping) and name not in weights:
            hint = did_you_mean(name, [str(w) for w in weights])
            messages.append(f'critical check "{name}" has no weight{hint}; give it one')
    threshold = data.get("threshold")
    if not _number(threshold) or not 0 < threshold <= 1:
        messages.append(f"threshold must be a number above 0 and at most 1 (got {threshold!r})")
    if messages:
        raise ProfileError([Problem(m) for m in messages], source)
    assert isinstance(weights, Mapping) and threshold is not None
    return Profile(
        name=str(data.get("name") or "custom"),
        weights={str(k): float(v) for k, v in weights.items()},
        critical=tuple(dict.fromkeys(critical)),
        threshold=float(threshold),
    )


DEFAULT_WEIGHTS: dict[str, float] = {
    "answer_not_empty": 0.05,
    "content_present": 0.25,
    "content_absent": 0.20,
    "citation_valid": 0.05,
    "citation_supports": 0.15,
    "abstention_correct": 0.20,
    "format_valid": 0.10,
}
# Made without validation (its values are written above): validating would build the
# model's validator at import, a cost every run and stored report would pay.
DEFAULT_PROFILE = Profile.model_construct(
    name="default",
    weights=DEFAULT_WEIGHTS,
    critical=("content_present", "content_absent"),
    threshold=0.85,
)

AGENT_WEIGHTS: dict[str, float] = {
    "state_matches": 0.35,
    "claims_match_tools": 0.25,
    "path_matches": 0.25,
    "answer_not_empty": 0.15,
}
AGENT_PROFILE = Profile.model_construct(
    name="agent",
    weights=AGENT_WEIGHTS,
    critical=("state_matches", "claims_match_tools"),
    threshold=0.85,
)
"""The built-in profile for agents: the final state and the claims about the tools'
results veto a pass; a path that breaks an expectation fails on its own (0.75 < 0.85); an
empty final answer alone does not."""

PROFILES: dict[str, Profile] = {"default": DEFAULT_PROFILE, "agent": AGENT_PROFILE}
"""The built-in profiles by name: what a profile setting that names no file means."""
