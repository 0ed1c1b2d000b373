"""``--output`` names the format when ``--format`` does not; a contradiction or a name that
says nothing is refused; a written report is announced in one line; ``run -f html`` draws
the trace waterfalls like ``report -f html``."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from tests.inprocess import run_inprocess

POLICY = Path(__file__).resolve().parents[2] / "examples" / "policy"
SCORE = ("score", POLICY / "policy-e7.jsonl", POLICY / "results.jsonl")


def _spans_in(html: str) -> dict[str, list[object]]:
    match = re.search(r'<script type="application/json" id="assay-data">(.*?)</script>', html, re.S)
    assert match is not None, "the page carries no data"
    spans: dict[str, list[object]] = json.loads(match.group(1))["spans"]
    return spans


@pytest.mark.parametrize(
    ("name", "check"),
    [
        ("r.json", lambda t: json.loads(t)["total"] == 7),
        ("r.md", lambda t: t.startswith("#")),
        ("r.html", lambda t: t.startswith("<!doctype html>")),
        ("r.xml", lambda t: t.startswith("<?xml")),
        ("r.txt", lambda t: "Task success" in t),
    ],
)
def test_the_extension_names_the_format(
    name: str, check: object, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / name
    done = run_inprocess(capsys, *SCORE, "-o", out)
    assert done.returncode == 0, done.stderr
    assert callable(check) and check(out.read_text(encoding="utf-8"))
    assert done.stdout == ""
    assert done.stderr.startswith(f"assay: wrote {out}: ")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("-o", "r.csv"), "cannot tell the format from '.csv'; give --format"),
        (("-o", "report"), "cannot tell the format from a name without an extension"),
        (("-f", "html", "-o", "r.json"), "the name says json but --format is html"),
    ],
)
def test_an_unknown_or_contradicted_extension_is_refused(
    args: tuple[str, ...], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    named = [str(tmp_path / a) if a.startswith("r") else a for a in args]
    done = run_inprocess(capsys, *SCORE, *named)
    assert done.returncode == 2
    assert message in done.stderr
    assert "Traceback" not in done.stderr
    assert list(tmp_path.iterdir()) == []


def test_an_explicit_format_with_an_unnamed_extension_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "report.log"
    done = run_inprocess(capsys, *SCORE, "-f", "json", "-o", out)
    assert done.returncode == 0, done.stderr
    assert json.loads(out.read_text(encoding="utf-8"))["total"] == 7


def test_run_html_has_the_waterfalls_report_html_has(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = f"sqlite:///{tmp_path / 'assay.db'}"
    ran = tmp_path / "run.html"
    done = run_inprocess(
        capsys, "run", POLICY / "suite.yaml", "--trace", "--store", store, "-o", ran
    )
    assert done.returncode in (0, 1), done.stderr
    run_id = re.search(r"run (\S+) \(", done.stderr)
    assert run_id is not None, done.stderr
    assert f"assay: wrote {ran}: html report of run {run_id.group(1)} (6 cases)" in done.stderr
    again = tmp_path / "report.html"
    reported = run_inprocess(capsys, "report", run_id.group(1), "--store", store, "-o", again)
    assert reported.returncode == 0, reported.stderr
    assert reported.stderr == (
        f"assay: wrote {again}: html report of run {run_id.group(1)} (6 cases)\n"
    )
    from_run, from_report = (_spans_in(p.read_text(encoding="utf-8")) for p in (ran, again))
    assert from_run and from_run == from_report


def test_report_json_by_extension(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = f"sqlite:///{tmp_path / 'assay.db'}"
    done = run_inprocess(capsys, "run", POLICY / "suite.yaml", "--store", store, "-f", "json")
    run_id = json.loads(done.stdout)["run_id"]
    out = tmp_path / "r.json"
    reported = run_inprocess(capsys, "report", run_id, "--store", store, "-o", out)
    assert reported.returncode == 0, reported.stderr
    assert json.loads(out.read_text(encoding="utf-8"))["run_id"] == run_id


def test_run_html_and_report_html_are_the_same_page(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = f"sqlite:///{tmp_path / 'assay.db'}"
    ran = tmp_path / "run.html"
    done = run_inprocess(
        capsys, "run", POLICY / "suite.yaml", "--trace", "--store", store, "-f", "html", "-o", ran
    )
    assert done.returncode in (0, 1), done.stderr
    run_id = re.search(r"run (\S+) \(", done.stderr)
    assert run_id is not None, done.stderr
    again = tmp_path / "report.html"
    reported = run_inprocess(
        capsys, "report", run_id.group(1), "--store", store, "-f", "html", "-o", again
    )
    assert reported.returncode == 0, reported.stderr
    page = ran.read_text(encoding="utf-8")
    assert _spans_in(page)
    assert page == again.read_text(encoding="utf-8")
