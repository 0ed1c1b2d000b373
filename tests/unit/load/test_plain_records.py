"""Result lines read one at a time for the streamed score, and when that path gives up."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.load import load_results
from assay.load._files import NotStreamable, plain_records


def _write(tmp_path: Path, text: str, name: str = "results.jsonl") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_the_records_are_those_load_results_reads(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        '{"id": "C1", "kind": "answer", "fact": "f"}\n\n'
        '{"id": "C2", "kind": "abstain", "reason": "unsure"}\n'
        '{"id": "C3", "kind": "error", "class": "timeout", "trial": 2}\n',
    )
    assert list(plain_records(path)) == list(load_results(path).records)


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("results.jsonl", '{"id": "C1", "kind": "answer", "fact": "f"}\n{"id": "C2"}\n'),
        ("results.jsonl", '{"id": "C1", "kind": "answer", "fact": "f"}\n{not json\n'),
        ("results.jsonl", '{"id": "C1", "kind": "answer", "fact": "f", "fact": "g"}\n'),
        ("results.jsonl", ""),
        ("results.jsonl", "\n\n"),
        ("results.json", '[{"id": "C1", "kind": "answer", "fact": "f"}]'),
    ],
)
def test_anything_but_valid_json_lines_is_not_streamed(
    tmp_path: Path, name: str, text: str
) -> None:
    with pytest.raises(NotStreamable):
        list(plain_records(_write(tmp_path, text, name)))
