"""The viewer names a damaged stored row as the CLI does: the run's page shows the one
message (run, case, trial, column), the list of runs still lists every run."""

from __future__ import annotations

import html
import sqlite3
from pathlib import Path

from starlette.testclient import TestClient
from tests.run_stores import fill_store

from assay.store import open_store
from assay.view import create_app


def test_a_damaged_record_is_named_on_its_run_page(tmp_path: Path) -> None:
    path = tmp_path / "runs.db"
    url = fill_store(f"sqlite:///{path}")
    with sqlite3.connect(path) as conn:
        conn.execute(
            "UPDATE records SET outcome = 'not an outcome' WHERE run_id = 'base' AND case_id = 'E2'"
        )
    reader = open_store(url, read_only=True)
    try:
        with TestClient(create_app(reader), base_url="http://127.0.0.1") as client:
            page = client.get("/runs/base")
            listed = client.get("/")
    finally:
        reader.close()
    shown = html.unescape(page.text)
    assert page.status_code == 500  # there, but cannot be read: not "not found"
    assert "Damaged store" in shown
    assert 'holds a record assay cannot read: run base, case "E2", trial 1, column outcome: ' in (
        shown
    )
    assert "Traceback" not in shown
    assert listed.status_code == 200
    assert "cand" in listed.text and "base" in listed.text


def test_a_damaged_row_is_a_500_with_its_message_and_an_unknown_run_a_404(tmp_path: Path) -> None:
    path = tmp_path / "runs.db"
    url = fill_store(f"sqlite:///{path}")
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE records SET outcome = 'not an outcome' WHERE case_id = 'E1'")
    named = 'holds a record assay cannot read: run cand, case "E1", trial 1, column outcome: '
    reader = open_store(url, read_only=True)
    try:
        with TestClient(create_app(reader), base_url="http://127.0.0.1") as client:
            as_json = client.get("/runs/cand/report.json")
            compared = client.get("/compare.json", params={"baseline": "base", "candidate": "cand"})
            page = client.get("/compare", params={"baseline": "base", "candidate": "cand"})
            case = client.get("/case", params={"id": "E1"})
            missing = client.get("/runs/nope")
            missing_json = client.get("/runs/nope/report.json")
            no_case = client.get("/case", params={"id": "E99"})
    finally:
        reader.close()
    assert as_json.status_code == 500
    assert named in as_json.json()["error"]
    assert as_json.json()["error"].count("\n") == 0
    assert compared.status_code == 500 and "assay cannot read: run " in compared.json()["error"]
    assert page.status_code == 500 and "Damaged store" in page.text
    # every run that may hold the case is damaged: the page cannot say it is not there
    assert case.status_code == 500 and "assay cannot read" in html.unescape(case.text)
    assert missing.status_code == 404 and "no run 'nope'" in html.unescape(missing.text)
    assert missing_json.status_code == 404 and "no run 'nope'" in missing_json.json()["error"]
    assert no_case.status_code == 500  # it may be in a run that cannot be read
