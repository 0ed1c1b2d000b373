"""Variants of a matrix: --set cross products and their names, suite variants, refusals."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.errors import AssayConfigError, InputFormatError
from assay.load import load_suite
from assay.load._variants import cross_product, parse_set, variants_of

SUITE = """dataset: cases.jsonl
target:
  type: openai
  base_url: http://127.0.0.1:9/v1
  model: base
  temperature: 0
"""


def _suite(tmp_path: Path, extra: str = "") -> Path:
    path = tmp_path / "suite.yaml"
    path.write_text(SUITE + extra, encoding="utf-8")
    return path


def test_the_cross_product_names_every_combination_in_order() -> None:
    combos = cross_product(["target.model=a,b", "target.temperature=0,0.7"])
    assert [name for name, _ in combos] == [
        "model=a,temperature=0",
        "model=a,temperature=0.7",
        "model=b,temperature=0",
        "model=b,temperature=0.7",
    ]
    assert combos[1][1] == {"target.model": "a", "target.temperature": 0.7}  # a number


def test_values_are_read_as_yaml_scalars() -> None:
    key, values = parse_set("target.seed=1,null,true,x")
    assert key == "target.seed"
    assert [v for _, v in values] == [1, None, True, "x"]


def test_keys_sharing_a_last_part_keep_their_full_name() -> None:
    combos = cross_product(["target.request.model=a", "target.model=b"])
    assert combos[0][0] == "target.request.model=a,target.model=b"


@pytest.mark.parametrize(
    ("option", "message"),
    [
        ("dataset=other.jsonl", "target.* or grader settings only"),
        ("trials=3", "target.* or grader settings only"),
        ("target.model", "write KEY=VALUE"),
        ("target.model=a,,b", "an empty value"),
        ("target.model=a,a", "a value is given twice"),
    ],
)
def test_bad_set_options_are_refused(option: str, message: str) -> None:
    with pytest.raises(AssayConfigError, match=message):
        cross_product([option])


def test_one_key_set_twice_is_refused() -> None:
    with pytest.raises(AssayConfigError, match="given twice"):
        cross_product(["target.model=a", "target.model=b"])


def test_suite_variants_cross_the_set_options(tmp_path: Path) -> None:
    suite = load_suite(
        _suite(
            tmp_path,
            "variants:\n  small: {target: {model: s}}\n  big:\n    target: {model: b}\n",
        )
    )
    variants = variants_of(suite, ["target.temperature=0,1"])
    assert [v.name for v in variants] == [
        "small/temperature=0",
        "small/temperature=1",
        "big/temperature=0",
        "big/temperature=1",
    ]
    big_hot = variants[3]
    assert big_hot.overrides == {"target.model": "b", "target.temperature": 1}
    assert big_hot.suite.settings.target["model"] == "b"
    assert big_hot.suite.settings.target["temperature"] == 1
    assert big_hot.suite.settings.variants is None  # a variant is one plain run
    assert big_hot.suite.settings.dataset == suite.settings.dataset  # one dataset for all


def test_without_variants_or_set_there_is_no_matrix(tmp_path: Path) -> None:
    assert variants_of(load_suite(_suite(tmp_path))) == []


def test_a_variant_may_not_name_a_dataset(tmp_path: Path) -> None:
    with pytest.raises(InputFormatError, match=r"variants\.x\.dataset"):
        load_suite(_suite(tmp_path, "variants:\n  x: {dataset: other.jsonl}\n"))


def test_a_bad_variant_value_is_reported_with_the_file_and_the_variant(tmp_path: Path) -> None:
    suite = load_suite(_suite(tmp_path, "variants:\n  hot: {target: {temperature: 9}}\n"))
    with pytest.raises(InputFormatError) as caught:
        variants_of(suite)
    text = str(caught.value)
    assert "suite.yaml" in text and "variant hot" in text and "temperature" in text


def test_a_variant_name_must_be_plain(tmp_path: Path) -> None:
    with pytest.raises(InputFormatError, match="variants"):
        load_suite(_suite(tmp_path, "variants:\n  'bad name!': {}\n"))
