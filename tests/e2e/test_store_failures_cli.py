"""Store failures through the real CLI: a damaged store file is one message and exit 2 in
every command that opens it; a full disk stops a run as ``interrupted`` and a resume
finishes it; a store on a read-only mount, or an immutable file, can still be read.

The full-disk and read-only cases mount a small tmpfs and use ``chattr``: they run where
the test may mount (root in a container or VM) and are skipped elsewhere."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.conftest import RunAssay

from assay.store import open_store

ROOT = Path(__file__).resolve().parents[2]
POLICY = ROOT / "examples" / "policy"


def _assay(*args: str | Path, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1"}
    env.pop("ASSAY_STORE", None)
    return subprocess.run(
        [sys.executable, "-m", "assay", *map(str, args)],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False,
    )  # fmt: skip


def _suite(folder: Path, cases: int = 30, text_size: int = 1500) -> Path:
    rows = [
        {"id": f"C{i:03d}", "slice": "s", "question": "q" * 200, "expected_behavior": "answer",
         "expected_fact": "f"}
        for i in range(cases)
    ]  # fmt: skip
    (folder / "cases.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    suite = folder / "suite.yaml"
    suite.write_text(
        "dataset: cases.jsonl\ntarget:\n  type: scripted\n  default: {kind: answer, fact: f, "
        f"text: {json.dumps('x' * text_size)}}}\nconcurrency: 2\ntrials: 2\ntrace: true\n"
    )
    return suite


def _recorded(tmp_path: Path, store: Path) -> str:
    ran = _assay("run", _suite(tmp_path, cases=6), "--store", store, "-f", "json", cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    return str(json.loads(ran.stdout)["run_id"])


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _commands(run_id: str, store: Path, suite: Path) -> list[tuple[str | Path, ...]]:
    return [
        ("runs", "--store", store),
        ("report", run_id, "--store", store),
        ("report", run_id, "--store", store, "--format", "html"),
        ("trace", run_id, "C001", "--store", store),
        ("diagnose", run_id, "C001", "--store", store),
        ("compare", run_id, run_id, "--store", store),
        ("gate", run_id, "--store", store, "--rule", "task_success>=0.5"),
        ("composite", suite.parent / "cases.jsonl", run_id, "--store", store),
        ("run", suite, "--store", store),
        ("run", "--resume", run_id, "--store", store),
    ]


def test_a_damaged_store_is_one_message_and_exit_2_in_every_command(tmp_path: Path) -> None:
    store = tmp_path / "runs.db"
    run_id = _recorded(tmp_path, store)
    data = store.read_bytes()
    store.write_bytes(data[: len(data) // 2])  # truncated, as by a full disk or a bad copy
    before = _digest(store)
    for command in [*_commands(run_id, store, tmp_path / "suite.yaml"), ("view", "--store", store)]:
        done = _assay(*command, cwd=tmp_path)
        assert done.returncode == 2, (command, done.stdout, done.stderr)
        assert "Traceback" not in done.stderr, (command, done.stderr)
        assert done.stderr.startswith("assay: "), (command, done.stderr)
        assert "damaged" in done.stderr or "cannot open store" in done.stderr, done.stderr
    assert _digest(store) == before


@pytest.fixture
def mounted(tmp_path: Path) -> Iterator[Path]:
    """A 1.2 MB tmpfs at a fresh directory (skipped where mounting is not allowed)."""
    point = tmp_path / f"mnt-{uuid.uuid4().hex[:6]}"
    point.mkdir()
    made = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=1200k", "tmpfs", str(point)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    if made.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {made.stderr.strip()}")
    try:
        yield point
    finally:
        subprocess.run(["umount", "-l", str(point)], capture_output=True, check=False)


def _remount(point: Path, options: str) -> None:
    subprocess.run(["mount", "-o", f"remount,{options}", str(point)], check=True)


def _keys(store: Path) -> list[tuple[str, int]]:
    with sqlite3.connect(f"{store.resolve().as_uri()}?mode=ro", uri=True) as conn:
        return [tuple(r) for r in conn.execute("SELECT case_id, trial FROM records")]


def test_a_full_disk_stops_the_run_as_interrupted_and_resume_finishes_it(
    tmp_path: Path, mounted: Path
) -> None:
    suite = _suite(tmp_path, cases=150)
    store = mounted / "runs.db"
    ran = _assay("run", suite, "--store", store, cwd=tmp_path)
    assert ran.returncode == 2, ran.stderr
    assert "Traceback" not in ran.stderr
    assert "database or disk is full" in ran.stderr and "--resume" in ran.stderr
    listed = _assay("runs", "--store", store, "--format", "json", cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr  # a full disk can still be read
    (run,) = json.loads(listed.stdout)
    assert run["status"] == "interrupted"
    kept = _keys(store)
    assert 0 < len(kept) < 300

    _remount(mounted, "size=8m")  # room again
    resumed = _assay("run", "--resume", run["id"], "--store", store, "-f", "json", cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    keys = _keys(store)
    assert set(kept) <= set(keys)
    assert len(keys) == len(set(keys)) == 300


def test_a_store_on_a_read_only_mount_can_be_read_but_not_run_into(
    tmp_path: Path, mounted: Path
) -> None:
    store = mounted / "runs.db"
    run_id = _recorded(tmp_path, store)
    _remount(mounted, "ro")
    before = _digest(store)
    for command in (
        ("runs", "--store", store),
        ("report", run_id, "--store", store, "--format", "json"),
        ("trace", run_id, "C001", "--store", store),
        ("diagnose", run_id, "C001", "--store", store),
        ("compare", run_id, run_id, "--store", store),
    ):
        done = _assay(*command, cwd=tmp_path)
        assert done.returncode == 0, (command, done.stderr)
    viewer = open_store(f"sqlite:///{store}", read_only=True)  # what `assay view` serves from
    try:
        assert [run.id for run in viewer.list_runs()] == [run_id]
        assert len(viewer.records(run_id)) == 12
    finally:
        viewer.close()
    refused = _assay("run", tmp_path / "suite.yaml", "--store", store, cwd=tmp_path)
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert "read-only" in refused.stderr
    assert _digest(store) == before


def test_an_immutable_store_file_can_be_read_and_a_run_is_refused(tmp_path: Path) -> None:
    if shutil.which("chattr") is None:
        pytest.skip("chattr is not installed")
    store = tmp_path / "runs.db"
    run_id = _recorded(tmp_path, store)
    made = subprocess.run(["chattr", "+i", str(store)], capture_output=True, text=True)
    if made.returncode != 0:
        pytest.skip(f"cannot make a file immutable here: {made.stderr.strip()}")
    try:
        before = _digest(store)
        listed = _assay("runs", "--store", store, cwd=tmp_path)
        shown = _assay("report", run_id, "--store", store, cwd=tmp_path)
        assert listed.returncode == 0 and shown.returncode == 0, listed.stderr + shown.stderr
        refused = _assay("run", tmp_path / "suite.yaml", "--store", store, cwd=tmp_path)
        assert refused.returncode == 2 and "Traceback" not in refused.stderr
        assert "read-only" in refused.stderr
        assert _digest(store) == before
    finally:
        subprocess.run(["chattr", "-i", str(store)], capture_output=True, check=False)


# -- a damaged row: named by run, table, case and trial (or cases item), and column ------

_CASE = "C002"
_ROW = f"case_id = '{_CASE}' AND trial = 2"


def _item_changed(conn: sqlite3.Connection, change: str) -> None:
    """The run's cases snapshot with its fourth item (case C003) changed: ``field`` made
    invalid, or its JSON broken."""
    (snapshot,) = conn.execute("SELECT cases FROM runs").fetchone()
    if change == "field":
        items = json.loads(snapshot)
        items[3]["expected_behavior"] = "maybe"
        snapshot = json.dumps(items, sort_keys=True, separators=(",", ":"))
    else:
        snapshot = snapshot.replace('"id":"C003"', '"id":C003"', 1)
    conn.execute("UPDATE runs SET cases = ?", (snapshot,))


# (damage, SQL or snapshot change, the pattern of what the message names, commands)
_DAMAGES: list[tuple[str, str, str, tuple[str, ...]]] = [
    ("record outcome", f"UPDATE records SET outcome = 'not an outcome' WHERE {_ROW}",
     f'a record assay cannot read: run {{run}}, case "{_CASE}", trial 2, column outcome: ',
     ("report", "report-text", "export", "trace", "diagnose", "compare", "gate")),
    ("record outcome kind", f"UPDATE records SET outcome = '{{\"kind\":\"maybe\"}}' WHERE {_ROW}",
     f'a record assay cannot read: run {{run}}, case "{_CASE}", trial 2, column outcome: ',
     ("report", "export", "compare", "gate")),
    ("record outcome, another kind",
     f"UPDATE records SET outcome = '{{\"kind\":\"abstain\"}}' WHERE {_ROW}",
     f'a record assay cannot read: run {{run}}, case "{_CASE}", trial 2, column outcome: '
     "'{{\"kind\":\"abstain\"}}' is not of the kind stored beside it \\('answer'\\)",
     ("compare", "gate", "report-text")),
    ("record extra", f"UPDATE records SET extra = '{{broken' WHERE {_ROW}",
     f'a record assay cannot read: run {{run}}, case "{_CASE}", trial 2, column extra: ',
     ("report", "export", "diagnose")),
    ("record latency", f"UPDATE records SET latency_ms = 'fast' WHERE {_ROW}",
     f'a record assay cannot read: run {{run}}, case "{_CASE}", trial 2, column latency_ms: ',
     ("report", "compare", "gate", "export")),
    ("record input tokens, a text", f"UPDATE records SET input_tokens = 'many' WHERE {_ROW}",
     f'a record assay cannot read: run {{run}}, case "{_CASE}", trial 2, column input_tokens: '
     "'many' is not a whole number of tokens",
     ("report", "report-text", "compare", "gate")),
    ("record output tokens, a fraction", f"UPDATE records SET output_tokens = 2.5 WHERE {_ROW}",
     f'a record assay cannot read: run {{run}}, case "{_CASE}", trial 2, column output_tokens: '
     "2.5 is not a whole number of tokens", ("report", "report-text", "compare", "gate")),
    ("record output tokens, bytes", f"UPDATE records SET output_tokens = X'00ff' WHERE {_ROW}",
     f'a record assay cannot read: run {{run}}, case "{_CASE}", trial 2, column output_tokens: ',
     ("report", "compare", "gate", "export")),
    ("record latency, bytes", f"UPDATE records SET latency_ms = X'01' WHERE {_ROW}",
     f'a record assay cannot read: run {{run}}, case "{_CASE}", trial 2, column latency_ms: ',
     ("report", "report-text", "compare", "gate")),
    ("judgment labels", f"UPDATE judgments SET labels = 'not json' WHERE {_ROW}",
     f'a judgment assay cannot read: run {{run}}, case "{_CASE}", trial 2, column labels: ',
     ("report", "gate", "export", "diagnose")),
    ("judgment score", f"UPDATE judgments SET score = 'high' WHERE {_ROW}",
     f'a judgment assay cannot read: run {{run}}, case "{_CASE}", trial 2, column score: ',
     ("report", "export")),
    ("judgment status", f"UPDATE judgments SET status = 'weird' WHERE {_ROW}",
     f'a judgment assay cannot read: run {{run}}, case "{_CASE}", trial 2, column status: ',
     ("report", "report-text", "compare", "gate", "export")),
    ("cases item", "field",
     'a run assay cannot read: run {run}, column cases, item 4, case "C003": expected_behavior',
     ("report", "export", "diagnose")),
    ("cases item json", "json",
     'a run assay cannot read: run {run}, column cases, item 4: not JSON \\(Expecting value '
     "at character [0-9]+\\)", ("report", "export", "diagnose")),
    ("cases item json, no index", "DELETE FROM case_index; json",
     'a run assay cannot read: run {run}, column cases, item 4: not JSON \\(Expecting value '
     "at character [0-9]+\\)", ("report", "report-text", "export", "diagnose", "compare", "gate")),
    ("cases item, no index", "DELETE FROM case_index; field",
     'a run assay cannot read: run {run}, column cases, item 4, case "C003": expected_behavior',
     ("report", "export")),
    ("case index ids", "UPDATE case_index SET ids = '[broken'",
     "a run's case index assay cannot read: run {run}, column ids: ",
     ("report", "report-text", "compare", "gate")),
    ("case index hashes", "UPDATE case_index SET hashes = '[broken'",
     "a run's case index assay cannot read: run {run}, column hashes: ",
     ("report", "html", "junit")),
    ("case index hashes, too few", "UPDATE case_index SET hashes = '[\"sha256:x\"]'",
     "a run's case index assay cannot read: run {run}, column hashes: 1 hashes for 6 cases",
     ("report", "html", "junit")),
    ("case index hashes, not texts", "UPDATE case_index SET hashes = '[1, 2, 3, 4, 5, 6]'",
     "a run's case index assay cannot read: run {run}, column hashes: ",
     ("report", "html", "junit")),
    ("case index ids, too many", "UPDATE case_index SET ids = substr(ids, 1, length(ids) - 1) "
     "|| ',\"EXTRA\"]'",
     "a run's case index assay cannot read: run {run}, column ids: 7 ids for 6 cases",
     ("report", "report-text", "compare", "gate")),
    ("case index codes past the groups", "UPDATE case_index SET codes = '[0,0,0,0,0,9]'",
     "a run's case index assay cannot read: run {run}, column codes: ",
     ("report", "report-text", "compare", "gate")),
    ("case index slice, a number", "UPDATE case_index SET groups = '[[1, false, \"dev\"]]'",
     "a run's case index assay cannot read: run {run}, column groups: .* is not a JSON array "
     r"of \[slice, synthetic, split\] groups", ("report", "report-text", "compare", "gate")),
    ("case index group, a number", "UPDATE case_index SET groups = '[7]'",
     "a run's case index assay cannot read: run {run}, column groups: '\\[7\\]' is not",
     ("report", "compare", "gate")),
    ("case index slice, an object",
     "UPDATE case_index SET groups = '[[{\"a\": 1}, false, \"dev\"]]'",
     "a run's case index assay cannot read: run {run}, column groups: ",
     ("report", "report-text", "compare", "gate")),
    ("case index codes, texts",
     "UPDATE case_index SET codes = '[\"0\",\"0\",\"0\",\"0\",\"0\",\"0\"]'",
     "a run's case index assay cannot read: run {run}, column codes: .* is not a JSON array of "
     "whole numbers", ("report", "report-text", "compare", "gate")),
    ("case index revisions, a number", "UPDATE case_index SET revisions = '5'",
     "a run's case index assay cannot read: run {run}, column revisions: '5' is not a JSON "
     "array of texts", ("report", "report-text", "html", "gate")),
    ("case index revisions, objects", "UPDATE case_index SET revisions = '[{\"a\": 1}]'",
     "a run's case index assay cannot read: run {run}, column revisions: ",
     ("report", "gate")),
    ("case index ids, numbers", "UPDATE case_index SET ids = '[0, 1, 2, 3, 4, 5]'",
     "a run's case index assay cannot read: run {run}, column ids: .* is not a JSON array of "
     "texts", ("report", "report-text", "compare", "gate")),
    ("case index groups", "UPDATE case_index SET groups = '{'",
     "a run's case index assay cannot read: run {run}, column groups: ",
     ("report", "compare", "gate")),
    ("span attributes", "UPDATE spans SET attributes = '{bad' WHERE rowid = "
     f"(SELECT min(rowid) FROM spans WHERE case_id = '{_CASE}')",
     f'a span assay cannot read: run {{run}}, span "[0-9a-f]+", case "{_CASE}", trial [12], '
     "column attributes: ", ("trace", "diagnose")),
    ("run summary", "UPDATE runs SET summary = '{bad'",
     "a run assay cannot read: run {run}, column summary: ",
     ("runs", "report", "compare", "gate", "export")),
    ("run trial policy", "UPDATE runs SET trial_policy = 'best of'",
     "a run assay cannot read: run {run}, column trial_policy: 'best of' is not valid: ",
     ("runs", "report", "report-text", "gate", "export")),
    ("run cases, bytes", "UPDATE runs SET cases = X'00ff'",
     "a run assay cannot read: run {run}, column cases: b'\\\\x00\\\\xff' is not JSON text",
     ("report", "export", "trace", "diagnose")),
    ("record trial, a fraction", f"UPDATE records SET trial = 1.5 WHERE {_ROW}",
     f'a record assay cannot read: run {{run}}, case "{_CASE}", column trial: 1.5 is not a '
     "whole number", ("report", "report-text", "compare", "gate")),
    ("record trial, a text", f"UPDATE records SET trial = 'second' WHERE {_ROW}",
     f'a record assay cannot read: run {{run}}, case "{_CASE}", column trial: \'second\' is not '
     "a whole number", ("report", "report-text", "compare", "gate")),
    ("record trial, past the run's", f"UPDATE records SET trial = 7 WHERE {_ROW}",
     f'a record assay cannot read: run {{run}}, case "{_CASE}", trial 7, column trial: 7 is '
     "outside the run's trials, 1 to 2",
     ("report", "report-text", "html", "junit", "export", "compare", "gate")),
    ("record trial, zero", f"UPDATE records SET trial = 0 WHERE {_ROW}",
     f'a record assay cannot read: run {{run}}, case "{_CASE}", trial 0, column trial: 0 is '
     "outside the run's trials, 1 to 2",
     ("report", "report-text", "export", "compare", "gate")),
    ("judgment trial, a fraction", f"UPDATE judgments SET trial = 1.5 WHERE {_ROW}",
     f'a judgment assay cannot read: run {{run}}, case "{_CASE}", column trial: 1.5 is not a '
     "whole number", ("report", "report-text", "gate")),
    ("record position, a fraction", f"UPDATE records SET position = 2.5 WHERE {_ROW}",
     f'a record assay cannot read: run {{run}}, case "{_CASE}", trial 2, column position: 2.5 '
     "is not a whole number", ("report", "report-text", "compare", "gate")),
    ("record position, another case's", f"UPDATE records SET position = 4 WHERE {_ROW}",
     f'a record assay cannot read: run {{run}}, case "{_CASE}", trial 2, column position: 4 is '
     "the position of case 'C004'", ("report", "report-text", "gate")),
    ("record position, no case's", f"UPDATE records SET position = -1 WHERE {_ROW}",
     f'a record assay cannot read: run {{run}}, case "{_CASE}", trial 2, column position: -1 '
     "is the position of none of the run's 6 cases", ("report", "report-text", "compare", "gate")),
    ("record case id, bytes", f"UPDATE records SET case_id = X'00ff' WHERE {_ROW}",
     "a record assay cannot read: run {run}, (trial 2, )?column case_id: ",
     ("compare", "export", "trace")),
    ("run start", "UPDATE runs SET started_at = 'yesterday'",
     "a run assay cannot read: run {run}, column started_at: ", ("runs", "report")),
]  # fmt: skip


def _reading(command: str, run_id: str, out: Path) -> list[str | Path]:
    return {
        "report": ["report", run_id, "-f", "json", "-o", out],
        "report-text": ["report", run_id, "-o", out],
        "html": ["report", run_id, "-f", "html", "-o", out],
        "junit": ["report", run_id, "-f", "junit", "-o", out],
        "export": ["export", run_id, "-f", "jsonl", "-o", out],
        "trace": ["trace", run_id, _CASE],
        "diagnose": ["diagnose", run_id, _CASE],
        "compare": ["compare", run_id, run_id, "-f", "json", "-o", out],
        "gate": ["gate", run_id, "--rule", "task_success>=0.5"],
        "runs": ["runs"],
    }[command]


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """(store file, run id) of a run of 6 cases, 2 trials, traced: every row to damage."""
    folder = tmp_path_factory.mktemp("recorded")
    store = folder / "runs.db"
    return store, _recorded(folder, store)


@pytest.mark.parametrize(("damage", "change", "named", "commands"), _DAMAGES, ids=lambda x: x)
def test_a_damaged_row_is_named_by_every_command_that_reads_it(
    run_assay: RunAssay,
    recorded: tuple[Path, str],
    tmp_path: Path,
    damage: str,
    change: str,
    named: str,
    commands: tuple[str, ...],
) -> None:
    store = tmp_path / "runs.db"
    shutil.copy(recorded[0], store)
    run_id = recorded[1]
    with sqlite3.connect(store) as conn:
        for step in change.split("; "):
            if step in ("field", "json"):
                _item_changed(conn, step)
            else:
                conn.execute(step)
    before = _digest(store)
    for command in commands:
        suffix = {"report-text": "txt", "html": "html", "junit": "xml"}.get(command, "json")
        out = tmp_path / f"{command}.{suffix}"
        done = run_assay(*_reading(command, run_id, out), "--store", store, cwd=tmp_path)
        assert done.returncode == 2, (damage, command, done.stdout, done.stderr)
        message = done.stderr
        assert message.startswith(f"assay: the store sqlite:///{store} holds "), message
        assert message.count("\n") == 1, message  # one line
        assert "Traceback" not in message
        assert re.search(named.format(run=re.escape(run_id)), message), (damage, command, message)
        assert "changed outside assay or is damaged" in message
        assert "not an assay store" not in message
        assert not out.exists(), (damage, command)
    assert _digest(store) == before


def test_an_item_that_is_not_json_is_named_alike_on_every_path(
    run_assay: RunAssay, recorded: tuple[Path, str], tmp_path: Path
) -> None:
    """With the case index or without it, read item by item or as the whole snapshot:
    the same line, the offset counted within the item as the item read alone gives it."""
    run_id = recorded[1]
    messages = set()
    for indexed in (True, False):
        store = tmp_path / f"runs-{indexed}.db"
        shutil.copy(recorded[0], store)
        with sqlite3.connect(store) as conn:
            (snapshot,) = conn.execute("SELECT cases FROM runs").fetchone()
            item = json.dumps(json.loads(snapshot)[3], sort_keys=True, separators=(",", ":"))
            _item_changed(conn, "json")
            if not indexed:
                conn.execute("DELETE FROM case_index")
        with pytest.raises(json.JSONDecodeError) as alone:
            json.loads(item.replace('"id":"C003"', '"id":C003"', 1))
        for command in ("report", "export", "diagnose", "trace"):
            done = run_assay(*_reading(command, run_id, tmp_path / "out"), "--store", store)
            assert done.returncode == 2, done.stderr
            messages.add(done.stderr.split(f"run {run_id}, ", 1)[1].split(";", 1)[0])
    assert messages == {
        f"column cases, item 4: not JSON (Expecting value at character {alone.value.pos})"
    }
