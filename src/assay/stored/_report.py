"""Rebuilding a stored run's report: stored judgments first, deterministic regrading else."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from assay.cases import Case
from assay.grading import Grader, Judgment, StructuredGrader, grade
from assay.load import PriceTable
from assay.metrics import DEFAULT_INTERVAL, IntervalMethod, IntervalSetting, TrialPolicy
from assay.metrics._setting import chosen_interval
from assay.outcomes import Record, Results
from assay.report import Price, Report, UsageSummary, build_report, summarize_usage
from assay.store import TAGS_KEY, RunInfo, RunStore
from assay.stored._slots import check_trials


class StoredGrader:
    """Returns the judgment stored for a case-trial when ``fallback`` (the grader that
    would judge it now) made it, same name and version; grades afresh with ``fallback``
    when none is stored or the stored one came from another grader or version, so a
    record is graded once per run and a stale judgment is never reused."""

    def __init__(
        self, stored: Sequence[Judgment] | dict[tuple[str, int], Judgment], fallback: Grader
    ) -> None:
        """``stored``: the run's judgments, or those of ``fallback``'s name and version
        already, by (case id, trial)."""
        self.name = fallback.name
        self.version = fallback.version
        self.fallback = fallback
        self.stored = (
            stored
            if isinstance(stored, dict)
            else {
                (j.case_id, j.trial): j
                for j in stored
                if j.grader == self.name and j.grader_version == self.version
            }
        )

    def grade(self, case: Case, record: Record) -> Judgment:
        found = self.stored.get((case.id, record.trial))
        return found if found is not None else self.fallback.grade(case, record)


class UnavailableGrader:
    """Stands for a recorded grader this installation cannot rebuild (a plugin not
    installed, another tool's scorer): its stored judgments are reused, and a case-trial
    it never judged is ``ungraded`` with the reason, never graded by another grader."""

    def __init__(self, name: str, version: str) -> None:
        self.name = name
        self.version = version

    def grade(self, case: Case, record: Record) -> Judgment:
        return Judgment(
            case_id=case.id,
            trial=record.trial,
            status="ungraded",
            reason=f"no stored judgment, and grader {self.name} v{self.version} is not "
            "available here to grade it",
            grader=self.name,
            grader_version=self.version,
        )


def _fallback(info: RunInfo) -> Grader:
    """The grader a stored run's records are judged with now: the recorded one rebuilt,
    an ``UnavailableGrader`` naming it when it cannot be, the structured grader when the
    run recorded none."""
    from assay.load import grader_from_provenance

    for entry in info.graders:
        grader = grader_from_provenance(entry, _suite_dir(info))
        if grader is not None:
            return grader
    for entry in info.graders:
        if entry.get("name"):
            return UnavailableGrader(entry["name"], str(entry.get("version", "?")))
    return StructuredGrader()


def _suite_dir(info: RunInfo) -> Path | None:
    return Path(info.suite_path).parent if info.suite_path else None


def run_metadata(info: RunInfo) -> dict[str, Any]:
    """What a report says about the run it came from (never a secret: configs are redacted)."""
    metadata = {k: v for k, v in info.metadata.items() if k != TAGS_KEY}  # tags: not config
    target = {
        k: v
        for k, v in info.target.items()
        if k in ("type", "model", "url", "callable", "base_url")
    }
    return {
        "run": {
            "status": info.status,
            "started_at": info.started_at.isoformat(),
            "ended_at": info.ended_at.isoformat() if info.ended_at else None,
            "suite": info.suite_path,
            "suite_name": info.suite_name,
            "target": target,
            "target_hash": info.target_hash,
            "git_commit": info.git_commit,
            **({"metadata": metadata} if metadata else {}),
        }
    }


def trial_policy(info: RunInfo) -> TrialPolicy | None:
    """The policy the run's suite stated for combining trials (None: the default, mean)."""
    if info.trial_policy in ("", "per-trial"):
        return None
    return TrialPolicy.parse(info.trial_policy, info.trials).resolved(info.trials)


def report_for_run(
    store: RunStore,
    run_id: str,
    *,
    interval: IntervalSetting = DEFAULT_INTERVAL,
    policy: TrialPolicy | None = None,
    prices: PriceTable | None = None,
    compact: bool = False,
    rows: bool = True,
    confidence: float | None = None,
    method: IntervalMethod | None = None,
    results: tuple[Sequence[Record], Sequence[Judgment]] | None = None,
) -> Report:
    """The report of a stored run: every case-trial of the cases as run, missing included;
    trials combine by ``policy`` when given, else by the policy the run's suite stated; its
    cost from ``prices`` when given, else from the price table stored with the run.

    ``compact``: for a report that is only rendered or gated, its rows are kept as
    ``CaseRows`` (see ``build_report``), so a run of a million case-trials fits in memory;
    ``rows=False`` leaves the case rows out, for a report only its figures are read from
    (counted by the database when it can: see ``assay.stored._figures``).
    ``results``: the run's records (in dataset order, then trial) and judgments exactly as
    stored, held by the caller that just wrote them; the report is the same, without
    reading them back.
    """
    interval = chosen_interval(interval, confidence, method, "report_for_run")
    info = store.get_run(run_id)
    if not rows and results is None:
        from assay.stored._figures import counted_report

        counted = counted_report(store, info, interval=interval, policy=policy, prices=prices)
        if counted is not None:
            return counted
    dataset = store.load_dataset(info.id)
    fallback = _fallback(info)
    judgments: Sequence[Judgment] | dict[tuple[str, int], Judgment]
    if results is None:
        check_trials(store, info)
        records: Sequence[Record] = store.records(info.id)
        judgments = store.graders_judgments(info.id, fallback.name, fallback.version)
    else:
        records, judgments = results
    usage = usage_of_run(info, records, prices)
    grader = StoredGrader(judgments, fallback)
    graded = grade(dataset.cases, Results(tuple(records)), grader, trials=info.trials)
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
    change = info.metadata.get("dataset_change")
    if report.dataset.change is None and isinstance(change, dict):
        from assay.report import DatasetChange

        dataset_info = report.dataset.model_copy(
            update={"change": DatasetChange.model_validate(change)}
        )
        report = report.model_copy(update={"dataset": dataset_info})
    runs = info.metadata.get("heldout_runs")
    if report.heldout is not None and isinstance(runs, int):
        report = report.model_copy(
            update={"heldout": report.heldout.model_copy(update={"runs": runs})}
        )
    return report


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
        "task_success_ci95": list(rate.ci95) if rate.ci95 is not None else None,
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
                "task_success_ci95": list(policy.ci95) if policy.ci95 is not None else None,
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
    from assay.metrics._display import decimal

    return decimal(x)
