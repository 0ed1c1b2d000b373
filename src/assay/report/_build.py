"""Building a ``Report`` from graded case-trials: the one place figures become a report."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from assay._version import __version__
from assay.cases import Dataset, case_hash
from assay.grading import CaseResult, Judgment
from assay.metrics import (
    DEFAULT_INTERVAL,
    IntervalSetting,
    Rate,
    Summary,
    TrialPolicy,
    group_by,
    rate,
    summarize_graded,
    summarize_results,
)
from assay.outcomes import Abstain, Answer, Error, Record
from assay.report._agent import (
    AgentSummary,
    agent_counts,
    agent_summary,
    checked_trajectory,
    counts_of,
)
from assay.report._model import (
    JUDGE_CACHE_HIT,
    CacheSummary,
    CaseRow,
    DatasetChange,
    DatasetInfo,
    GraderInfo,
    HeldoutNote,
    JudgeDetail,
    Report,
    SplitBlock,
    SyntheticSection,
)
from assay.report._rows import CaseRows, row_of
from assay.report._usage import JudgeUsage, UsageSummary, judge_usage


def row_values(
    result: CaseResult, hashes: dict[str, str], labels: dict[tuple[str, str], str]
) -> tuple[Any, ...]:
    """One row's values in ``ROW_FIELDS`` order, each already of its field's type."""
    record = result.record
    outcome = record.outcome if record is not None else None
    usage = record.usage if record is not None else None
    fact = outcome.fact if isinstance(outcome, Answer) else None
    text = outcome.text if isinstance(outcome, Answer | Abstain) else None
    case = result.case
    trajectory = checked_trajectory(record)
    return (
        case.id,
        case.slice,
        result.trial,
        case.synthetic,
        case.prompt,
        case.expected_behavior,
        case.expected_fact,
        case.rationale,
        outcome.kind if outcome is not None else None,
        fact,
        text,
        outcome.reason if isinstance(outcome, Abstain) else None,
        result.status,
        result.judgment.reason,
        _grader_label(result.judgment, labels),
        hashes.get(case.id) or case_hash(case),
        case.source_revision,
        outcome.raw if isinstance(outcome, Error) else None,
        usage.input_tokens if usage is not None else None,
        usage.output_tokens if usage is not None else None,
        record.latency_ms if record is not None else None,
        _transcript(record),
        _traceback(record),
        _judge_detail(result.judgment),
        _cached_from(result),
        agent_counts(trajectory) if trajectory is not None else None,
        trajectory,
    )


def _grader_label(judgment: Judgment, labels: dict[tuple[str, str], str]) -> str:
    """``name vVERSION``, one string object per grader however many rows name it."""
    key = (judgment.grader, judgment.grader_version)
    found = labels.get(key)
    if found is None:
        found = labels[key] = f"{key[0]} v{key[1]}"
    return found


def split_blocks(
    graded: Sequence[CaseResult],
    interval: IntervalSetting,
    policy: TrialPolicy | None,
) -> list[SplitBlock] | None:
    """Dev and held-out summarized apart (real cases only), when both are present."""
    by_split = group_by((r for r in graded if not r.case.synthetic), lambda r: r.case.split)
    if set(by_split) != {"dev", "heldout"}:
        return None
    trials = max((r.trial for r in graded), default=1)
    blocks = []
    for name in ("dev", "heldout"):
        part = by_split[name]
        s = summarize_graded(part, trials=trials, interval=interval, policy=policy)
        blocks.append(split_block(name, s, list(dict.fromkeys(r.case.id for r in part))))
    return blocks


def split_block(name: str, s: Summary, case_ids: list[str]) -> SplitBlock:
    """The ``name`` split's block of a report: its summary ``s``, with every "in the
    dataset" denominator named for the split."""
    label = "dev" if name == "dev" else "held-out"

    def named(r: Rate) -> Rate:
        where = r.denominator_name.replace("in the dataset", f"in the {label} split")
        return r.model_copy(update={"denominator_name": where})

    return SplitBlock(
        split=name,
        total=s.total,
        success=s.success,
        statuses=s.statuses,
        task_success=named(s.task_success),
        answer_coverage=named(s.answer_coverage),
        answered_accuracy=named(s.answered_accuracy),
        case_ids=case_ids,
        answered_unknown=s.answered_unknown,
    )


