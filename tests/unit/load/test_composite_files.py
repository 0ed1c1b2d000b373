"""Profiles, source snapshots and dataset headers read from files."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.errors import AssayConfigError, InputFormatError
from assay.grading.checks import DEFAULT_PROFILE, ProfileError
from assay.load import load_dataset, load_profile, load_sources

ROOT = Path(__file__).resolve().parents[3]
DEFAULT_YAML = """\
name: default
threshold: 0.85
critical: [content_present, content_absent]
weights:
  answer_not_empty: 0.05
  content_present: 0.25
  content_absent: 0.20
  citation_valid: 0.05
  citation_supports: 0.15
  abstention_correct: 0.20
  format_valid: 0.10
"""


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_the_documented_default_profile_loads_equal_to_the_builtin(tmp_path: Path) -> None:
    assert load_profile(write(tmp_path, "p.yaml", DEFAULT_YAML)) == DEFAULT_PROFILE


def test_a_profile_whose_weights_miss_one_names_the_file_and_sum(tmp_path: Path) -> None:
    path = write(
        tmp_path, "p.yaml", DEFAULT_YAML.replace("format_valid: 0.10", "format_valid: 0.01")
    )
    with pytest.raises(ProfileError) as err:
        load_profile(path)
    assert str(err.value).startswith(f"{path}: invalid scoring profile:")
    assert "weights sum to 0.91, not 1" in str(err.value)


def test_malformed_or_non_mapping_profiles(tmp_path: Path) -> None:
    with pytest.raises(InputFormatError, match=r"bad\.yaml:1: malformed YAML"):
        load_profile(write(tmp_path, "bad.yaml", "weights: [unclosed"))
    with pytest.raises(AssayConfigError, match="a profile is a mapping"):
        load_profile(write(tmp_path, "list.yaml", "- a\n- b\n"))
    with pytest.raises(InputFormatError, match="no such file"):
        load_profile(tmp_path / "missing.yaml")


def test_a_key_written_twice_in_a_profile_or_sources_file_is_refused(tmp_path: Path) -> None:
    twice = "threshold: 0.85\nweights:\n  content_present: 0.5\n  content_present: 0.5\n"
    with pytest.raises(InputFormatError, match=r'twice\.yaml:4: duplicate key "content_present"'):
        load_profile(write(tmp_path, "twice.yaml", twice))
    sources = "v1:\n  a: one\n  a: two\n"
    with pytest.raises(InputFormatError, match=r'src\.yaml:3: duplicate key "a"'):
        load_sources(write(tmp_path, "src.yaml", sources))


def test_sources_file_and_errors(tmp_path: Path) -> None:
    library = load_sources(ROOT / "examples" / "policy" / "policy-sources.yaml")
    assert set(library.revisions["returns-v3"]) == {
        "standard-window",
        "custom-exception",
        "defects",
    }
    assert library.version is not None and library.version.startswith("sha256:")
    with pytest.raises(InputFormatError, match="expected a mapping of section id -> text"):
        load_sources(write(tmp_path, "s.yaml", "returns-v3: [a, b]\n"))
    with pytest.raises(InputFormatError, match="section text must be a string"):
        load_sources(write(tmp_path, "s2.yaml", "returns-v3:\n  a: {nested: 1}\n"))


def test_a_dataset_header_names_its_sources_relative_to_itself() -> None:
    dataset = load_dataset(ROOT / "examples" / "policy" / "policy-rubric.yaml")
    e1 = dataset.get("E1")
    assert e1 is not None
    snapshot = dataset.sources.snapshot_for(e1)
    assert snapshot is not None and "standard-window" in snapshot


def test_a_dataset_header_with_a_missing_sources_file_fails_clearly(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "d.yaml",
        "sources: nowhere.yaml\ncases:\n  - {id: a, slice: s, question: q, "
        "expected_behavior: abstain}\n",
    )
    with pytest.raises(InputFormatError, match=r"nowhere\.yaml"):
        load_dataset(path)


def test_a_csv_dataset_lists_rubric_facts_split_on_bars(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "d.csv",
        "id,slice,question,expected_behavior,expected_fact,required,disallowed,requires_citation\n"
        "E1,standard,How long?,answer,window_30,30 days|full refund,60 days,true\n",
    )
    (case,) = load_dataset(path).cases
    assert [r.fact for r in case.required] == ["30 days", "full refund"]
    assert [d.claim for d in case.disallowed] == ["60 days"]
    assert case.requires_citation is True


def test_a_profile_without_a_name_is_named_after_its_file(tmp_path: Path) -> None:
    text = DEFAULT_YAML.replace("name: default\n", "")
    assert load_profile(write(tmp_path, "citations-lenient.yaml", text)).name == "citations-lenient"


def test_the_shipped_profile_is_the_default() -> None:
    assert load_profile(ROOT / "examples" / "golden17" / "profile.yaml") == DEFAULT_PROFILE
