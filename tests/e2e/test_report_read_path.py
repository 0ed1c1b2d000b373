"""``assay report RUN`` prints the report ``assay.runs`` reads, the viewer's read path."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import RunAssay
from tests.run_stores import fill_store

from assay.metrics import IntervalSetting
from assay.runs import report_for_run
from assay.store import open_store


def test_assay_report_is_the_stored_report_at_the_asked_level(
    run_assay: RunAssay, tmp_path: Path
) -> None:
    url = fill_store(f"sqlite:///{tmp_path / 'runs.db'}")
    done = run_assay(
        "report", "cand", "--store", url, "-f", "json", "--confidence", "0.9",
        "--interval", "wilson",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    store = open_store(url, read_only=True)
    try:
        expected = report_for_run(store, "cand", interval=IntervalSetting(0.9, "wilson"))
    finally:
        store.close()
    printed = json.loads(done.stdout)
    assert printed == json.loads(expected.model_dump_json())
    assert printed["missing"] == 1 and printed["task_success"]["denominator"] == 6
