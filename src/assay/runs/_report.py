"""Rebuilding a stored run's report: stored judgments first, deterministic regrading else."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from assay.cases import Dataset
from assay.grading import CaseResult, Judgment, grade
from assay.load import PriceTable
from assay.metrics import DEFAULT_INTERVAL, IntervalSetting, TrialPolicy, decimal
from assay.outcomes import Record, Results
from assay.report import (
    BudgetSection,
    DatasetChange,
    Price,
    Report,
    SequentialMonitor,
    SequentialSection,
    UsageSummary,
    budget_settings,
    build_report,
    name_drawn,
    name_run,
    sequential_settings,
    summarize_usage,
)
from assay.runs._judge_noise import with_judge_noise
from assay.runs._run_settings import StoredGrader, run_grader, run_metadata, trial_policy
from assay.runs._slots import check_trials
from assay.store import RunInfo, RunStore


def report_for_run(
    store: RunStore,
    run_id: str,
    *,
    interval: IntervalSetting = DEFAULT_INTERVAL,
    policy: TrialPolicy | None = None,
    prices: PriceTable | None = None,
    compact: bool = False,
    rows: bool = True,
    results: tuple[Sequence[Record], Sequence[Judgment]] | None = None,
) -> Report:
    """The report of a stored run: every case-trial of the cases as run, missing included;
    trials combine by ``policy`` when given, else by the policy the run's suite stated; its
    cost from ``prices`` when given, else from the price table stored with the run.

    ``compact``: for a report that is only rendered or gated, its rows are kept as
    ``CaseRows`` (see ``build_report``), so a run of a million case-trials fits in memory;
    ``rows=False`` leaves the case rows out, for a report only its figures are read from
    (counted by the database when it can: see ``assay.runs._figures``).
    ``results``: the run's records (in dataset order, then trial) and judgments exactly as
    stored, held by the caller that just wrote them; the report is the same, without
    reading them back.
    """
    info = store.get_run(run_id)
    if not rows and results is None:
        # deferred: counting by the database loads numpy, which a report of rows never needs
        from assay.runs._figures import counted_report

        counted = counted_report(store, info, interval=interval, policy=policy, prices=prices)
        if counted is not None:
            return with_judge_noise(store, counted, info)
    dataset = store.load_dataset(info.id)
    fallback = run_grader(info)
    judgments: Sequence[Judgment] | dict[tuple[str, int], Judgment]
    if results is None:
        check_trials(store, info)
        records: Sequence[Record] = store.records(info.id)
        judgments = store.graders_judgments(info.id, fallback.name, fallback.version)
    else:
        records, judgments = results
    grader = StoredGrader(judgments, fallback)
    graded = grade(dataset.cases, Results(tuple(records)), grader, trials=info.trials)
    full = dataset
    section: SequentialSection | None = None
    settings = sequential_settings(info.metadata)
    if settings is not None:
        section, dataset, graded, records = _drawn(settings, info, dataset, graded, records)
    cut: tuple[dict[str, Any], list[str]] | None = None
    budget = budget_settings(info.metadata)
    if budget is not None:
        graded, records, dataset, cut = _run_within(budget, info, dataset, graded, records)
    usage = usage_of_run(info, records, prices)
    spent = _budget_section(cut, usage) if cut is not None else None
    # Only ``graded`` holds the records and judgments now: compact, the report's rows are
    # made from it as it is emptied, so that each is freed once its row exists.
    del records, grader
    report = build_report(
        dataset,
        graded,
        interval=interval,
        run_id=info.id,
        metadata=run_metadata(info),
        policy=policy if policy is not None else trial_policy(info),
        usage=usage,
        cache_key_version=(info.metadata.get("cache") or {}).get("key_version"),
        compact=compact,
        rows=rows,
    )
    if section is not None:
        whole = report.dataset.model_copy(update={"version": full.version, "cases": len(full.real)})
        update: dict[str, Any] = {"sequential": section, "dataset": whole}
        if section.stopped_early:
            update |= name_drawn(
                {k: getattr(report, k) for k in ("task_success", "answer_coverage", "slices")}
                | {"trial_summary": report.trial_summary},
                section,
            )
        report = report.model_copy(update=update)
    if spent is not None:
        update = {"budget": spent}
        if spent.reached:
            whole = report.dataset.model_copy(
                update={"version": full.version, "cases": len(full.real)}
            )
            update["dataset"] = whole
            update |= name_run(
                {k: getattr(report, k) for k in ("task_success", "answer_coverage", "slices")}
                | {"trial_summary": report.trial_summary},
                spent,
            )
        report = report.model_copy(update=update)
    change = info.metadata.get("dataset_change")
    if report.dataset.change is None and isinstance(change, dict):
        dataset_info = report.dataset.model_copy(
            update={"change": DatasetChange.model_validate(change)}
        )
        report = report.model_copy(update={"dataset": dataset_info})
    runs = info.metadata.get("heldout_runs")
    if report.heldout is not None and isinstance(runs, int):
        report = report.model_copy(
            update={"heldout": report.heldout.model_copy(update={"runs": runs})}
        )
    return with_judge_noise(store, report, info)


def _drawn(
    settings: dict[str, Any],
    info: RunInfo,
    dataset: Dataset,
    graded: list[CaseResult],
    records: Sequence[Record],
) -> tuple[SequentialSection, Dataset, list[CaseResult], Sequence[Record]]:
    """A sequential run's section, and (once it has ended, stopped early or not) its
    dataset, case-trials and records narrowed to the cases drawn: the ones never drawn are
    not missing, and no figure counts them."""
    monitor = SequentialMonitor(settings, dataset.cases, info.trials)
    for result in graded:
        if result.record is not None:
            monitor.add(result.case.id, result.status == "passed")
    monitor.advance()
    recorded = {r.case.id for r in graded if r.record is not None}
    drawn = monitor.drawn(recorded)
    completed = info.status == "completed"
    section = monitor.section(drawn, completed)
    if not section.stopped_early:
        return section, dataset, graded, records
    kept = set(monitor.order[:drawn])
    narrowed = Dataset(name=dataset.name, cases=tuple(c for c in dataset.cases if c.id in kept))
    graded = [r for r in graded if r.case.id in kept]
    records = [r for r in records if r.case_id in kept]
    return section, narrowed, graded, records


def _run_within(
    budget: dict[str, Any],
    info: RunInfo,
    dataset: Dataset,
    graded: list[CaseResult],
    records: Sequence[Record],
) -> tuple[list[CaseResult], Sequence[Record], Dataset, tuple[dict[str, Any], list[str]]]:
    """A run given a budget: once it has completed, the case-trials it never recorded were
    not run because the budget was reached; its case-trials, records and dataset are
    narrowed to those run (none is missing, no figure counts them)."""
    not_run = [f"{r.case.id}#{r.trial}" for r in graded if r.record is None]
    if info.status != "completed" or not not_run:  # interrupted: what is absent is missing
        return graded, records, dataset, (budget | {"case_trials": len(graded)}, [])
    ran = [r for r in graded if r.record is not None]
    kept = {r.case.id for r in ran}
    narrowed = Dataset(name=dataset.name, cases=tuple(c for c in dataset.cases if c.id in kept))
    return ran, records, narrowed, (budget | {"case_trials": len(graded)}, not_run)


def _budget_section(cut: tuple[dict[str, Any], list[str]], usage: UsageSummary) -> BudgetSection:
    """The budget section: the limits, what the case-trials run spent, those not run."""
    budget, not_run = cut
    tokens = (usage.input_tokens or 0) + (usage.output_tokens or 0)
    return BudgetSection(
        max_cost=budget.get("max_cost"),
        max_calls=budget.get("max_calls"),
        max_tokens=budget.get("max_tokens"),
        calls=usage.called,
        tokens=tokens,
        cost_usd=usage.cost_usd,
        reached=bool(not_run),
        case_trials=int(budget["case_trials"]),
        not_run=not_run,
    )


def usage_of_run(
    info: RunInfo, records: Sequence[Record], prices: PriceTable | None = None
) -> UsageSummary:
    """The run's usage section, priced with ``prices`` or the table stored with the run."""
    stored = prices.stored() if prices is not None else info.metadata.get("prices")
    model = info.target.get("model")
    if not isinstance(stored, dict) or not isinstance(stored.get("table"), dict):
        return summarize_usage(records, model=model if isinstance(model, str) else None)
    table = {name: Price.model_validate(p) for name, p in stored["table"].items()}
    return summarize_usage(
        records,
        table,
        model if isinstance(model, str) else None,
        stored.get("source"),
        stored.get("hash"),
    )


