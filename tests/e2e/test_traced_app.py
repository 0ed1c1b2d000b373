"""A real instrumented application behind HTTP, diagnosed from the spans it exports to
`assay run --receive-spans` (examples/traced-app)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.conftest import RunAssay
from tests.exporting_app import exporting_app

pytest.importorskip("opentelemetry.exporter.otlp.proto.http", reason="needs assay[otlp]")

APP = Path(__file__).resolve().parents[2] / "examples" / "traced-app"


@pytest.fixture
def app() -> Iterator[tuple[int, int]]:
    """The example application on a free port, exporting to a receiver port: (app, receiver)."""
    with exporting_app(APP / "app.py") as ports:
        yield ports


def test_the_applications_spans_diagnose_its_failures(
    run_assay: RunAssay, app: tuple[int, int], tmp_path: Path
) -> None:
    port, receiver = app
    suite = tmp_path / "suite.yaml"
    text = (APP / "suite.yaml").read_text(encoding="utf-8")
    text = text.replace("127.0.0.1:8080", f"127.0.0.1:{port}")
    # a configured W3C tracestate travels with traceparent into the application's spans
    text = text.replace("  type: http\n", "  type: http\n  tracestate: acme=tenant-7\n")
    suite.write_text(text, encoding="utf-8")
    (tmp_path / "policy.jsonl").write_bytes((APP / "policy.jsonl").read_bytes())
    store = f"sqlite:///{tmp_path / 'a.db'}"
    done = run_assay(
        "run", suite, "--receive-spans", "--receive-port", str(receiver), "--store", store
    )
    assert done.returncode == 0, done.stderr
    assert "passed 1 + failed 1 + error 1 + missing 0 + ungraded 0 = 3 cases" in done.stdout
    assert f"receiving spans on http://127.0.0.1:{receiver}/v1/traces" in done.stderr
    assert "received 12 application span(s): 12 attached" in done.stderr  # 4 per request
    run_id = done.stdout.split()[1]
    from assay.store import open_store

    opened = open_store(store)
    try:
        states = {
            span.attributes.get("w3c.tracestate")
            for case in opened.load_dataset(run_id).ids
            for span in opened.spans(run_id, case)
            if span.attributes.get("service.name") == "policy-service"
        }
    finally:
        opened.close()
    assert states == {"acme=tenant-7"}  # every one of the application's 12 spans
    diagnosed = run_assay("diagnose", run_id, "--all", "--store", store)
    assert diagnosed.returncode == 0, diagnosed.stderr
    lines = diagnosed.stdout
    assert "retrieval (1)" in lines
    assert "acme/custom-exception is candidate #2 of 3" in lines
    assert "generation (1)" in lines
    assert "span 'generation' failed: RuntimeError: model backend returned 503" in lines
    assert "undetermined" not in lines
    traced = run_assay("trace", run_id, "A2", "--store", store)
    assert "├─ POST /ask" in traced.stdout
    assert "assay.retrieval.selected_ids = acme/standard-window" in traced.stdout


def test_without_the_receiver_the_same_failures_are_undetermined(
    run_assay: RunAssay, app: tuple[int, int], tmp_path: Path
) -> None:
    port, _ = app
    suite = tmp_path / "suite.yaml"
    text = (APP / "suite.yaml").read_text(encoding="utf-8")
    suite.write_text(text.replace("127.0.0.1:8080", f"127.0.0.1:{port}"), encoding="utf-8")
    (tmp_path / "policy.jsonl").write_bytes((APP / "policy.jsonl").read_bytes())
    store = f"sqlite:///{tmp_path / 'a.db'}"
    done = run_assay("run", suite, "--store", store)
    run_id = done.stdout.split()[1]
    diagnosed = run_assay("diagnose", run_id, "--all", "--store", store)
    assert "undetermined (2)" in diagnosed.stdout


def test_a_matrix_receives_every_variants_application_spans(
    run_assay: RunAssay, app: tuple[int, int], tmp_path: Path
) -> None:
    port, receiver = app
    suite = tmp_path / "suite.yaml"
    text = (APP / "suite.yaml").read_text(encoding="utf-8")
    text = text.replace("127.0.0.1:8080", f"127.0.0.1:{port}")
    text += "variants:\n  plain: {}\n  tagged: {target: {headers: {X-Variant: tagged}}}\n"
    suite.write_text(text, encoding="utf-8")
    (tmp_path / "policy.jsonl").write_bytes((APP / "policy.jsonl").read_bytes())
    store = f"sqlite:///{tmp_path / 'a.db'}"
    done = run_assay(
        "run",
        suite,
        "--receive-spans",
        "--receive-port",
        str(receiver),
        "--store",
        store,
        "-f",
        "json",
    )
    assert done.returncode == 0, done.stderr
    assert f"receiving spans on http://127.0.0.1:{receiver}/v1/traces" in done.stderr
    assert "received 24 application span(s): 24 attached" in done.stderr  # 2 × 3 × 4
    for variant in json.loads(done.stdout)["variants"]:
        diagnosed = run_assay("diagnose", variant["run_id"], "--all", "--store", store)
        assert "acme/custom-exception is candidate #2 of 3" in diagnosed.stdout
        assert "undetermined" not in diagnosed.stdout
