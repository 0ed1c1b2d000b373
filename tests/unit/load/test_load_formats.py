"""Datasets from JSONL, YAML, JSON and CSV files: same cases, same version, located problems."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
import yaml

from assay import DuplicateCaseIdError, InputFormatError, load_dataset, load_results
from assay.load import read_records
from assay.load._limits import bounded_yaml_loader

POLICY = Path(__file__).resolve().parents[3] / "examples" / "policy"

YAML = textwrap.dedent(
    """\
    name: policy-yaml
    description: two of the seed's cases
    cases:
      - id: E1
        slice: standard
        question: How many days do I have to return an item I bought online?
        expected_behavior: answer
        expected_fact: return_window_30_days
        accepted_facts: [return_window_one_month]
      - id: E3
        slice: missing
        question: Do you offer gift wrapping on returns?
        expected_behavior: abstain
        metadata: {reviewer: ana}
    """
)

CSV = (
    "id,slice,question,expected_behavior,expected_fact,accepted_facts,synthetic\n"
    "E1,standard,How many days do I have to return an item I bought online?,answer,"
    "return_window_30_days,return_window_one_month,\n"
    "E3,missing,Do you offer gift wrapping on returns?,abstain,,,false\n"
)


def _jsonl_of_the_same_cases(path: Path) -> Path:
    rows = [
        {
            "expected_fact": "return_window_30_days",
            "id": "E1",
            "slice": "standard",
            "question": "How many days do I have to return an item I bought online?",
            "expected_behavior": "answer",
            "accepted_facts": ["return_window_one_month"],
        },
        {
            "id": "E3",
            "slice": "missing",
            "question": "Do you offer gift wrapping on returns?",
            "expected_behavior": "abstain",
            "expected_fact": None,
            "metadata": {"reviewer": "ana"},
        },
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return path


def test_yaml_dataset_with_header(tmp_path: Path) -> None:
    (tmp_path / "cases.yaml").write_text(YAML)
    dataset = load_dataset(tmp_path / "cases.yaml")
    assert dataset.name == "policy-yaml"
    assert dataset.ids == ("E1", "E3")
    assert dataset.cases[0].facts == {"return_window_30_days", "return_window_one_month"}
    assert [loc.line for loc in dataset.locations if loc] == [4, 10]


def test_yaml_and_jsonl_of_the_same_cases_have_the_same_version(tmp_path: Path) -> None:
    (tmp_path / "cases.yaml").write_text(YAML)
    from_yaml = load_dataset(tmp_path / "cases.yaml")
    from_jsonl = load_dataset(_jsonl_of_the_same_cases(tmp_path / "cases.jsonl"))
    assert from_yaml.version == from_jsonl.version
    assert from_yaml.version.startswith("sha256:")


def test_yaml_problems_name_the_line_of_their_case(tmp_path: Path) -> None:
    text = YAML.replace("    expected_fact: return_window_30_days\n", "").replace(
        "metadata: {reviewer: ana}", "metdata: {reviewer: ana}"
    )
    (tmp_path / "cases.yaml").write_text(text)
    with pytest.raises(InputFormatError) as info:
        load_dataset(tmp_path / "cases.yaml")
    lines = [(p.location.line if p.location else None) for p in info.value.problems]
    assert lines == [4, 9]
    assert 'did you mean "metadata"' in str(info.value)


def test_malformed_yaml_names_the_line(tmp_path: Path) -> None:
    (tmp_path / "cases.yaml").write_text("cases:\n  - id: E1\n    slice: [unclosed\n")
    with pytest.raises(InputFormatError, match="malformed YAML") as info:
        load_dataset(tmp_path / "cases.yaml")
    assert info.value.problems[0].location is not None
    assert info.value.problems[0].location.line is not None


def test_unknown_yaml_header_field(tmp_path: Path) -> None:
    (tmp_path / "cases.yaml").write_text("nmae: x\n" + YAML)
    with pytest.raises(InputFormatError, match='unknown top-level field "nmae"'):
        load_dataset(tmp_path / "cases.yaml")


def test_csv_dataset(tmp_path: Path) -> None:
    (tmp_path / "cases.csv").write_text(CSV)
    dataset = load_dataset(tmp_path / "cases.csv")
    assert dataset.name == "cases"
    assert dataset.cases[0].accepted_facts == ("return_window_one_month",)
    assert dataset.cases[1].expected_fact is None
    assert [loc.line for loc in dataset.locations if loc] == [2, 3]
    yaml_version = load_dataset(_jsonl_of_the_same_cases(tmp_path / "c.jsonl")).version
    # The CSV has no metadata column, so it differs from the JSONL only by that field.
    assert dataset.version != yaml_version


def test_csv_problem_lines_count_quoted_line_breaks(tmp_path: Path) -> None:
    text = (
        "id,slice,question,expected_behavior,expected_fact\n"
        'E1,standard,"How many days\nto return?",answer,\n'
        "\n"
        "E3,missing,Gift wrap?,abstain,fee\n"
    )
    (tmp_path / "cases.csv").write_text(text)
    with pytest.raises(InputFormatError) as info:
        load_dataset(tmp_path / "cases.csv")
    where = tmp_path / "cases.csv"
    assert [str(p) for p in info.value.problems] == [
        f'{where}:2: expected_fact is required when expected_behavior is "answer"',
        f'{where}:5: expected_fact must be null when expected_behavior is "abstain"',
    ]


def test_csv_unknown_column_is_reported_once_at_the_header(tmp_path: Path) -> None:
    (tmp_path / "cases.csv").write_text(CSV.replace("expected_fact", "expected_fatc"))
    with pytest.raises(InputFormatError) as info:
        load_dataset(tmp_path / "cases.csv")
    assert len(info.value.problems) == 1
    assert str(info.value.problems[0]).endswith(
        'cases.csv:1: unknown column "expected_fatc" (did you mean "expected_fact"?)'
    )


def test_csv_row_with_too_many_cells(tmp_path: Path) -> None:
    (tmp_path / "cases.csv").write_text(CSV + "E4,missing,q,abstain,,,,surplus\n")
    with pytest.raises(InputFormatError, match=r"cases\.csv:4: the row has more cells"):
        load_dataset(tmp_path / "cases.csv")


def test_json_list_dataset(tmp_path: Path) -> None:
    jsonl = _jsonl_of_the_same_cases(tmp_path / "cases.jsonl")
    rows = [json.loads(line) for line in jsonl.read_text().splitlines()]
    (tmp_path / "cases.json").write_text(json.dumps({"name": "listed", "cases": rows}, indent=2))
    dataset = load_dataset(tmp_path / "cases.json")
    assert dataset.name == "listed"
    assert dataset.version == load_dataset(jsonl).version


def test_duplicate_ids_across_a_yaml_file(tmp_path: Path) -> None:
    (tmp_path / "cases.yaml").write_text(YAML.replace("id: E3", "id: E1"))
    with pytest.raises(DuplicateCaseIdError) as info:
        load_dataset(tmp_path / "cases.yaml")
    assert (
        str(info.value)
        .splitlines()[1]
        .endswith("cases.yaml:4, " + str(tmp_path / "cases.yaml") + ":10")
    )


def test_results_keep_their_lines(tmp_path: Path) -> None:
    (tmp_path / "r.jsonl").write_text(
        '{"id": "E1", "kind": "answer", "fact": "f"}\n\n{"id": "E3", "kind": "abstain"}\n'
    )
    results = load_results(tmp_path / "r.jsonl")
    assert [loc.line for loc in results.locations if loc] == [1, 3]
    assert [r.case_id for r in results.records] == ["E1", "E3"]


def test_jsonl_lines_split_on_newlines_only(tmp_path: Path) -> None:
    row = {
        "id": "E1",
        "slice": "standard",
        "question": "line\u2028separator and next\x85line",
        "expected_behavior": "abstain",
    }
    (tmp_path / "cases.jsonl").write_text(json.dumps(row, ensure_ascii=False) + "\n")
    dataset = load_dataset(tmp_path / "cases.jsonl")
    assert dataset.cases[0].question == row["question"]


def test_json_records_are_located_by_line(tmp_path: Path) -> None:
    rows = [json.loads(line) for line in (POLICY / "policy.jsonl").read_text().splitlines()]
    rows[2]["expected_fact"] = "gift_wrap"
    (tmp_path / "cases.json").write_text(json.dumps({"name": "p", "cases": rows}, indent=2))
    with pytest.raises(InputFormatError) as info:
        load_dataset(tmp_path / "cases.json")
    (problem,) = info.value.problems
    assert problem.location is not None and problem.location.line is not None
    lines = (tmp_path / "cases.json").read_text().splitlines()
    assert lines[problem.location.line - 1].strip() == "{"
    assert lines[problem.location.line].strip() == '"id": "E3",'


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("r.jsonl", '{"id": "E1", "kind": "abstain", "kind": "answer"}\n'),
        ("c.yaml", "cases:\n  - id: E1\n    kind: a\n    kind: b\n"),
        ("c.json", '[{"id": "E1", "id": "E2"}]'),
    ],
)
def test_a_key_written_twice_is_refused(tmp_path: Path, name: str, text: str) -> None:
    (tmp_path / name).write_text(text)
    with pytest.raises(InputFormatError, match=r'duplicate key "(kind|id)"'):
        read_records(tmp_path / name, "cases")


def test_a_byte_order_mark_is_not_part_of_the_first_record(tmp_path: Path) -> None:
    (tmp_path / "c.csv").write_bytes(b"\xef\xbb\xbf" + CSV.encode())
    assert load_dataset(tmp_path / "c.csv").ids == ("E1", "E3")


def test_an_empty_yaml_case_list(tmp_path: Path) -> None:
    (tmp_path / "c.yaml").write_text("name: x\ncases: []\n")
    with pytest.raises(InputFormatError, match="the dataset has no cases"):
        load_dataset(tmp_path / "c.yaml")


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("cases:\n  - ? [a, b]\n    : 1\n", 2),
        ("cases:\n  - id: E1\n    slice: !!python/object:os.system x\n", 3),
    ],
)
def test_yaml_that_cannot_become_plain_data_is_located(
    tmp_path: Path, text: str, line: int
) -> None:
    (tmp_path / "c.yaml").write_text(text)
    with pytest.raises(InputFormatError, match="malformed YAML") as info:
        load_dataset(tmp_path / "c.yaml")
    location = info.value.problems[0].location
    assert location is not None and location.line == line


def test_the_labels_cases_repeat_are_one_string_each(tmp_path: Path) -> None:
    # A million cases keep each repeated label once: what keeps `assay score` under 1.5 GB.
    lines = [
        {"id": f"C{i}", "slice": "standard", "question": f"q{i}", "expected_behavior": "answer",
         "expected_fact": "return_window_30_days", "rationale": "policy, section 2"}
        for i in range(3)
    ]  # fmt: skip
    path = tmp_path / "cases.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    first, *rest = load_dataset(path).cases
    for case in rest:
        assert case.slice is first.slice
        assert case.expected_fact is first.expected_fact
        assert case.rationale is first.rationale
        assert case.expected_behavior is first.expected_behavior


def _many_cases(count: int, bad: int | None = None) -> str:
    lines = ["name: many", "cases:"]
    for i in range(count):
        kind = "answr" if i == bad else "answer"
        lines.append(
            f'  - {{id: C{i:05d}, slice: s{i % 7}, question: "What is item {i}?", '
            f"expected_behavior: {kind}, expected_fact: f{i}}}"
        )
    return "\n".join(lines) + "\n"


def test_a_large_yaml_dataset_loads_every_case_at_its_line(tmp_path: Path) -> None:
    path = tmp_path / "many.yaml"
    path.write_text(_many_cases(3_000), encoding="utf-8")
    records, header = read_records(path, "cases")
    assert header == {"name": "many"}
    assert [loc.line for loc, _ in records] == list(range(3, 3_003))
    assert records[2_345][1]["id"] == "C02345"
    dataset = load_dataset(path)
    assert len(dataset.cases) == 3_000
    assert dataset.cases[-1].expected_fact == "f2999"


def test_a_bad_case_deep_in_a_large_yaml_dataset_is_named_at_its_line(tmp_path: Path) -> None:
    path = tmp_path / "many.yaml"
    path.write_text(_many_cases(3_000, bad=2_500), encoding="utf-8")
    with pytest.raises(InputFormatError, match=r"many\.yaml:2503: expected_behavior") as err:
        load_dataset(path)
    assert len(err.value.problems) == 1


def test_yaml_is_composed_by_libyaml_when_pyyaml_has_it() -> None:
    if not getattr(yaml, "__with_libyaml__", False):
        pytest.skip("this PyYAML was built without libyaml")
    assert bounded_yaml_loader() is yaml.CSafeLoader
