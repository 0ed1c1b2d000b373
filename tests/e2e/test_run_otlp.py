"""``assay run --otlp``: a real run's spans reach an OTLP/HTTP collector as well as the store,
and its outcome and latency metrics reach the same collector."""

from __future__ import annotations

import re
from pathlib import Path

from tests.conftest import ROOT, RunAssay
from tests.otlp_receiver import Receiver, metric_points, span_names
from tests.ports import closed_port


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

    points = metric_points(otlp_receiver)
    outcomes = {
        (attrs["assay.judgment.status"], attrs.get("error.type")): value
        for name, attrs, value in points
        if name == "assay.case_trials"
    }
    assert outcomes == {("failed", None): 1.0, ("error", "exception:LookupError"): 1.0}
    latency = [value for name, _, value in points if name == "assay.request.duration"]
    assert sum(latency) == 2
    assert not any("E2" in attrs.values() or "E5" in attrs.values() for _, attrs, _ in points)

    stored = run_assay("trace", run_id.group(1), "E2", "--store", store)
    assert stored.returncode == 0, stored.stderr
    assert "assay.request" in stored.stdout


def test_a_collector_that_does_not_answer_costs_one_warning_not_the_run(
    run_assay: RunAssay, tmp_path: Path
) -> None:
    store = f"sqlite:///{tmp_path / 'assay.db'}"
    suite = ROOT / "examples" / "demo" / "v1.yaml"
    with closed_port() as port:
        endpoint = f"http://127.0.0.1:{port}"
        done = run_assay("run", suite, "--store", store, "--otlp", endpoint, "--ids", "E2")
    assert done.returncode == 0, done.stderr
    assert done.stderr.count(f"no OTLP collector answers at {endpoint}") == 1
    assert "retrying" not in done.stderr and "Traceback" not in done.stderr
    run_id = re.match(r"run (\S+) \(completed\)", done.stdout)
    assert run_id, done.stdout[:200]
    stored = run_assay("trace", run_id.group(1), "E2", "--store", store)
    assert stored.returncode == 0 and "assay.request" in stored.stdout


def test_an_address_that_is_not_a_url_is_refused_before_the_run(
    run_assay: RunAssay, tmp_path: Path
) -> None:
    store = f"sqlite:///{tmp_path / 'assay.db'}"
    suite = ROOT / "examples" / "demo" / "v1.yaml"
    done = run_assay("run", suite, "--store", store, "--otlp", "127.0.0.1:4318", "--ids", "E2")
    assert done.returncode == 2 and done.stdout == ""
    assert "give the collector's OTLP/HTTP URL" in done.stderr
    listed = run_assay("runs", "--store", store)
    assert "v1.yaml" not in listed.stdout
