"""Properties of ``summarize`` and the report over random datasets and results."""

from __future__ import annotations

import json
import random
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assay import Abstain, Answer, Case, Dataset, Error, Record, Summary, load_dataset, summarize
from assay.grading import grade_all
from assay.metrics import Rate
from assay.report import build_report

FACTS = ("f1", "f2", "f3")
SLICES = ("standard", "exception", "missing", "access")
SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def cases(draw: st.DrawFn, prefix: str = "C", synthetic: bool | None = None) -> list[Case]:
    n = draw(st.integers(min_value=1, max_value=12))
    out: list[Case] = []
    for i in range(n):
        behavior = draw(st.sampled_from(["answer", "abstain"]))
        fact = draw(st.sampled_from(FACTS)) if behavior == "answer" else None
        accepted = (
            tuple(draw(st.lists(st.sampled_from(FACTS), max_size=2, unique=True)))
            if behavior == "answer"
            else ()
        )
        out.append(
            Case(
                id=f"{prefix}{i}",
                slice=draw(st.sampled_from(SLICES)),
                question=draw(st.text(min_size=1, max_size=20)),
                expected_behavior=behavior,  # type: ignore[arg-type]
                expected_fact=fact,
                accepted_facts=accepted,
                synthetic=draw(st.booleans()) if synthetic is None else synthetic,
                metadata=draw(st.dictionaries(st.sampled_from("abc"), st.integers(), max_size=2)),
            )
        )
    return out


outcomes = st.one_of(
    st.builds(Answer, fact=st.sampled_from(FACTS)),
    st.builds(Abstain),
    st.builds(Error, message=st.none() | st.text(max_size=10)),
)


@st.composite
def records_for(draw: st.DrawFn, case_list: list[Case]) -> list[Record]:
    trials = draw(st.integers(min_value=1, max_value=3))
    out: list[Record] = []
    for case in case_list:
        for trial in range(1, trials + 1):
            if draw(st.booleans()) or draw(st.booleans()):
                out.append(Record(case_id=case.id, trial=trial, outcome=draw(outcomes)))
    return out


@st.composite
def scored(draw: st.DrawFn) -> tuple[list[Case], list[Record]]:
    case_list = draw(cases())
    return case_list, draw(records_for(case_list))


def _rates(summary: Summary) -> list[Rate]:
    rates = [summary.task_success, summary.answer_coverage, summary.answered_accuracy]
    return rates + [s.task_success for s in summary.slices.values()]


@SETTINGS
@given(scored())
def test_counts_add_up(data: tuple[list[Case], list[Record]]) -> None:
    case_list, records = data
    summary = summarize(case_list, records)
    real = [c for c in case_list if not c.synthetic]
    real_ids = {c.id for c in real}
    trials = max((r.trial for r in records if r.case_id in real_ids), default=1)
    assert summary.total == len(real) * trials
    assert summary.statuses.total == summary.total
    assert 0 <= summary.success <= summary.total
    assert 0 <= summary.correct_answers <= summary.answered <= summary.total
    assert summary.success == summary.statuses.passed
    assert summary.errors == summary.statuses.error
    assert summary.missing == summary.statuses.missing
    assert sum(s.total for s in summary.slices.values()) == summary.total
    assert sum(s.success for s in summary.slices.values()) == summary.success
    real_ids = {c.id for c in real}
    recorded = [r for r in records if r.case_id in real_ids]
    assert summary.errors == sum(1 for r in recorded if r.outcome.kind == "error")
    assert summary.missing == summary.total - len(recorded)
    assert summary.answered == sum(1 for r in recorded if r.outcome.kind == "answer")


@SETTINGS
@given(scored())
def test_a_rate_is_null_exactly_when_its_denominator_is_zero(
    data: tuple[list[Case], list[Record]],
) -> None:
    summary = summarize(*data)
    for r in _rates(summary):
        assert (r.value is None) == (r.denominator == 0)
        assert (r.ci is None) == (r.denominator == 0)
        if r.value is not None and r.ci is not None:
            assert r.value == r.numerator / r.denominator
            assert 0.0 <= r.ci[0] <= r.value <= r.ci[1] <= 1.0


@SETTINGS
@given(scored(), st.randoms(use_true_random=False))
def test_result_order_never_changes_the_report(
    data: tuple[list[Case], list[Record]], rng: random.Random
) -> None:
    case_list, records = data
    shuffled = list(records)
    rng.shuffle(shuffled)
    dataset = Dataset(name="d", cases=tuple(case_list))
    first = build_report(dataset, grade_all(dataset, records))
    second = build_report(dataset, grade_all(dataset, shuffled))
    assert first == second
    assert summarize(case_list, records) == summarize(case_list, shuffled)


@SETTINGS
@given(
    st.tuples(cases(prefix="R", synthetic=False), cases(prefix="S", synthetic=True)).flatmap(
        lambda pair: st.tuples(
            st.just(pair[0]), st.just(pair[1]), records_for(pair[0]), records_for(pair[1])
        )
    ),
    st.randoms(use_true_random=False),
)
def test_synthetic_cases_never_change_real_figures(
    data: tuple[list[Case], list[Case], list[Record], list[Record]], rng: random.Random
) -> None:
    real, synthetic, real_records, synthetic_records = data
    # Synthetic rows may have more or fewer trials than real ones: no real figure moves.
    # Synthetic cases interleaved anywhere; the real cases keep their order.
    mixed = list(real)
    for case in synthetic:
        mixed.insert(rng.randint(0, len(mixed)), case)
    alone = summarize(real, real_records)
    together = summarize(mixed, real_records + synthetic_records)
    assert together.model_dump(exclude={"synthetic"}) == alone.model_dump(exclude={"synthetic"})
    assert together.synthetic is not None
    synthetic_trials = max((r.trial for r in synthetic_records), default=1)
    assert together.synthetic.total == len(synthetic) * synthetic_trials


def _scrambled_jsonl(case_list: list[Case], rng: random.Random) -> str:
    lines = []
    for case in case_list:
        record: dict[str, Any] = case.model_dump(mode="json", exclude_defaults=rng.random() < 0.5)
        items = list(record.items())
        rng.shuffle(items)
        spaced = rng.random() < 0.5
        text = json.dumps(
            dict(items),
            indent=None,
            separators=(" , ", " :  ") if spaced else (",", ":"),
            ensure_ascii=rng.random() < 0.5,
        )
        lines.append(" " * rng.randint(0, 3) + text + " " * rng.randint(0, 3))
        if rng.random() < 0.2:
            lines.append("")
    return "\n".join(lines) + "\n"


@SETTINGS
@given(cases(), st.randoms(use_true_random=False))
def test_version_ignores_key_order_whitespace_and_explicit_defaults(
    case_list: list[Case], rng: random.Random
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        a, b = Path(tmp) / "a.jsonl", Path(tmp) / "b.jsonl"
        a.write_text(_scrambled_jsonl(case_list, rng), encoding="utf-8")
        b.write_text(_scrambled_jsonl(case_list, rng), encoding="utf-8")
        first, second = load_dataset(a), load_dataset(b)
    assert first.version == second.version == Dataset("x", tuple(case_list)).version


@SETTINGS
@given(cases(), st.integers(min_value=0, max_value=11))
def test_version_changes_when_a_label_changes(case_list: list[Case], index: int) -> None:
    case = case_list[index % len(case_list)]
    changed = case.model_copy(update={"rationale": (case.rationale or "") + " revised"})
    edited = [changed if c is case else c for c in case_list]
    assert Dataset("x", tuple(edited)).version != Dataset("x", tuple(case_list)).version
