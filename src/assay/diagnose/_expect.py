"""A case's agent expectations as diagnose reads them: what the trajectory missed,
grouped by what a person would fix. The reading itself is the checks' own
(``path_misses``, ``state_differences``), so a diagnosis never disagrees with the check
that failed the case-trial."""

from __future__ import annotations

from assay.cases import Case, MaxSteps
from assay.grading.checks import PathMiss, path_misses, state_differences, wanted_state
from assay.outcomes import Trajectory

FORBIDDING = ("tool_not_called", "max_calls", "no_call_after_refusal")
"""Kinds a call can break by being made."""
EXPECTING = ("tool_called", "calls_in_order")
"""Kinds a call can break by not being made (or not as expected)."""


def forbidden_calls(case: Case, trajectory: Trajectory) -> list[PathMiss]:
    """Calls the case forbids, calls past a ``max_calls`` limit, and calls after a
    refusal where ``no_call_after_refusal`` holds, by step."""
    found = [m for m in path_misses(case.expect, trajectory) if m.kind in FORBIDDING]
    return sorted(found, key=lambda m: m.step or 0)


def missing_calls(case: Case, trajectory: Trajectory) -> list[PathMiss]:
    """Calls the case expects that were not made (or never as expected): a
    ``tool_called``, a ``calls_in_order``."""
    return [m for m in path_misses(case.expect, trajectory) if m.kind in EXPECTING]


def too_many_turns(case: Case, trajectory: Trajectory) -> tuple[int, PathMiss] | None:
    """The case's tightest ``max_steps`` (model turns) and the check's miss for it, when
    the trajectory took more turns than that."""
    limits = [e for e in case.expect if isinstance(e, MaxSteps)]
    if not limits:
        return None
    tightest = min(limits, key=lambda e: e.max_steps)
    missed = path_misses([tightest], trajectory)
    return (tightest.max_steps, missed[0]) if missed else None


def state_contradictions(case: Case, trajectory: Trajectory) -> list[str]:
    """Where the state after differs from the case's ``state_equals``; empty when it
    agrees, when the case expects nothing of it, or when the agent kept no state."""
    wanted = wanted_state(case.expect)
    if not wanted or trajectory.state_after is None:
        return []
    return state_differences(wanted, trajectory.state_after)
