"""Two properties over the whole class of honesty defects, on random inputs:

- real figures never depend on synthetic rows, whatever the trial structure of either and
  whatever file format the dataset is written in;
- every format prints every numerator and denominator in full, and every report
  re-reads as consistent (the checks ``gate`` and ``compare`` apply to report files).
"""

from __future__ import annotations

import csv
import io
import json
import random
import tempfile
from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assay import Abstain, Answer, Error, Record
from assay.grading import grade_all
from assay.load import load_dataset, load_results
from assay.metrics import IntervalSetting, Rate, TrialPolicy
from assay.render import render
from assay.report import Report, build_report, report_problems

FACTS = ("f1", "f2")
SLICES = ("standard", "exception")
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
FORMATS = ("jsonl", "csv", "yaml", "json")


def _case(i: int, prefix: str, rng: random.Random, synthetic: bool) -> dict[str, Any]:
    answer = rng.random() < 0.7
    return {
        "id": f"{prefix}{i}",
        "slice": rng.choice(SLICES),
        "question": f"question {i}",
        "expected_behavior": "answer" if answer else "abstain",
        "expected_fact": rng.choice(FACTS) if answer else None,
        "synthetic": synthetic,
    }


def _outcome(rng: random.Random) -> dict[str, Any]:
    roll = rng.random()
    if roll < 0.6:
        return {"kind": "answer", "fact": rng.choice(FACTS)}
    if roll < 0.85:
        return {"kind": "abstain"}
    return {"kind": "error", "message": "boom"}


def _records(cases: list[dict[str, Any]], rng: random.Random) -> list[dict[str, Any]]:
    """Each case gets trials up to its group's K, some missing, sometimes a gap."""
    k = rng.randint(1, 4)
    out = []
    for case in cases:
        for trial in range(1, k + 1):
            if rng.random() < 0.8:
                out.append({"id": case["id"], "trial": trial, **_outcome(rng)})
    return out


def _write_dataset(path: Path, rows: list[dict[str, Any]], fmt: str) -> Path:
    target = path.with_suffix(f".{fmt}")
    if fmt == "jsonl":
        target.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    elif fmt == "json":
        target.write_text(json.dumps(rows, indent=2), encoding="utf-8")
    elif fmt == "yaml":
        target.write_text(yaml.safe_dump(rows, sort_keys=False), encoding="utf-8")
    else:
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        for r in rows:
            writer.writerow(
                {
                    **r,
                    "expected_fact": r["expected_fact"] or "",
                    "synthetic": "yes" if r["synthetic"] else "no",
                }
            )
        target.write_text(buffer.getvalue(), encoding="utf-8")
    return target


def _report(tmp: Path, name: str, rows: list[dict[str, Any]], records: list[dict[str, Any]],
            fmt: str, policy: TrialPolicy | None) -> Report:  # fmt: skip
    dataset = load_dataset(_write_dataset(tmp / name, rows, fmt), name="d")
    results_path = tmp / f"{name}.results.jsonl"
    results_path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    graded = grade_all(dataset, load_results(results_path))
    real_trials = max((g.trial for g in graded if not g.case.synthetic), default=1)
    chosen = policy if policy is not None and (policy.k or 1) <= real_trials else None
    return build_report(dataset, graded, policy=chosen)


def _real_figures(report: Report) -> dict[str, Any]:
    figures = report.model_dump(exclude={"synthetic", "cases", "dataset", "graders"})
    figures["cases"] = [c.model_dump() for c in report.cases if not c.synthetic]
    figures["real_cases"] = report.dataset.cases
    return figures


@SETTINGS
@given(
    st.integers(min_value=1, max_value=8),
    st.integers(min_value=1, max_value=5),
    st.sampled_from(FORMATS),
    st.sampled_from([None, "mean", "majority", "pass^2", "pass^k"]),
    st.randoms(use_true_random=False),
)
def test_real_figures_never_depend_on_synthetic_rows(
    n_real: int, n_synthetic: int, fmt: str, policy: str | None, rng: random.Random
) -> None:
    real = [_case(i, "R", rng, False) for i in range(n_real)]
    fake = [_case(i, "S", rng, True) for i in range(n_synthetic)]
    real_records = _records(real, rng)
    fake_records = _records(fake, rng)
    if rng.random() < 0.5 and fake_records:  # a stray high synthetic trial
        fake_records.append({"id": fake[0]["id"], "trial": rng.randint(2, 9), "kind": "abstain"})
        fake_records = list({(r["id"], r["trial"]): r for r in fake_records}.values())
    mixed = list(real)
    for case in fake:
        mixed.insert(rng.randint(0, len(mixed)), case)
    both = real_records + fake_records
    rng.shuffle(both)
    chosen = TrialPolicy.parse(policy) if policy else None
    with tempfile.TemporaryDirectory() as tmp:
        alone = _report(Path(tmp), "alone", real, real_records, fmt, chosen)
        together = _report(Path(tmp), "together", mixed, both, fmt, chosen)
    assert _real_figures(together) == _real_figures(alone)
    assert together.synthetic is not None and alone.synthetic is None


def _rates(report: Report) -> list[Rate]:
    rates = [report.task_success, report.answer_coverage, report.answered_accuracy]
    rates += [s.task_success for s in report.slices.values()]
    if report.synthetic is not None:
        rates.append(report.synthetic.task_success)
    return rates


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.integers(min_value=1, max_value=400),
    st.integers(min_value=1, max_value=4),
    st.integers(min_value=0, max_value=120),
    st.sampled_from(["clopper-pearson", "wilson"]),
    st.randoms(use_true_random=False),
)
def test_every_format_prints_every_numerator_and_denominator_in_full(
    n: int, trials: int, id_length: int, method: str, rng: random.Random
) -> None:
    from assay import Case, Dataset

    cases = tuple(
        Case(
            id=f"c{i}-" + "x" * (id_length if i == 0 else 0),
            slice=rng.choice(SLICES) + ("-" + "y" * id_length if i == 1 else ""),
            question="q",
            expected_behavior="answer",
            expected_fact="f1",
            synthetic=i == 2 and n > 3,
        )
        for i in range(n)
    )
    dataset = Dataset(name="d", cases=cases)
    records = [
        Record(
            case_id=c.id,
            trial=t,
            outcome=rng.choice(
                [Answer(fact="f1"), Answer(fact="f1"), Answer(fact="f2"), Abstain(), Error()]
            ),
        )
        for c in cases
        for t in range(1, trials + 1)
        if rng.random() < 0.95
    ]
    report = build_report(
        dataset,
        grade_all(dataset, records),
        interval=IntervalSetting(method=method),  # type: ignore[arg-type]
    )
    assert report_problems(report) == []
    for fmt in ("text", "markdown", "html"):
        out = render(report, fmt)
        for r in _rates(report):
            assert f"{r.numerator}/{r.denominator}" in out, (fmt, r)
        assert "…" not in out.split("\n", 1)[1] or fmt != "text"
    data = json.loads(render(report, "json"))
    assert data["task_success"]["numerator"] == report.task_success.numerator
    assert data["task_success"]["denominator"] == report.task_success.denominator
