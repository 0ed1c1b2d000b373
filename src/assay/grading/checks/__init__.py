"""Checks and the composite scorer: named yes/no tests of a recorded answer, weighed by a
profile whose critical checks veto a pass."""

from __future__ import annotations

from typing import TYPE_CHECKING

from assay._lazy import lazy_exports

if TYPE_CHECKING:
    from assay.grading.checks._apply import composite_all, scored_case
    from assay.grading.checks._builtin import (
        BUILTIN_CHECKS,
        abstention_correct,
        answer_not_empty,
        citation_supports,
        citation_valid,
        content_absent,
        content_present,
        format_valid,
    )
    from assay.grading.checks._claims import claims_check, claims_match_tools
    from assay.grading.checks._judge import (
        JUDGE_CHECKS,
        judge_check_names,
        judge_check_results,
        judge_not_supplied,
        with_judge,
    )
    from assay.grading.checks._path import PathMiss, path_matches, path_misses
    from assay.grading.checks._profile import (
        AGENT_PROFILE,
        DEFAULT_PROFILE,
        DEFAULT_WEIGHTS,
        PROFILES,
        Profile,
        ProfileError,
        exact,
        make_profile,
    )
    from assay.grading.checks._recorded import (
        CompositeInputs,
        RecordedChecks,
        check_composite_inputs,
        check_line_value,
        imported_checks,
        parse_composite_results,
    )
    from assay.grading.checks._registry import ENTRY_POINT_GROUP, CheckLoader, CheckRegistry
    from assay.grading.checks._scorer import CompositeResult, CompositeScorer
    from assay.grading.checks._state import state_differences, state_matches, wanted_state
    from assay.grading.checks._synthetic import flip_check
    from assay.grading.checks._text import contains, normalize
    from assay.grading.checks._types import Check, CheckInput, CheckResult

# Each name is imported from its module on first use: a command loads only the modules
# whose names it reads.
_WHERE: dict[str, str] = {
    "composite_all": "assay.grading.checks._apply",
    "scored_case": "assay.grading.checks._apply",
    "BUILTIN_CHECKS": "assay.grading.checks._builtin",
    "abstention_correct": "assay.grading.checks._builtin",
    "answer_not_empty": "assay.grading.checks._builtin",
    "citation_supports": "assay.grading.checks._builtin",
    "citation_valid": "assay.grading.checks._builtin",
    "content_absent": "assay.grading.checks._builtin",
    "content_present": "assay.grading.checks._builtin",
    "format_valid": "assay.grading.checks._builtin",
    "claims_check": "assay.grading.checks._claims",
    "claims_match_tools": "assay.grading.checks._claims",
    "JUDGE_CHECKS": "assay.grading.checks._judge",
    "judge_check_names": "assay.grading.checks._judge",
    "judge_check_results": "assay.grading.checks._judge",
    "judge_not_supplied": "assay.grading.checks._judge",
    "with_judge": "assay.grading.checks._judge",
    "path_matches": "assay.grading.checks._path",
    "PathMiss": "assay.grading.checks._path",
    "path_misses": "assay.grading.checks._path",
    "AGENT_PROFILE": "assay.grading.checks._profile",
    "DEFAULT_PROFILE": "assay.grading.checks._profile",
    "DEFAULT_WEIGHTS": "assay.grading.checks._profile",
    "Profile": "assay.grading.checks._profile",
    "PROFILES": "assay.grading.checks._profile",
    "ProfileError": "assay.grading.checks._profile",
    "exact": "assay.grading.checks._profile",
    "make_profile": "assay.grading.checks._profile",
    "CompositeInputs": "assay.grading.checks._recorded",
    "RecordedChecks": "assay.grading.checks._recorded",
    "check_composite_inputs": "assay.grading.checks._recorded",
    "check_line_value": "assay.grading.checks._recorded",
    "imported_checks": "assay.grading.checks._recorded",
    "parse_composite_results": "assay.grading.checks._recorded",
    "ENTRY_POINT_GROUP": "assay.grading.checks._registry",
    "CheckLoader": "assay.grading.checks._registry",
    "CheckRegistry": "assay.grading.checks._registry",
    "CompositeResult": "assay.grading.checks._scorer",
    "CompositeScorer": "assay.grading.checks._scorer",
    "state_matches": "assay.grading.checks._state",
    "state_differences": "assay.grading.checks._state",
    "wanted_state": "assay.grading.checks._state",
    "flip_check": "assay.grading.checks._synthetic",
    "contains": "assay.grading.checks._text",
    "normalize": "assay.grading.checks._text",
    "Check": "assay.grading.checks._types",
    "CheckInput": "assay.grading.checks._types",
    "CheckResult": "assay.grading.checks._types",
}

__getattr__, __dir__ = lazy_exports(globals(), _WHERE)


__all__ = [
    "AGENT_PROFILE",
    "BUILTIN_CHECKS",
    "DEFAULT_PROFILE",
    "DEFAULT_WEIGHTS",
    "ENTRY_POINT_GROUP",
    "JUDGE_CHECKS",
    "PROFILES",
    "Check",
    "CheckInput",
    "CheckLoader",
    "CheckRegistry",
    "CheckResult",
    "CompositeInputs",
    "CompositeResult",
    "CompositeScorer",
    "PathMiss",
    "Profile",
    "ProfileError",
    "RecordedChecks",
    "abstention_correct",
    "answer_not_empty",
    "check_composite_inputs",
    "check_line_value",
    "citation_supports",
    "citation_valid",
    "claims_check",
    "claims_match_tools",
    "composite_all",
    "contains",
    "content_absent",
    "content_present",
    "exact",
    "flip_check",
    "format_valid",
    "imported_checks",
    "judge_check_names",
    "judge_check_results",
    "judge_not_supplied",
    "make_profile",
    "normalize",
    "parse_composite_results",
    "path_matches",
    "path_misses",
    "scored_case",
    "state_differences",
    "state_matches",
    "wanted_state",
    "with_judge",
]
