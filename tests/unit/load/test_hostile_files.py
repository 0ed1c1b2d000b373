"""Odd and hostile input files are refused with one located ``InputFormatError``: never a
crash, a hang, or memory spent on what the file claims to hold."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from assay import load_dataset, load_results
from assay.errors import InputFormatError, Location
from assay.load import load_composite_results, load_sources, load_suite
from assay.load._limits import MAX_ALIAS_NODES, MAX_DEPTH, read_bounded

CASE = {
    "id": "E1",
    "slice": "standard",
    "question": "q",
    "expected_behavior": "answer",
    "expected_fact": "f",
}


def _refused(path: Path, *needles: str) -> str:
    with pytest.raises(InputFormatError) as info:
        load_dataset(path)
    message = str(info.value)
    assert str(path) in message
    for needle in needles:
        assert needle in message
    return message


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
def test_a_device_is_refused_before_anything_is_read() -> None:
    with pytest.raises(InputFormatError, match="not a regular file"):
        load_dataset("/dev/zero")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path: Path) -> None:
    fifo = tmp_path / "cases.jsonl"
    os.mkfifo(fifo)
    _refused(fifo, "not a regular file")


def test_a_file_over_the_size_limit_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    path.write_bytes(b"x" * 101)
    with pytest.raises(InputFormatError, match="the limit is 100 bytes"):
        read_bounded(path, limit=100)


def test_an_over_long_file_name_is_refused(tmp_path: Path) -> None:
    _refused(tmp_path / ("x" * 5000 + ".jsonl"), "cannot be read")


@pytest.mark.parametrize("suffix", [".json", ".jsonl"])
def test_json_nesting_past_the_recursion_limit_is_refused(tmp_path: Path, suffix: str) -> None:
    deep = "[" * 100_000 + "]" * 100_000
    path = tmp_path / f"deep{suffix}"
    path.write_text(json.dumps({**CASE, "metadata": {}})[:-1] + f', "x": {deep}}}\n')
    _refused(path, f"nested deeper than {MAX_DEPTH} levels")


def test_json_nesting_past_the_documented_depth_is_refused(tmp_path: Path) -> None:
    value: object = "leaf"
    for _ in range(MAX_DEPTH + 1):
        value = {"a": value}
    path = tmp_path / "deep.jsonl"
    path.write_text(json.dumps({**CASE, "metadata": value}) + "\n")
    _refused(path, f"deep.jsonl:1: nested deeper than {MAX_DEPTH} levels")


def test_yaml_nesting_past_the_recursion_limit_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "deep.yaml"
    path.write_text("cases:\n  - " + "[" * 50_000 + "]" * 50_000 + "\n")
    _refused(path, "nested deeper than")


@pytest.mark.parametrize(
    ("suffix", "body"),
    [
        (".jsonl", json.dumps(CASE)[:-1] + ', "metadata": {"n": ' + "9" * 5000 + "}}\n"),
        (".yaml", "- id: E1\n  metadata:\n    n: " + "9" * 5000 + "\n"),
    ],
)
def test_integers_over_the_digit_limit_are_refused(tmp_path: Path, suffix: str, body: str) -> None:
    path = tmp_path / f"n{suffix}"
    path.write_text(body)
    _refused(path, "longer than 4,300 digits")


LAUGHS = "\n".join(
    ["a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    + [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]" for i in range(1, 9)]
)


def test_billion_laughs_in_a_sources_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "sources.yaml"
    path.write_text(LAUGHS + "\nrev:\n  s: *a8\n")
    with pytest.raises(InputFormatError, match=f"more than {MAX_ALIAS_NODES:,} nodes"):
        load_sources(path)


def test_billion_laughs_in_a_suite_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "suite.yaml"
    path.write_text(
        "dataset: d.jsonl\ntarget: {type: scripted}\nmetadata:\n  "
        + LAUGHS.replace("\n", "\n  ")
        + "\n"
    )
    with pytest.raises(InputFormatError, match="aliases expand"):
        load_suite(path)


def test_billion_laughs_in_a_dataset_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "cases.yaml"
    path.write_text("x:\n  " + LAUGHS.replace("\n", "\n  ") + "\ncases: []\n")
    _refused(path, "aliases expand")


def test_a_few_aliases_are_still_welcome(tmp_path: Path) -> None:
    path = tmp_path / "cases.yaml"
    path.write_text(
        "cases:\n"
        "  - &base {id: E1, slice: s, question: q, expected_behavior: answer, expected_fact: f}\n"
        "  - {<<: *base, id: E2}\n"
    )
    assert load_dataset(path).ids == ("E1", "E2")


def test_a_recursive_alias_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "cases.yaml"
    path.write_text("cases:\n  - &a [*a]\n")
    _refused(path, "refers to a node that contains it")


def test_a_csv_cell_over_the_limit_is_refused_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "cases.csv"
    row = ",".join(str(CASE[k]) for k in CASE)
    path.write_text(",".join(CASE) + "\n" + row + "\n" + row.replace("q", "q" * 140_000) + "\n")
    _refused(path, "a cell is longer than 131,072 characters")


@pytest.mark.parametrize(
    ("suffix", "body"),
    [
        (".jsonl", json.dumps({**CASE, "question": "\ud800"}) + "\n"),
        (".json", json.dumps([{**CASE, "question": "x\udfff"}])),
        (".jsonl", json.dumps({**CASE, "metadata": {"\ud800": 1}}) + "\n"),
        (".yaml", '- {id: E1, question: "\\ud800"}\n'),
    ],
)
def test_a_lone_surrogate_is_refused(tmp_path: Path, suffix: str, body: str) -> None:
    path = tmp_path / f"s{suffix}"
    path.write_text(body)
    _refused(path, "lone UTF-16 surrogate")


def test_a_surrogate_pair_is_text(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps({**CASE, "question": "\U0001f600"}) + "\n")
    assert load_dataset(path).cases[0].question == "\U0001f600"


def test_a_non_scalar_yaml_key_in_a_header_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "cases.yaml"
    path.write_text("? [a, b]\n: 1\ncases: []\n")
    _refused(path, "a mapping key must be a plain value")


@pytest.mark.parametrize("tag", ["!!binary aGVsbG8=", "!!set {a, b}"])
def test_binary_and_set_values_are_refused(tmp_path: Path, tag: str) -> None:
    path = tmp_path / "cases.yaml"
    path.write_text(f"- id: E1\n  metadata:\n    blob: {tag}\n")
    _refused(path, "not supported")


def test_a_nul_filled_results_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    path.write_bytes(b"\x00" * 64)
    with pytest.raises(InputFormatError, match="NUL"):
        load_results(path)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions")
def test_an_unreadable_file_is_refused(tmp_path: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root reads every file")
    path = tmp_path / "cases.jsonl"
    path.write_text(json.dumps(CASE))
    path.chmod(0)
    _refused(path, "cannot be read")


def test_a_trial_number_beyond_the_recorded_trials_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    lines = [
        {"id": "E1", "kind": "abstain", "trial": 1},
        {"id": "E1", "kind": "abstain", "trial": 2},
        {"id": "E2", "kind": "abstain", "trial": 100_000},
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    with pytest.raises(InputFormatError, match="trial 100000 is beyond the 1,000 trials") as info:
        load_results(path)
    assert f"{path}:3" in str(info.value)


def test_a_trial_number_that_implies_far_more_case_trials_than_recorded_is_refused(
    tmp_path: Path,
) -> None:
    path = tmp_path / "results.jsonl"
    lines = [{"id": f"C{i}", "kind": "abstain"} for i in range(20_000)]
    lines.append({"id": "C0", "kind": "abstain", "trial": 900})  # 20,000 × 900 case-trials
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    with pytest.raises(InputFormatError, match="trial 900 is beyond the 100 trials") as info:
        load_results(path)
    assert f"{path}:20001" in str(info.value)


@pytest.mark.parametrize(
    "line",
    [
        {"id": "E2", "kind": "answer", "text": "x", "trial": 100_000_000_000_000_000_000},
        {"id": "E2", "trial": 1_000_000, "checks": {"content_present": True}},
    ],
)
def test_a_composite_results_file_is_bound_as_a_results_file_is(
    tmp_path: Path, line: dict[str, object]
) -> None:
    path = tmp_path / "results.jsonl"
    lines = [{"id": "E1", "kind": "answer", "text": "x"}, line]
    path.write_text("".join(json.dumps(item) + "\n" for item in lines))
    with pytest.raises(InputFormatError) as info:
        load_composite_results(path, ["content_present"])
    (problem,) = info.value.problems
    assert (problem.location, problem.field) == (Location(str(path), 2), "trial")
    assert problem.message.startswith(f"trial {line['trial']} is beyond the 1,000 trials")
    if "kind" in line:  # the same line in a results file: the same problem
        with pytest.raises(InputFormatError) as as_results:
            load_results(path)
        assert as_results.value.problems == info.value.problems


def test_trials_up_to_the_most_recorded_for_one_case_are_kept(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    lines = [{"id": "E1", "kind": "abstain", "trial": t} for t in (1, 2, 3)]
    lines.append({"id": "E2", "kind": "abstain", "trial": 3})  # E2's trials 1-2: missing
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    assert len(load_results(path).records) == 4


def test_a_chain_of_aliases_nesting_deeper_than_the_limit_is_refused(tmp_path: Path) -> None:
    chain = ["a0: &a0 [x]"] + [f"a{i}: &a{i} [*a{i - 1}]" for i in range(1, 200)]
    path = tmp_path / "suite.yaml"
    path.write_text(
        "dataset: d.jsonl\ntarget: {type: scripted}\nmetadata:\n  " + "\n  ".join(chain)
    )
    with pytest.raises(InputFormatError, match="nested deeper than 64 levels"):
        load_suite(path)
