"""Recorded check results: lines ``{"id", "checks": {"content_present": true, ...}}`` read
beside (or instead of) free-text outcomes, and checked against a dataset before scoring."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from assay._validation import parse_located
from assay.errors import (
    DuplicateResultError,
    Location,
    Problem,
    UnknownResultIdError,
    did_you_mean,
)
from assay.grading.checks._types import CheckResult
from assay.outcomes import Error, Record, Results, check_trial_numbers, parse_result_line

CHECKS_LINE_FIELDS = ("id", "trial", "checks")


class RecordedChecks(BaseModel):
    """The check results recorded for one case and trial, by check name."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    case_id: str = Field(min_length=1)
    trial: int = Field(default=1, ge=1)
    checks: dict[str, CheckResult]
    asserted_only: bool = False
    """True when ``checks`` are the only checks the case was ever given (another tool's
    per-test assertions): a profile check absent here does not apply to this case, and the
    weights of the profile checks that do apply are rescaled to sum to 1."""

    @property
    def key(self) -> tuple[str, int]:
        return (self.case_id, self.trial)


@dataclass(frozen=True)
class CompositeInputs:
    """What a composite results file holds: outcome records and recorded check results."""

    records: Results
    recorded: tuple[RecordedChecks, ...] = ()
    recorded_locations: tuple[Location | None, ...] = ()

    @property
    def lines(self) -> tuple[tuple[Record | RecordedChecks, ...], tuple[Location | None, ...]]:
        """Every outcome line, then every checks line, and where each was read (the
        locations empty when none is known)."""
        lines: tuple[Record | RecordedChecks, ...] = (*self.records.records, *self.recorded)
        if not self.records.locations and not self.recorded_locations:
            return lines, ()
        outcomes = self.records.locations or (None,) * len(self.records.records)
        checks = self.recorded_locations or (None,) * len(self.recorded)
        return lines, (*outcomes, *checks)

    @property
    def trials(self) -> int:
        """The highest trial index seen, at least 1."""
        keys = [r.trial for r in self.records.records] + [r.trial for r in self.recorded]
        return max(keys, default=1)


def _default_reason(passed: bool | None) -> str:
    if passed is None:
        return "cannot evaluate: recorded as not evaluated"
    return f"recorded as {'passed' if passed else 'failed'} (no reason recorded)"


def check_line_value(result: CheckResult) -> Any:
    """How ``result`` is written in a checks line: a bare true/false/null when its reason is
    the default one, else ``{"passed": ..., "reason": ...}`` (the inverse of parsing)."""
    if result.reason == _default_reason(result.passed):
        return result.passed
    return result.model_dump(mode="json")


def _check_value(name: str, value: Any) -> CheckResult | str:
    if value is None or isinstance(value, bool):
        return CheckResult(passed=value, reason=_default_reason(value))
    if isinstance(value, dict) and set(value) <= {"passed", "reason"} and "passed" in value:
        passed = value["passed"]
        if passed is None or isinstance(passed, bool):
            reason = value.get("reason")
            return CheckResult(
                passed=passed, reason=str(reason) if reason else _default_reason(passed)
            )
    return f'checks.{name} must be true, false, null or {{"passed": ..., "reason": ...}}'


def parse_checks_line(
    raw: dict[str, Any], location: Location, known: Collection[str]
) -> RecordedChecks | list[Problem]:
    """Recorded check results from one line, or the problems that stop it being one."""
    problems: list[Problem] = []
    for key in raw:
        if key not in CHECKS_LINE_FIELDS:
            hint = did_you_mean(str(key), CHECKS_LINE_FIELDS)
            problems.append(Problem(f'unknown field "{key}"{hint} in a checks line', location, key))
    case_id, trial, checks = raw.get("id"), raw.get("trial", 1), raw.get("checks")
    if not isinstance(case_id, str) or not case_id:
        problems.append(Problem("id is required (the case id these checks belong to)", location))
    if not isinstance(trial, int) or isinstance(trial, bool) or trial < 1:
        problems.append(Problem(f"trial must be a whole number from 1 (got {trial!r})", location))
    if not isinstance(checks, dict) or not checks:
        problems.append(Problem("checks must be a non-empty object of name: result", location))
        return problems
    parsed: dict[str, CheckResult] = {}
    for name, value in checks.items():
        if name not in known:
            hint = did_you_mean(str(name), list(known))
            problems.append(Problem(f'unknown check "{name}"{hint}', location, f"checks.{name}"))
            continue
        result = _check_value(name, value)
        if isinstance(result, str):
            problems.append(Problem(result, location, f"checks.{name}"))
        else:
            parsed[name] = result
    if problems:
        return problems
    assert isinstance(case_id, str) and isinstance(trial, int)
    return RecordedChecks(case_id=case_id, trial=trial, checks=parsed)