def headline(report: Report) -> dict[str, Any]:
    """The figures a run listing shows: task success under the declared trial policy when
    the suite stated one (with the per-trial rate beside it), else the per-trial rate."""
    rate = report.task_success
    figures: dict[str, Any] = {
        "total": report.total,
        "success": report.success,
        "errors": report.errors,
        "missing": report.missing,
        "task_success": rate.value,
        "task_success_fraction": f"{rate.numerator}/{rate.denominator}",
        "task_success_ci95": list(rate.ci) if rate.ci is not None else None,
        "task_success_confidence": rate.confidence,
        **_usage_headline(report.usage),
    }
    t = report.trial_summary
    if t is not None and t.declared:
        policy = t.task_success
        figures.update(
            {
                "task_success": policy.value,
                "task_success_fraction": f"{_whole(policy.score_sum)}/{policy.cases}",
                "task_success_ci95": list(policy.ci) if policy.ci is not None else None,
                "task_success_policy": t.label,
                "per_trial_task_success": rate.value,
                "per_trial_task_success_fraction": f"{rate.numerator}/{rate.denominator}",
            }
        )
    return figures


def _usage_headline(usage: UsageSummary | None) -> dict[str, Any]:
    if usage is None:
        return {}
    return {
        "case_trials": usage.case_trials,
        "usage_reported": usage.usage_reported,
        "input_tokens": usage.input_tokens,
        "output_tokens": usage.output_tokens,
        "cost_usd": usage.cost_usd,
        "latency_p95_s": usage.latency_p95_s,
        "cached": usage.cached,
        "cost_avoided_usd": usage.cost_avoided_usd,
    }


def _whole(x: float) -> str:
    return decimal(x)