def _traceback(record: Record | None) -> str | None:
    found = record.extra.get("traceback") if record is not None else None
    return found if isinstance(found, str) else None


def _transcript(record: Record | None) -> dict[str, Any] | None:
    found = record.extra.get("transcript") if record is not None else None
    return found if isinstance(found, dict) else None


def _judge_detail(judgment: Judgment) -> JudgeDetail | None:
    if judgment.grader != "judge":
        return None
    score = int(judgment.score) if judgment.score is not None else None
    return JudgeDetail(score=score, labels=list(judgment.labels))


def _cached_from(result: CaseResult) -> str | None:
    note = result.record.extra.get("cache") if result.record is not None else None
    if isinstance(note, dict) and note.get("hit") is True:
        return str(note.get("run_id") or "an earlier run")
    return None


def build_report(
    dataset: Dataset,
    graded: Sequence[CaseResult],
    *,
    interval: IntervalSetting = DEFAULT_INTERVAL,
    run_id: str | None = None,
    metadata: dict[str, Any] | None = None,
    policy: TrialPolicy | None = None,
    usage: UsageSummary | None = None,
    cache_key_version: int | None = None,
    compact: bool = False,
    rows: bool = True,
) -> Report:
    """The report for ``graded`` (every case-trial of ``dataset``, as ``grade`` returns);
    ``cache_key_version`` when the run used the response cache.

    ``compact`` is for a report that is only rendered (``assay score``): ``graded`` is a
    list its caller hands over, emptied as the rows are made so that each record and
    judgment is freed once its row exists, and the rows are kept as ``CaseRows``.
    ``rows=False`` leaves the case rows out (``cases`` is empty): for a report only its
    figures are read from, as a gate's rules are.
    """
    summary = summarize_results(graded, interval=interval, policy=policy)
    graders = sorted(
        {(r.judgment.grader, r.judgment.grader_version) for r in graded if r.record}
        - {("assay", "1")}
    )
    splits = split_blocks(graded, interval, policy)
    dimensions = judge_dimensions(graded, interval)
    cache = cache_summary(graded, cache_key_version)
    judged_usage = judge_usage(
        [r.judgment.labels for r in graded if r.record is not None], JUDGE_CACHE_HIT
    )
    agent = agent_summary((r.case.slice, counts_of(r.record)) for r in graded)
    made = _rows(graded, dataset.case_hashes, compact) if rows else []
    return assemble_report(
        dataset,
        summary,
        made,
        graders=graders,
        splits=splits,
        dimensions=dimensions,
        cache=cache,
        judged_usage=judged_usage,
        run_id=run_id,
        metadata=metadata,
        usage=usage,
        agent=agent,
    )


def assemble_report(
    dataset: Dataset,
    summary: Summary,
    rows: list[CaseRow] | CaseRows,
    *,
    graders: list[tuple[str, str]],
    splits: list[SplitBlock] | None,
    dimensions: dict[str, Rate],
    cache: CacheSummary | None,
    judged_usage: JudgeUsage | None,
    run_id: str | None = None,
    metadata: dict[str, Any] | None = None,
    usage: UsageSummary | None = None,
    agent: AgentSummary | None = None,
) -> Report:
    """The report of ``dataset`` from its summary, case rows and the figures beside them."""
    return assemble_from_facts(
        dataset_info(
            dataset.name,
            dataset.version,
            dataset.change,
            len(dataset.real),
            (c.source_revision for c in dataset.cases),
        ),
        [c.id for c in dataset.synthetic] if summary.synthetic is not None else [],
        sum(1 for c in dataset.real if c.split == "heldout"),
        summary,
        rows,
        graders=graders,
        splits=splits,
        dimensions=dimensions,
        cache=cache,
        judged_usage=judged_usage,
        run_id=run_id,
        metadata=metadata,
        usage=usage,
        agent=agent,
    )


def dataset_info(
    name: str,
    version: str,
    change: dict[str, Any] | None,
    real: int,
    revisions: Iterable[str | None],
) -> DatasetInfo:
    """A report's dataset block: ``real`` cases, the revisions its cases name."""
    return DatasetInfo(
        name=name,
        version=version,
        cases=real,
        source_revisions=sorted({r for r in revisions if r}),
        change=DatasetChange.model_validate(change) if change else None,
    )