def parse_composite_results(
    lines: Sequence[tuple[Location, Any]], source: str, known: Collection[str]
) -> CompositeInputs:
    """Outcome lines and checks lines (those with a ``checks`` field) from one file; every
    problem in every line is reported at once. ``known`` are the check names accepted."""

    def parse(raw: Any, location: Location) -> Record | RecordedChecks | list[Problem]:
        if isinstance(raw, dict) and "checks" in raw:
            return parse_checks_line(raw, location, known)
        return parse_result_line(raw, location)

    items: list[Record | RecordedChecks]
    items, at = parse_located(lines, parse, f"{source}: invalid results")
    records: list[Record] = []
    locations: list[Location | None] = []
    recorded: list[RecordedChecks] = []
    recorded_at: list[Location | None] = []
    for item, location in zip(items, at, strict=True):
        if isinstance(item, Record):
            records.append(item)
            locations.append(location)
        else:
            recorded.append(item)
            recorded_at.append(location)
    return CompositeInputs(
        Results(tuple(records), tuple(locations), source), tuple(recorded), tuple(recorded_at)
    )


def check_composite_inputs(inputs: CompositeInputs, case_ids: Collection[str]) -> None:
    """Reject lines for unknown cases, two lines for one (case, trial) and trial numbers
    far beyond what the lines hold (``check_trial_numbers``), naming every id."""
    seen: dict[tuple[str, int], list[Location | None]] = {}
    for i, rec in enumerate(inputs.records.records):
        seen.setdefault(rec.key, []).append(inputs.records.location_of(i))
    for i, checks in enumerate(inputs.recorded):
        where = inputs.recorded_locations[i] if inputs.recorded_locations else None
        seen.setdefault(checks.key, []).append(where)
    unknown = {k[0]: v for k, v in seen.items() if k[0] not in case_ids}
    if unknown:
        raise UnknownResultIdError(unknown)
    repeated = {
        (cid if trial == 1 else f"{cid} (trial {trial})"): places
        for (cid, trial), places in seen.items()
        if len(places) > 1
    }
    if repeated:
        raise DuplicateResultError(repeated)
    check_trial_numbers(*inputs.lines)


def imported_checks(records: Sequence[Record]) -> tuple[RecordedChecks, ...]:
    """The assertion results an imported run kept on its answers (``extra.checks``: a list
    of ``{"name", "passed", "reason", "graded"}``) as recorded checks, one per case-trial.

    An assertion whose grader could not judge (``graded`` false) or whose ``passed`` is not
    a boolean cannot be evaluated. Error outcomes and records without checks give none.
    """
    found: list[RecordedChecks] = []
    for record in records:
        listed = record.extra.get("checks") if isinstance(record.extra, dict) else None
        if isinstance(record.outcome, Error) or not isinstance(listed, list) or not listed:
            continue
        checks: dict[str, CheckResult] = {}
        for item in listed:
            if not isinstance(item, dict) or not item.get("name"):
                continue
            passed = item.get("passed")
            reason = str(item.get("reason") or "")
            if item.get("graded") is False or not isinstance(passed, bool):
                checks[str(item["name"])] = CheckResult(
                    passed=None, reason=f"cannot evaluate: the grader did not judge ({reason})"
                )
            else:
                checks[str(item["name"])] = CheckResult(
                    passed=passed, reason=reason or _default_reason(passed)
                )
        if checks:
            found.append(
                RecordedChecks(
                    case_id=record.case_id, trial=record.trial, checks=checks, asserted_only=True
                )
            )
    return tuple(found)
