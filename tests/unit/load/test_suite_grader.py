"""A suite's grader: structured by default, or the composite scorer with a profile."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assay.errors import AssayConfigError, InputFormatError
from assay.grading import StructuredGrader
from assay.grading.checks import DEFAULT_PROFILE, CompositeScorer
from assay.load import grader_from_provenance, grader_provenance, load_suite

POLICY = Path(__file__).resolve().parents[3] / "examples" / "policy"
PROFILE = "threshold: 0.9\ncritical: [content_present]\nweights: {content_present: 0.5, abstention_correct: 0.5}\n"  # noqa: E501


def _suite(tmp_path: Path, grader: str) -> Path:
    for name in ("policy-rubric.yaml", "policy-sources.yaml"):
        (tmp_path / name).write_text((POLICY / name).read_text())
    (tmp_path / "strict.yaml").write_text(PROFILE)
    path = tmp_path / "suite.yaml"
    path.write_text(f"dataset: policy-rubric.yaml\ntarget: {{type: scripted}}\n{grader}")
    return path


def test_the_structured_grader_is_the_default_and_a_bare_name_still_works(
    tmp_path: Path,
) -> None:
    for text in ("", "grader: structured\n"):
        suite = load_suite(_suite(tmp_path, text))
        assert suite.settings.grader.type == "structured"
        assert isinstance(suite.grader(), StructuredGrader)


def test_a_bare_composite_uses_the_default_profile_and_the_dataset_sources(
    tmp_path: Path,
) -> None:
    grader = load_suite(_suite(tmp_path, "grader: composite\n")).grader()
    assert isinstance(grader, CompositeScorer)
    assert grader.profile == DEFAULT_PROFILE
    assert "returns-v3" in grader.sources.revisions  # from the dataset header


def test_a_composite_profile_is_read_relative_to_the_suite(tmp_path: Path) -> None:
    path = _suite(tmp_path, "grader:\n  type: composite\n  profile: strict.yaml\n")
    grader = load_suite(path).grader()
    assert isinstance(grader, CompositeScorer)
    assert (grader.profile.name, grader.profile.threshold) == ("strict", 0.9)
    assert grader.profile.critical == ("content_present",)


def test_a_missing_profile_file_is_located_in_the_suite(tmp_path: Path) -> None:
    path = _suite(tmp_path, "grader:\n  type: composite\n  profile: nope.yaml\n")
    with pytest.raises(InputFormatError, match=rf"{path}:5: grader.profile nope.yaml: no such"):
        load_suite(path).grader()


def test_an_invalid_profile_is_refused_with_its_problems(tmp_path: Path) -> None:
    path = _suite(tmp_path, "grader: {type: composite, profile: strict.yaml}\n")
    (tmp_path / "strict.yaml").write_text("threshold: 0.9\nweights: {content_present: 0.5}\n")
    with pytest.raises(AssayConfigError, match=r"weights sum to 0\.5, not 1"):
        load_suite(path).grader()


def test_grader_keys_are_validated_and_located(tmp_path: Path) -> None:
    path = _suite(tmp_path, "grader:\n  type: compsite\n")
    with pytest.raises(InputFormatError, match=r':4: grader "compsite".*"composite"'):
        load_suite(path)
    path = _suite(tmp_path, "grader:\n  type: structured\n  profile: strict.yaml\n")
    with pytest.raises(InputFormatError, match=r":5: grader\.profile: only the composite grader"):
        load_suite(path)
    path = _suite(tmp_path, "grader:\n  type: composite\n  profil: strict.yaml\n")
    with pytest.raises(InputFormatError, match=r':5: unknown field "grader.profil"'):
        load_suite(path)


def test_a_composite_grader_extra_sources_file_is_merged(tmp_path: Path) -> None:
    (tmp_path / "more.yaml").write_text("returns-v4: {new-window: Sixty days.}\n")
    path = _suite(tmp_path, "grader: {type: composite, sources: more.yaml}\n")
    grader = load_suite(path).grader()
    assert isinstance(grader, CompositeScorer)
    assert set(grader.sources.revisions) == {"returns-v3", "returns-v4"}


def test_the_recorded_provenance_rebuilds_the_same_profile(tmp_path: Path) -> None:
    path = _suite(tmp_path, "grader: {type: composite, profile: strict.yaml}\n")
    grader = load_suite(path).grader()
    entry = grader_provenance(grader)
    assert entry["name"] == "composite" and entry["sources_version"].startswith("sha256:")
    assert json.loads(entry["profile"])["threshold"] == 0.9
    rebuilt = grader_from_provenance(entry)
    assert isinstance(rebuilt, CompositeScorer) and rebuilt.profile == grader.profile
    assert grader_provenance(StructuredGrader()) == {"name": "structured", "version": "1"}
    assert grader_from_provenance({"name": "gone", "version": "1"}) is None