def assemble_from_facts(
    info: DatasetInfo,
    synthetic_ids: list[str],
    heldout: int,
    summary: Summary,
    rows: list[CaseRow] | CaseRows,
    *,
    graders: list[tuple[str, str]],
    splits: list[SplitBlock] | None,
    dimensions: dict[str, Rate],
    cache: CacheSummary | None,
    judged_usage: JudgeUsage | None,
    run_id: str | None = None,
    metadata: dict[str, Any] | None = None,
    usage: UsageSummary | None = None,
    agent: AgentSummary | None = None,
) -> Report:
    """``assemble_report`` from what it reads of the dataset: its block, the ids of its
    synthetic cases (in order) and how many real cases are held out."""
    synthetic = None
    if summary.synthetic is not None:
        s = summary.synthetic
        synthetic = SyntheticSection(
            total=s.total,
            success=s.success,
            statuses=s.statuses,
            task_success=s.task_success,
            case_ids=synthetic_ids,
        )
    report = Report.from_summary(
        summary,
        assay_version=__version__,
        run_id=run_id,
        dataset=info,
        graders=[GraderInfo(name=n, version=v) for n, v in graders],
        cases=rows if isinstance(rows, list) else [],
        synthetic=synthetic,
        splits=splits,
        heldout=HeldoutNote(cases=heldout) if heldout else None,
        metadata=metadata or {},
        usage=usage,
        judge_dimensions=dimensions,
        judge_usage=judged_usage,
        cache=cache,
        agent=agent,
    )
    if isinstance(rows, CaseRows):
        # Not validated again: every row was made from values of its fields' types.
        report = report.model_copy(update={"cases": rows})
    return report


def _rows(
    graded: Sequence[CaseResult], hashes: dict[str, str], compact: bool
) -> list[CaseRow] | CaseRows:
    """The case rows in order; ``compact``: as ``CaseRows``, emptying ``graded`` (a list)
    meanwhile."""
    labels: dict[tuple[str, str], str] = {}
    if not compact or not isinstance(graded, list):
        return [row_of(row_values(r, hashes, labels)) for r in graded]
    values: list[tuple[Any, ...]] = []
    graded.reverse()
    while graded:
        values.append(row_values(graded.pop(), hashes, labels))
    return CaseRows(values)


def cache_summary(graded: Sequence[CaseResult], key_version: int | None) -> CacheSummary | None:
    """Case-trials served from the cache and the usage they avoided; None when the run
    used no cache and no record says it was served from one."""
    records = [r.record for r in graded if r.record is not None]
    served = [r for r in records if (r.extra.get("cache") or {}).get("hit") is True]
    if key_version is None and not served:
        return None
    if key_version is None:
        versions = {r.extra["cache"].get("key_version") for r in served}
        key_version = versions.pop() if len(versions) == 1 else None
    usages = [r.usage for r in served if r.usage is not None]
    return CacheSummary(
        key_version=key_version,
        served=len(served),
        case_trials=len(records),
        called=len(records) - len(served),
        input_tokens_avoided=sum(u.input_tokens or 0 for u in usages),
        output_tokens_avoided=sum(u.output_tokens or 0 for u in usages),
        judge_served=sum(
            1 for r in graded if r.record is not None and JUDGE_CACHE_HIT in r.judgment.labels
        ),
    )


DIMENSIONS = {
    "grounded": ("grounded", "answers rated for grounding"),
    "citations_supported": ("supported", "answers rated for citations"),
}


def judge_dimensions(graded: Sequence[CaseResult], interval: IntervalSetting) -> dict[str, Rate]:
    """Each optional judge dimension as its own rate over the real case-trials the judge
    gave a verdict on it (``grounded=yes|no`` labels); absent dimensions are left out."""
    found: dict[str, Rate] = {}
    for key, (numerator_name, denominator_name) in DIMENSIONS.items():
        said = [
            label.split("=", 1)[1]
            for r in graded
            if not r.case.synthetic and r.status in ("passed", "failed")
            for label in r.judgment.labels
            if label.startswith(f"{key}=")
        ]
        if said:
            found[key] = rate(
                said.count("yes"),
                len(said),
                denominator_name,
                numerator_name=numerator_name,
                interval=interval,
            )
    return found
