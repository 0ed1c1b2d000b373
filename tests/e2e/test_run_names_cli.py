"""Runs can be named and found by name or as ``latest`` / ``latest~N`` wherever a run id is
accepted; ``assay runs`` shows the suite's ``name:``; ``assay runs delete`` removes runs
and nothing else."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.inprocess import Result, run_inprocess

POLICY = Path(__file__).resolve().parents[2] / "examples" / "policy"


@pytest.fixture
def stored(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[str, list[str]]:
    """A store with three runs of the policy suite, the second named 'nightly'; their ids,
    oldest first."""
    store = f"sqlite:///{tmp_path / 'assay.db'}"
    ids = []
    for name in (None, "nightly", None):
        extra = ["--name", name] if name else []
        done = run_inprocess(
            capsys, "run", POLICY / "suite.yaml", "--store", store, "-f", "json", *extra
        )
        assert done.returncode in (0, 1), done.stderr
        ids.append(json.loads(done.stdout)["run_id"])
    return store, ids


def _assay(capsys: pytest.CaptureFixture[str], store: str, *args: str) -> Result:
    return run_inprocess(capsys, *args, "--store", store)


def test_latest_and_names_find_runs_everywhere(
    stored: tuple[str, list[str]], capsys: pytest.CaptureFixture[str]
) -> None:
    store, ids = stored
    for ref, expected in (("latest", ids[2]), ("latest~1", ids[1]), ("latest~2", ids[0])):
        done = _assay(capsys, store, "report", ref, "-f", "json")
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["run_id"] == expected
    named = _assay(capsys, store, "report", "nightly", "-f", "json")
    assert json.loads(named.stdout)["run_id"] == ids[1]
    compared = _assay(capsys, store, "compare", "latest~1", "latest", "-f", "json")
    assert compared.returncode == 0, compared.stderr
    sides = json.loads(compared.stdout)
    assert (sides["baseline"]["run_id"], sides["candidate"]["run_id"]) == (ids[1], ids[2])
    assert not any(c["key"].startswith("assay.") for c in sides["config_diff"])
    gated = _assay(capsys, store, "gate", "nightly", "--rule", "errors<=1")
    assert gated.returncode == 0, gated.stderr
    too_far = _assay(capsys, store, "report", "latest~3")
    assert too_far.returncode == 2
    assert "holds 3 runs; latest~2 is the oldest" in too_far.stderr


def test_runs_lists_the_suite_name_and_the_run_name(
    stored: tuple[str, list[str]], capsys: pytest.CaptureFixture[str]
) -> None:
    store, ids = stored
    listed = _assay(capsys, store, "runs")
    assert listed.returncode == 0, listed.stderr
    assert "policy-keyword-assistant" in listed.stdout
    assert "suite.yaml" not in listed.stdout
    assert ids[1] in listed.stdout and "(nightly)" in listed.stdout


def test_a_taken_or_reserved_name_is_refused(
    stored: tuple[str, list[str]], capsys: pytest.CaptureFixture[str]
) -> None:
    store, ids = stored
    for name, message in (
        ("nightly", f"run name 'nightly' is taken by run {ids[1]}"),
        ("latest", "not 'latest'"),
        ("two words", "a name is 1 to 64 letters"),
    ):
        done = run_inprocess(capsys, "run", POLICY / "suite.yaml", "--store", store, "--name", name)
        assert done.returncode == 2
        assert message in done.stderr
    assert len(json.loads(_assay(capsys, store, "runs", "-f", "json").stdout)) == 3


def test_delete_removes_only_the_named_runs(
    stored: tuple[str, list[str]], capsys: pytest.CaptureFixture[str]
) -> None:
    store, ids = stored
    unconfirmed = _assay(capsys, store, "runs", "delete", "nightly")
    assert unconfirmed.returncode == 2
    assert "needs confirmation: add --yes" in unconfirmed.stderr
    done = _assay(capsys, store, "runs", "delete", "nightly", "latest~2", "--yes")
    assert done.returncode == 0, done.stderr
    assert f"deleted {ids[1]}" in done.stdout and f"deleted {ids[0]}" in done.stdout
    left = json.loads(_assay(capsys, store, "runs", "-f", "json").stdout)
    assert [r["id"] for r in left] == [ids[2]]
    report = _assay(capsys, store, "report", ids[2], "-f", "json")
    assert json.loads(report.stdout)["total"] == 6
    gone = _assay(capsys, store, "report", ids[1])
    assert gone.returncode == 2


def test_delete_refuses_a_run_being_written(
    stored: tuple[str, list[str]], capsys: pytest.CaptureFixture[str]
) -> None:
    from assay.store import open_store

    store, ids = stored
    holder = open_store(store)
    claim = holder.claim(ids[2])
    try:
        done = _assay(capsys, store, "runs", "delete", "latest", "--yes")
    finally:
        claim.release()
        holder.close()
    assert done.returncode == 2
    assert ids[2] in done.stderr
    assert len(json.loads(_assay(capsys, store, "runs", "-f", "json").stdout)) == 3


def test_reports_of_a_run_are_titled_with_the_suite_and_run_names(
    stored: tuple[str, list[str]], capsys: pytest.CaptureFixture[str]
) -> None:
    store, _ = stored
    text = _assay(capsys, store, "report", "nightly")
    assert text.stdout.startswith("assay report · policy-keyword-assistant (nightly) · dataset")
    markdown = _assay(capsys, store, "report", "latest", "-f", "markdown")
    assert markdown.stdout.startswith("## assay report: policy-keyword-assistant\n")
    html = _assay(capsys, store, "report", "latest", "-f", "html")
    assert "<title>assay report · policy-keyword-assistant</title>" in html.stdout
    assert "<h1>policy-keyword-assistant</h1>" in html.stdout
