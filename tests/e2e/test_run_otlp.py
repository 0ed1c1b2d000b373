"""``assay run --otlp``: a real run's spans reach an OTLP/HTTP collector as well as the store."""

from __future__ import annotations

import re
from pathlib import Path

from tests.conftest import ROOT, RunAssay
from tests.otlp_receiver import Receiver, span_names


def test_a_demo_run_exports_its_spans_over_otlp(
    run_assay: RunAssay, otlp_receiver: Receiver, tmp_path: Path
) -> None:
    store = f"sqlite:///{tmp_path / 'assay.db'}"
    endpoint = f"http://127.0.0.1:{otlp_receiver.server_address[1]}"
    suite = ROOT / "examples" / "demo" / "v1.yaml"
    done = run_assay("run", suite, "--store", store, "--otlp", endpoint, "--ids", "E2,E5")
    assert done.returncode == 0, done.stderr
    run_id = re.match(r"run (\S+) \(completed\)", done.stdout)
    assert run_id, done.stdout[:200]

    names = span_names(otlp_receiver)
    assert names.count("assay.request") == 2
    assert names.count("assay.evaluation") == 2
    assert {"retrieval", "context_assembly"} <= set(names)

    stored = run_assay("trace", run_id.group(1), "E2", "--store", store)
    assert stored.returncode == 0, stored.stderr
    assert "assay.request" in stored.stdout
