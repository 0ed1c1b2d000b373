"""A suite's judge: inline settings or a settings file, every problem located in the
file that holds it, and a provenance that rebuilds the judge (without its endpoint)."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.errors import InputFormatError
from assay.grading.judge import JudgeGrader
from assay.load import grader_from_provenance, grader_provenance, load_judge, load_suite

POLICY = Path(__file__).resolve().parents[3] / "examples" / "policy"


def _suite(tmp_path: Path, grader: str) -> Path:
    for name in ("policy-rubric.yaml", "policy-sources.yaml"):
        (tmp_path / name).write_text((POLICY / name).read_text())
    path = tmp_path / "suite.yaml"
    path.write_text(f"dataset: policy-rubric.yaml\ntarget: {{type: scripted}}\n{grader}")
    return path


def test_inline_settings_build_a_judge_with_the_dataset_sources(tmp_path: Path) -> None:
    suite = load_suite(
        _suite(
            tmp_path,
            "grader:\n  type: judge\n  base_url: http://127.0.0.1:1/v1\n  model: m\n"
            "  rubric: {pass_minimum: 1}\n",
        )
    )
    judge = suite.grader()
    assert isinstance(judge, JudgeGrader)
    assert judge.rubric.pass_minimum == 1
    assert judge.endpoint is not None and judge.endpoint.base_url == "http://127.0.0.1:1/v1"
    assert judge.sources.revisions  # the dataset header's policy-sources.yaml


def test_inline_problems_are_located_in_the_suite(tmp_path: Path) -> None:
    path = _suite(
        tmp_path,
        "grader:\n  type: judge\n  base_url: http://x/v1\n  modle: m\n  rubric:\n"
        "    pass_minimum: 0\n",
    )
    with pytest.raises(InputFormatError) as caught:
        load_suite(path)
    text = str(caught.value)
    assert f'{path}:6: unknown field "grader.modle"' in text
    assert f"{path}:3: grader.model is required" in text
    assert f"{path}:8: grader.rubric.pass_minimum" in text


def test_a_settings_file_is_read_relative_to_the_suite(tmp_path: Path) -> None:
    (tmp_path / "judge.yaml").write_text("base_url: http://127.0.0.1:1/v1\nmodel: m\n")
    judge = load_suite(_suite(tmp_path, "grader: {type: judge, settings: judge.yaml}\n")).grader()
    assert isinstance(judge, JudgeGrader) and judge.config.model == "m"
    (tmp_path / "judge.yaml").write_text("base_url: http://127.0.0.1:1/v1\n")
    with pytest.raises(InputFormatError, match=r"judge\.yaml:1: model is required"):
        load_suite(_suite(tmp_path, "grader: {type: judge, settings: judge.yaml}\n")).grader()


def test_other_graders_refuse_judge_keys(tmp_path: Path) -> None:
    path = _suite(tmp_path, "grader:\n  type: structured\n  model: m\n")
    with pytest.raises(InputFormatError, match=r':5: unknown field "grader.model"'):
        load_suite(path)


def test_provenance_names_the_judge_and_rebuilds_it(tmp_path: Path) -> None:
    (tmp_path / "judge.yaml").write_text(
        "base_url: http://127.0.0.1:1/v1\nmodel: m\nseed: 3\n"
        "rubric: {accepted_variations: [a month]}\n"
    )
    judge = load_judge(tmp_path / "judge.yaml").grader()
    entry = grader_provenance(judge)
    assert entry["name"] == "judge" and entry["judge_model"] == "m"
    assert entry["prompt_version"] == "judge-prompt-2"
    assert entry["rubric_version"] == judge.rubric.version
    rebuilt = grader_from_provenance(entry)
    assert isinstance(rebuilt, JudgeGrader)
    assert rebuilt.version == judge.version and rebuilt.endpoint is None
    other = load_judge(tmp_path / "judge.yaml").grader()
    assert other.version == judge.version  # the same settings: the same judge version


def test_the_shipped_judge_suites_load() -> None:
    root = POLICY.parent / "judge"
    for name in ("calibration-suite.yaml", "adversarial-suite.yaml"):
        suite = load_suite(root / name)
        judge = suite.grader()
        assert isinstance(judge, JudgeGrader)
        assert judge.config.response_mode == "json_object_schema"
        assert suite.build_target().name == "scripted"


def test_a_bad_rubric_item_in_a_judge_file_is_named_at_its_own_line(tmp_path: Path) -> None:
    path = tmp_path / "judge.yaml"
    path.write_text(
        "base_url: http://127.0.0.1:1/v1\nmodel: m\nrubric:\n  required:\n"
        '    - "30 days"\n    - 5\n    - {bad: 1}\n'
    )
    with pytest.raises(InputFormatError) as raised:
        load_judge(path)
    where = {(p.field, p.location.line) for p in raised.value.problems if p.location is not None}
    assert ("rubric.required[1]", 6) in where
    assert ("rubric.required[2].fact", 7) in where
