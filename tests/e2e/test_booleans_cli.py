"""One strict boolean parser for every dataset format: the same cell means the same thing
in CSV, JSONL, YAML and JSON, and an unknown value is an error at its line."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

RunAssay = Callable[..., subprocess.CompletedProcess[str]]
HEADER = "id,slice,question,expected_behavior,expected_fact,synthetic\n"


def _write(tmp_path: Path, fmt: str, flag: str) -> Path:
    rows = [
        {"id": "A", "slice": "s", "question": "q", "expected_behavior": "answer",
         "expected_fact": "f"},
        {"id": "S", "slice": "s", "question": "q", "expected_behavior": "answer",
         "expected_fact": "f", "synthetic": flag},
    ]  # fmt: skip
    path = tmp_path / f"ds.{fmt}"
    if fmt == "csv":
        path.write_text(HEADER + "A,s,q,answer,f,\n" + f"S,s,q,answer,f,{flag}\n", "utf-8")
    elif fmt == "jsonl":
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    elif fmt == "json":
        path.write_text(json.dumps(rows, indent=1), "utf-8")
    else:
        path.write_text(
            "".join(
                f"- {{id: {r['id']}, slice: s, question: q, expected_behavior: answer, "
                f"expected_fact: f{', synthetic: ' + repr(flag) if 'synthetic' in r else ''}}}\n"
                for r in rows
            ),
            "utf-8",
        )
    return path


@pytest.mark.parametrize("fmt", ["csv", "jsonl", "json", "yaml"])
@pytest.mark.parametrize(("flag", "synthetic"), [("y", True), ("yes", True), ("no", False)])
def test_the_same_value_means_the_same_in_every_format(
    run_assay: RunAssay, tmp_path: Path, fmt: str, flag: str, synthetic: bool
) -> None:
    results = tmp_path / "res.jsonl"
    results.write_text('{"id": "A", "kind": "answer", "fact": "f"}\n', "utf-8")
    done = run_assay("score", _write(tmp_path, fmt, flag), results, "-f", "json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert [c["synthetic"] for c in data["cases"] if c["id"] == "S"] == [synthetic]
    assert data["dataset"]["cases"] == (1 if synthetic else 2)


@pytest.mark.parametrize("fmt", ["csv", "jsonl", "json", "yaml"])
def test_an_unknown_value_is_an_error_at_its_line(
    run_assay: RunAssay, tmp_path: Path, fmt: str
) -> None:
    results = tmp_path / "res.jsonl"
    results.write_text('{"id": "A", "kind": "answer", "fact": "f"}\n', "utf-8")
    path = _write(tmp_path, fmt, "maybe")
    done = run_assay("score", path, results)
    assert done.returncode == 2 and done.stdout == ""
    line = {"csv": 3, "jsonl": 2, "json": 9, "yaml": 2}[fmt]
    assert f"{path}:{line}: synthetic: input should be a valid boolean" in done.stderr
    assert "'maybe'" in done.stderr and "Traceback" not in done.stderr
