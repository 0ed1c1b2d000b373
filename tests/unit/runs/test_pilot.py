"""A stored run read as a plan's pilot: its rate, the disagreement of its trials, the
design effect and the usage per call, each from the run's own records."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from assay.load import load_dataset, load_results
from assay.metrics import design_effect, trial_discordance
from assay.outcomes import Answer, Record, Usage
from assay.runs import pilot_of
from assay.store import RunInfo, open_store

POLICY = Path(__file__).resolve().parents[3] / "examples" / "policy"


def test_a_two_trial_run_gives_its_rate_flips_and_usage(tmp_path: Path) -> None:
    dataset = load_dataset(POLICY / "policy.jsonl")
    seed = list(load_results(POLICY / "results.jsonl").records)
    # trial 2 repeats trial 1 but for E2, which now passes: one case flips
    second = [
        Record(
            case_id=r.case_id,
            trial=2,
            outcome=Answer(fact="custom_excluded") if r.case_id == "E2" else r.outcome,
        )
        for r in seed
    ]
    first = [
        r.model_copy(
            update={"latency_ms": 500.0, "usage": Usage(input_tokens=100, output_tokens=10)}
        )
        for r in seed
    ]
    store = open_store(f"sqlite:///{tmp_path / 'runs.db'}")
    try:
        info = RunInfo(
            id="pilot",
            started_at=datetime(2026, 11, 1, tzinfo=UTC),
            dataset_name=dataset.name,
            dataset_version=dataset.version,
            target={"type": "scripted"},
            graders=[{"name": "structured", "version": "1"}],
            assay_version="0.1.0",
            trials=2,
        )
        store.create_run(info, dataset.cases)
        store.add_records("pilot", first + second)
        store.finish_run("pilot", "completed")
        pilot = pilot_of(store, "pilot")
    finally:
        store.close()
    # the seed passes E1 and E6 (2 of 6); trial 2 passes E2 too
    hits, sizes = [2, 1, 0, 0, 0, 2], [2] * 6
    assert (pilot.run_id, pilot.cases, pilot.trials) == ("pilot", 6, 2)
    assert pilot.rate == pytest.approx(5 / 12)
    assert (
        pilot.discordance == pytest.approx(trial_discordance(hits, sizes)) == pytest.approx(1 / 6)
    )
    assert pilot.design_effect == pytest.approx(design_effect(hits, sizes))
    assert pilot.input_tokens_per_call == 100 and pilot.output_tokens_per_call == 10
    assert pilot.latency_s == pytest.approx(0.5)
    assert pilot.cost_per_call_usd is None  # no price table
