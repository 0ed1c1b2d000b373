"""A built-in profile is named where a profile file would be: ``agent`` or ``default``,
unless a file of that name is there."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.grading.checks import AGENT_PROFILE, DEFAULT_PROFILE, CompositeScorer, make_profile
from assay.load import check_registry, load_profile, load_suite

ROOT = Path(__file__).resolve().parents[3]


def test_the_agent_profile_is_a_valid_profile_of_built_in_checks() -> None:
    data = {**AGENT_PROFILE.model_dump(), "critical": list(AGENT_PROFILE.critical)}
    assert make_profile(data, check_registry().names) == AGENT_PROFILE
    assert set(AGENT_PROFILE.critical) == {"state_matches", "claims_match_tools"}


def test_a_built_in_profile_is_named_unless_a_file_has_the_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert load_profile("agent") == AGENT_PROFILE
    assert load_profile("default") == DEFAULT_PROFILE
    (tmp_path / "agent").write_text("threshold: 1\nweights: {path_matches: 1}\n")
    assert load_profile("agent").weights == {"path_matches": 1.0}


def test_a_suite_names_the_agent_profile(tmp_path: Path) -> None:
    (tmp_path / "d.jsonl").write_text(
        '{"id": "T1", "slice": "tool", "question": "q", "expected_behavior": "abstain"}\n'
    )
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        "dataset: d.jsonl\ntarget: {type: scripted}\ngrader: {type: composite, profile: agent}\n"
    )
    grader = load_suite(suite).grader()
    assert isinstance(grader, CompositeScorer) and grader.profile == AGENT_PROFILE
