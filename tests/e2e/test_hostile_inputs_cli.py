"""Hostile or impossible inputs on the command line: exit 2, one message, no traceback."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from assay.store import open_store

RunAssay = Callable[..., subprocess.CompletedProcess[str]]
POLICY = Path(__file__).parents[2] / "examples" / "policy"
LONG = "x" * 5000


def _refused(done: subprocess.CompletedProcess[str], needle: str) -> None:
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    assert done.stderr.startswith("assay: "), done.stderr
    assert needle in done.stderr


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["score", "policy.jsonl", "/dev/zero"], "not a regular file"),
        (["score", "policy.jsonl", f"/tmp/{LONG}.jsonl"], "File name too long"),
        (["composite", "policy.jsonl", f"/tmp/{LONG}.jsonl"], "File name too long"),
        (["gate", f"/tmp/{LONG}.json", "-r", "task_success>=0"], "File name too long"),
        (["score", "policy.jsonl", "results.jsonl", "-o", "/dev/null/r.txt"], "--output"),
        (["score", "policy.jsonl", "results.jsonl", "-o", f"/tmp/{LONG}.txt"], "--output"),
        (["score", "policy.jsonl", "results.jsonl", "-o", "/dev/stdout"], "not a regular file"),
        (["run", "suite.yaml", "--store", "sqlite:////dev/null/x.db"], "cannot open store"),
        (["runs", "--store", "postgresql://u@127.0.0.1:abc/db"], "not a database URL"),
        (["run", "suite.yaml", "--otlp", "http://127.0.0.1:abc"], "port must be a number"),
        (["run", "suite.yaml", "--otlp", "http://127.0.0.1:99999"], "port must be a number"),
    ],
)
def test_impossible_paths_and_ports_are_one_message(
    run_assay: RunAssay,
    run_assay_process: RunAssay,
    tmp_path: Path,
    args: list[str],
    needle: str,
) -> None:
    # /dev/stdout is the process's own standard output: a pipe only in a process of its own
    run = run_assay_process if "/dev/stdout" in args else run_assay
    # a copy: a command may open the default store, .assay/ in the folder it runs in
    shutil.copytree(POLICY, tmp_path / "policy", ignore=shutil.ignore_patterns(".assay"))
    _refused(run(*args, cwd=tmp_path / "policy"), needle)


@pytest.mark.parametrize(
    ("name", "content", "needle"),
    [
        ("nul.jsonl", b"\x00" * 32, "NUL"),
        ("extra.json", b'{"results": [{"id": "E1", "kind": "abstain"}], "x": 1}', '"x"'),
    ],
)
def test_composite_refuses_what_score_refuses(
    run_assay: RunAssay, tmp_path: Path, name: str, content: bytes, needle: str
) -> None:
    results = tmp_path / name
    results.write_bytes(content)
    dataset = POLICY / "policy.jsonl"
    for command in ("score", "composite"):
        _refused(run_assay(command, dataset, results), needle)


@pytest.mark.parametrize(("name", "content"), [("empty.json", b"[]"), ("blank.jsonl", b"\n\n")])
def test_composite_and_score_read_an_empty_file_alike(
    run_assay: RunAssay, tmp_path: Path, name: str, content: bytes
) -> None:
    """A file with no results is nothing recorded: every case missing, in both commands."""
    results = tmp_path / name
    results.write_bytes(content)
    for command in ("score", "composite"):
        done = run_assay(command, POLICY / "policy.jsonl", results, "--format", "json")
        assert done.returncode == 0, done.stderr
        assert "every case is missing" in done.stderr or '"missing": 6' in done.stdout


# -- a path the system refuses, named where the user wrote it ---------------------------

NAME = "n" * 300  # longer than any file system allows a name (255 bytes)


def _stored_runs(url: str) -> int:
    store = open_store(url, create=False)
    try:
        return len(store.list_runs())
    finally:
        store.close()


def _suite(folder: Path, *extra: str, dataset: str = "policy.jsonl") -> Path:
    for name in ("policy.jsonl", "keyword_assistant.py", "policy-rubric.yaml"):
        (folder / name).write_bytes((POLICY / name).read_bytes())
    suite = folder / "suite.yaml"
    lines = [f"dataset: {dataset}", "target:", "  type: function"]
    lines += ["  callable: keyword_assistant:answer", *extra]
    suite.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return suite


@pytest.mark.parametrize(
    ("extra", "dataset", "needle"),
    [
        ((), f"{NAME}.jsonl", f"suite.yaml:1: dataset {NAME}.jsonl: cannot be read"),
        ((), f"policy.jsonl/{NAME}.jsonl", "suite.yaml:1: dataset policy.jsonl/"),
        (
            ("grader:", "  type: composite", f"  profile: {NAME}.yaml"),
            None,
            "suite.yaml:7: grader.profile",
        ),
        (
            ("grader:", "  type: composite", f"  sources: {NAME}.yaml"),
            None,
            "suite.yaml:7: grader.sources",
        ),
        (
            ("grader:", "  type: judge", f"  settings: {NAME}.yaml"),
            None,
            "suite.yaml:7: grader.settings",
        ),
        ((f"prices: {NAME}.yaml",), None, "suite.yaml:5: prices"),
        (("cache:", f"  path: {NAME}.db"), None, "suite.yaml:6: cache.path"),
    ],
)
def test_a_suite_naming_a_file_the_system_refuses_is_one_located_message(
    run_assay: RunAssay,
    tmp_path: Path,
    extra: tuple[str, ...],
    dataset: str | None,
    needle: str,
) -> None:
    suite = _suite(tmp_path, *extra, dataset=dataset or "policy.jsonl")
    url = f"sqlite:///{tmp_path / 'a.db'}"
    done = run_assay("run", suite, "--store", url, cwd=tmp_path)
    _refused(done, needle)
    assert "File name too long" in done.stderr or "no such file" in done.stderr
    assert _stored_runs(url) == 0


def test_a_dataset_header_naming_a_sources_file_the_system_refuses(
    run_assay: RunAssay, tmp_path: Path
) -> None:
    dataset = tmp_path / "d.yaml"
    dataset.write_text(
        f"sources: {NAME}.yaml\ncases:\n  - {{id: E1, slice: s, question: q, "
        "expected_behavior: abstain}\n",
        encoding="utf-8",
    )
    (tmp_path / "r.jsonl").write_text('{"id": "E1", "kind": "abstain"}\n', encoding="utf-8")
    _refused(run_assay("score", dataset, tmp_path / "r.jsonl"), "d.yaml:1: sources")


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["init", NAME], "DIRECTORY"),
        (["split", "policy.jsonl", "--seed", "1", "-o", "policy.jsonl/x.jsonl"], "--output"),
        (["dedupe", "policy.jsonl", "--write", f"{NAME}.jsonl"], "--output"),
        (["cache", "stats", "--cache-path", f"{NAME}.db"], "--cache-path"),
        (["cache", "clear", "--cache-path", f"{NAME}.db"], "--cache-path"),
        (["import", "inspect", f"{NAME}.eval"], "File name too long"),
        (["import", "promptfoo", f"{NAME}.json"], "File name too long"),
        (["calibrate", f"{NAME}.jsonl", "judged.json"], "File name too long"),
    ],
)
def test_an_option_or_argument_naming_a_path_the_system_refuses(
    run_assay: RunAssay, tmp_path: Path, args: list[str], needle: str
) -> None:
    (tmp_path / "policy.jsonl").write_bytes((POLICY / "policy.jsonl").read_bytes())
    _refused(run_assay(*args, cwd=tmp_path), needle)


def test_export_to_a_path_the_system_refuses(
    run_assay: RunAssay, run_store: tuple[str, Path], tmp_path: Path
) -> None:
    url, _ = run_store
    done = run_assay("export", "base", "--store", url, "-f", "inspect", "-o", tmp_path / NAME)
    _refused(done, "--output")


# -- a target address that cannot be sent ------------------------------------------------


@pytest.mark.parametrize(
    ("target", "needle"),
    [
        (["type: http", 'url: "http://127.0.0.1:abc/x"'], "suite.yaml:4: target.url: the port"),
        (["type: http", 'url: "http://127.0.0.1:99999/x"'], "suite.yaml:4: target.url: the port"),
        (["type: http", 'url: "http://[::1/x"'], "suite.yaml:4: target.url: not a URL"),
        (["type: http", 'url: "http://"'], "suite.yaml:4: target.url: the URL names no host"),
        (["type: http", 'url: "http:///x"'], "suite.yaml:4: target.url: the URL names no host"),
        (["type: http", 'url: "http://a b/x"'], "suite.yaml:4: target.url: a URL may not hold"),
        (["type: http", 'url: "127.0.0.1:8000/x"'], "suite.yaml:4: target.url"),
        (
            ["type: http", 'url: "http://127.0.0.1:9/x"', "headers:", '  X-A: "a\\nb"'],
            "suite.yaml:5: target.headers: header 'X-A': its value holds a line break",
        ),
        (
            ["type: http", 'url: "http://127.0.0.1:9/x"', "headers_env:", '  "X A": KEY'],
            "suite.yaml:5: target.headers_env: header 'X A'",
        ),
        (
            ["type: openai", "model: m", 'base_url: "http://[::1/v1"'],
            "suite.yaml:5: target.base_url: not a URL",
        ),
        (
            ["type: openai", "model: m", 'base_url: "http://127.0.0.1:abc/v1"'],
            "suite.yaml:5: target.base_url: the port",
        ),
    ],
)
def test_a_target_address_that_cannot_be_sent_is_refused_before_anything_runs(
    run_assay: RunAssay, tmp_path: Path, target: list[str], needle: str
) -> None:
    (tmp_path / "policy.jsonl").write_bytes((POLICY / "policy.jsonl").read_bytes())
    suite = tmp_path / "suite.yaml"
    body = ["dataset: policy.jsonl", "target:", *(f"  {line}" for line in target)]
    suite.write_text("\n".join(body) + "\n", encoding="utf-8")
    url = f"sqlite:///{tmp_path / 'a.db'}"
    _refused(run_assay("run", suite, "--store", url, cwd=tmp_path), needle)
    assert _stored_runs(url) == 0  # refused before anything ran


def test_a_judge_base_url_that_cannot_be_sent_is_refused_with_its_line(
    run_assay: RunAssay, tmp_path: Path
) -> None:
    judge = tmp_path / "judge.yaml"
    judge.write_text('base_url: "http://127.0.0.1:abc/v1"\nmodel: m\n', encoding="utf-8")
    done = run_assay(
        "score", POLICY / "policy.jsonl", POLICY / "answers-text.jsonl", "--grader", judge
    )
    _refused(done, "judge.yaml:1: base_url: the port must be a number")


# -- very many keys on one line ------------------------------------------------------------


def test_a_results_line_of_100_000_keys_is_refused_with_one_short_message(
    run_assay: RunAssay, tmp_path: Path
) -> None:
    line = {"id": "E1", "kind": "answer", "fact": "x", **{f"k{i}": i for i in range(100_000)}}
    results = tmp_path / "wide.jsonl"
    results.write_text(json.dumps(line) + "\n", encoding="utf-8")
    done = run_assay("score", POLICY / "policy.jsonl", results)
    _refused(done, 'wide.jsonl:1: unknown field "k0"')
    assert "wide.jsonl:1: … and 99,980 more unknown fields" in done.stderr
    assert done.stderr.count('unknown field "') == 20
