"""A results file read by a forked process: the usual lines come back decoded, anything
else gives nothing back (the caller then reads the file itself), and the process never
outlives its reader."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from assay.load._aside import ResultsAside

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="forks on Linux")

USUAL = [
    {"id": "C1", "kind": "answer", "fact": "f"},
    {"id": "C2", "kind": "abstain", "reason": "unsure", "text": "no idea"},
    {"id": "C3", "kind": "error", "class": "timeout", "message": "after 30 s"},
    {"id": "C4", "kind": "error", "error_class": "http_500", "raw": "<html>"},
    {"id": "C5", "kind": "answer", "text": "free text, no fact", "fact": "é \u2028 ✓"},
]


def _write(tmp_path: Path, text: str, name: str = "results.jsonl") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _lines(path: Path, shared: bool = True) -> list[dict[str, object]] | None:
    aside = ResultsAside.start(path, at_least=0, shared=shared)
    assert aside is not None
    with aside:
        lines = aside.plain_lines()
        return None if lines is None else list(lines)


def test_the_usual_lines_come_back_decoded_in_order(tmp_path: Path) -> None:
    many = [dict(line, id=f"{line['id']}-{i}") for i in range(9_000) for line in USUAL]
    text = "\n".join(json.dumps(line, ensure_ascii=i % 2 == 0) for i, line in enumerate(many))
    assert _lines(_write(tmp_path, text + "\n\n")) == many  # several batches


def test_lines_read_without_sharing_their_strings_are_the_same_lines(tmp_path: Path) -> None:
    many = [dict(line, id=f"{line['id']}-{i}") for i in range(3_000) for line in USUAL]
    path = _write(tmp_path, "\n".join(json.dumps(line) for line in many) + "\n")
    shared, apart = _lines(path), _lines(path, shared=False)
    assert shared == apart == many
    assert shared is not None and apart is not None
    assert shared[0]["kind"] is shared[5]["kind"]  # one string object for the batch
    assert apart[0]["kind"] is not apart[5]["kind"]


@pytest.mark.parametrize(
    "text",
    [
        '{"id": "C1", "kind": "answer", "fact": "f", "trial": 2}\n',
        '{"id": "C1", "kind": "answer", "fact": "f", "latency_ms": 3}\n',
        '{"id": "C1", "kind": "answer", "fact": "f", "trial": 1}\n',
        '{"id": "C1", "kind": "answer", "fact": "f", "citations": ["a"]}\n',
        '{"id": "C1", "kind": "error", "class": "a", "error_class": "b"}\n',
        '{"id": "C1", "kind": "answer", "fact": "f"}\n{"id": "C2"}\n',
        '{"id": "C1", "kind": "answer", "fact": "f"}\n{not json\n',
        '{"id": "C1", "kind": "answer", "fact": "f", "fact": "g"}\n',
        '{"id": "C1", "kind": "answer", "fact": "f"}\n["a list"]\n',
        '{"id": "C1", "kind": "answer"}\n',
        '{"id": "C1", "kind": "answer", "fact": "\\ud800"}\n',
        "\n\n",
        "",
    ],
)
def test_anything_but_the_usual_lines_gives_nothing_back(tmp_path: Path, text: str) -> None:
    assert _lines(_write(tmp_path, text)) is None


def test_a_file_that_cannot_be_read_gives_nothing_back(tmp_path: Path) -> None:
    assert ResultsAside.start(tmp_path / "no.jsonl", at_least=0) is None
    (tmp_path / "bytes.jsonl").write_bytes(b'{"id": "C1", "kind": "abstain"}\n\xff\n')
    assert _lines(tmp_path / "bytes.jsonl") is None
    (tmp_path / "nul.jsonl").write_bytes(b'{"id": "C1", "kind": "abstain"}\n\x00\n')
    assert _lines(tmp_path / "nul.jsonl") is None


def test_small_and_other_files_are_read_here(tmp_path: Path) -> None:
    small = _write(tmp_path, json.dumps(USUAL[0]) + "\n")
    assert ResultsAside.start(small) is None  # under ASIDE_BYTES
    assert ResultsAside.start(small, at_least=10**9) is None
    other = _write(tmp_path, json.dumps(USUAL), name="results.json")
    assert ResultsAside.start(other, at_least=0) is None


def test_the_lines_are_given_once(tmp_path: Path) -> None:
    aside = ResultsAside.start(_write(tmp_path, json.dumps(USUAL[0]) + "\n"), at_least=0)
    assert aside is not None
    with aside:
        lines = aside.plain_lines()
        assert lines is not None and list(lines) == [USUAL[0]]
        assert aside.plain_lines() is None


def test_closing_stops_and_reaps_the_process(tmp_path: Path) -> None:
    text = "\n".join(json.dumps(dict(USUAL[0], id=f"C{i}")) for i in range(200_000))
    aside = ResultsAside.start(_write(tmp_path, text), at_least=0)
    assert aside is not None
    pid = aside._child.pid
    assert pid is not None
    aside.close()  # most likely still reading: stopped
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # reaped: no process of that id is left
    assert aside.plain_lines() is None
