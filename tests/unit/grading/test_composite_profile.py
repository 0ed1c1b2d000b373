"""Profiles: weights summing to 1, known checks, weighted critical checks, a threshold."""

from __future__ import annotations

from typing import Any

import pytest

from assay.grading.checks import DEFAULT_PROFILE, DEFAULT_WEIGHTS, ProfileError, make_profile

KNOWN = list(DEFAULT_WEIGHTS)


def profile(**fields: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "weights": dict(DEFAULT_WEIGHTS),
        "critical": ["content_present", "content_absent"],
        "threshold": 0.85,
    }
    base.update(fields)
    return base


def test_the_default_weights_make_a_valid_profile() -> None:
    made = make_profile(profile(name="mine"), KNOWN)
    assert made.name == "mine"
    assert made.checks == tuple(DEFAULT_WEIGHTS)


def test_the_default_profile_is_what_validating_its_values_makes() -> None:
    # It is made without validation: the same model, fields and representation.
    made = make_profile(profile(name="default"), KNOWN)
    assert made == DEFAULT_PROFILE
    assert repr(DEFAULT_PROFILE) == repr(made)
    assert DEFAULT_PROFILE.model_fields_set == made.model_fields_set
    assert DEFAULT_PROFILE.model_dump_json() == made.model_dump_json()


def test_weights_that_do_not_sum_to_one_print_the_sum() -> None:
    weights = {**DEFAULT_WEIGHTS, "format_valid": 0.05}
    with pytest.raises(ProfileError, match=r"weights sum to 0\.95, not 1 \(allowed error 1e-9\)"):
        make_profile(profile(weights=weights), KNOWN, "p.yaml")


def test_a_sum_within_1e_9_is_accepted() -> None:
    weights = {**DEFAULT_WEIGHTS, "format_valid": 0.1 + 5e-10}
    assert make_profile(profile(weights=weights), KNOWN).weights["format_valid"] > 0.1


def test_an_unknown_check_says_did_you_mean() -> None:
    weights = dict(DEFAULT_WEIGHTS)
    weights["citation_vaild"] = weights.pop("citation_valid")
    with pytest.raises(ProfileError) as err:
        make_profile(profile(weights=weights), KNOWN, "p.yaml")
    assert 'unknown check "citation_vaild" (did you mean "citation_valid"?)' in str(err.value)
    assert str(err.value).startswith("p.yaml: invalid scoring profile:")


def test_a_critical_check_without_a_weight_is_refused() -> None:
    weights = {n: w for n, w in DEFAULT_WEIGHTS.items() if n != "content_absent"}
    weights["format_valid"] = 0.30
    with pytest.raises(ProfileError, match='critical check "content_absent" has no weight'):
        make_profile(profile(weights=weights), KNOWN)


@pytest.mark.parametrize("threshold", [0, -0.1, 1.5, "high", None, True])
def test_a_bad_threshold_is_refused(threshold: Any) -> None:
    with pytest.raises(ProfileError, match="threshold must be a number above 0"):
        make_profile(profile(threshold=threshold), KNOWN)


def test_every_problem_is_reported_at_once() -> None:
    with pytest.raises(ProfileError) as err:
        make_profile(
            {"weights": {"nope": 1.0}, "critical": ["zzz"], "threshold": 2, "colour": 1}, KNOWN
        )
    assert len(err.value.problems) == 4


def test_negative_or_non_numeric_weights_are_refused() -> None:
    with pytest.raises(ProfileError, match=r"weights\.format_valid must be a number from 0 to 1"):
        make_profile(profile(weights={**DEFAULT_WEIGHTS, "format_valid": "0.1"}), KNOWN)
