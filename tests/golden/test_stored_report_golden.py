"""The JSON report of each run in a fixed store stays the same, byte for byte.

The store holds recorded outcomes (see ``stores/README.md``); nothing is re-run. To accept a
deliberate change of the report, regenerate and review the diff:

    ASSAY_UPDATE_GOLDEN=1 .venv/bin/pytest tests/golden/test_stored_report_golden.py
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from tests.golden._inputs import GOLDEN_VERSION, HERE

from assay._version import __version__
from assay.cli import main

UPDATE = os.environ.get("ASSAY_UPDATE_GOLDEN") == "1"
STORE = HERE / "stores" / "runs.db"
RUNS = {"policy": "20261201-051755-bcaa14", "mock-faults": "20261201-051802-969941"}


def _report(store: Path, run_id: str, capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit) as exit_info:
        main(["report", run_id, "--store", f"sqlite:///{store}", "--format", "json"])
    captured = capsys.readouterr()
    assert exit_info.value.code in (0, None), captured.err
    # The version of assay that renders is not a property of the recorded run.
    return captured.out.replace(
        f'"assay_version": "{__version__}"', f'"assay_version": "{GOLDEN_VERSION}"', 1
    )


@pytest.mark.parametrize("name", sorted(RUNS))
def test_stored_run_report_matches_snapshot(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = tmp_path / "runs.db"
    shutil.copyfile(STORE, store)
    rendered = _report(store, RUNS[name], capsys)
    snapshot = HERE / "snapshots" / f"stored-{name}.json"
    if UPDATE:
        snapshot.write_text(rendered, encoding="utf-8")
    assert snapshot.exists(), f"no snapshot {snapshot}; run with ASSAY_UPDATE_GOLDEN=1"
    assert rendered == snapshot.read_text(encoding="utf-8"), (
        f"{snapshot.name} changed; if intended, run ASSAY_UPDATE_GOLDEN=1 pytest "
        "tests/golden/test_stored_report_golden.py and review the diff"
    )


def test_the_fixed_store_has_every_status_the_snapshots_need(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = tmp_path / "runs.db"
    shutil.copyfile(STORE, store)
    report = json.loads(_report(store, RUNS["mock-faults"], capsys))
    assert report["statuses"]["passed"] > 0
    assert report["statuses"]["error"] > 0
    assert sum(report["statuses"].values()) == report["total"] == 48
