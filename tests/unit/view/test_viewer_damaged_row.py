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
    assert page.status_code != 200
    assert 'holds a record assay cannot read: run base, case "E2", trial 1, column outcome: ' in (
        shown
    )
    assert "Traceback" not in shown
    assert listed.status_code == 200
    assert "cand" in listed.text and "base" in listed.text
