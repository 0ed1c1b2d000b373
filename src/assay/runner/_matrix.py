"""Matrix runs: every variant of a suite on one dataset version, one run each, grouped by a
matrix id, all at once with concurrency and rate limits shared per endpoint; resumable."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from assay._fast.collector import run_collection
from assay._version import __version__
from assay.cases import Dataset, content_hash
from assay.compare import MatrixReport, VariantInput, build_matrix
from assay.errors import AssayConfigError, AssayInputError
from assay.load import Suite, Variant, grader_provenance, load_suite, variants_of
from assay.metrics import DEFAULT_INTERVAL, IntervalSetting
from assay.outcomes import Record
from assay.report import BUDGET_KEY, Report
from assay.runner._budget import BudgetMonitor
from assay.runner._execute import EndpointLimits
from assay.runner._options import RateLimiter, RunOptions
from assay.runner._plan import Plan, RunControl, execute_plan, hook_signals
from assay.runner._prepare import prepare_target
from assay.runner._provenance import git_commit, new_run_id, package_versions
from assay.runner._run import (
    Overrides,
    base_metadata,
    budget_for,
    cache_metadata,
    open_cache,
    options_for,
)
from assay.runner._select import Selection, select
from assay.runs import headline, report_for_run, run_metadata
from assay.store import RunInfo, RunStore, redact

MATRIX_PREFIX = "mx-"


@dataclass(frozen=True)
class VariantRun:
    """One variant's run in a matrix and how it ended."""

    name: str
    run_id: str
    overrides: dict[str, Any]
    status: str
    report: Report
    ran: int = 0


@dataclass(frozen=True)
class MatrixResult:
    """A matrix run: its id and every variant's run, in variant order."""

    matrix_id: str
    runs: list[VariantRun] = field(default_factory=list)
    cache_error: str | None = None
    """Why the response cache could not keep some replies (the matrix went on)."""

    @property
    def status(self) -> str:
        statuses = {r.status for r in self.runs}
        return statuses.pop() if len(statuses) == 1 else "interrupted"


def endpoint_of(config: dict[str, Any]) -> str:
    """What one server is: the URL a target calls, else its type and callable (a function
    target's limits are shared by every variant calling the same function)."""
    for key in ("base_url", "url"):
        if isinstance(config.get(key), str):
            return str(config[key]).rstrip("/")
    return f"{config.get('type', '?')}:{config.get('callable', '')}"


class _Forward:
    """One progress display for every variant: started once with the matrix's totals."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def start(self, total: int, done: int) -> None:
        pass

    def advance(self, record: Record) -> None:
        self.inner.advance(record)

    def stop(self) -> None:
        pass


def new_matrix_id(now: datetime) -> str:
    """A sortable, unique matrix id: ``mx-YYYYMMDD-HHMMSS-xxxxxx``."""
    return MATRIX_PREFIX + new_run_id(now)


def _shared_limits(plans: list[Plan], options: RunOptions, control: RunControl) -> None:
    """One concurrency limit (the suite's) and one rate limit per endpoint, for all plans."""
    limits: dict[str, EndpointLimits] = {}
    for plan in plans:
        key = endpoint_of(plan.target.config())
        if key not in limits:
            limiter = RateLimiter(options.rpm, control.timing) if options.rpm else None
            limits[key] = EndpointLimits(options.concurrency, limiter)
        plan.shared = limits[key]


def _shared_writes(plans: list[Plan]) -> None:
    """The variants together write as often as one run does: each writes its batches
    ``len(plans)`` times larger, or that many times less often, than one run alone (a
    transaction costs the store about as much for a few records as for a batch)."""
    n = len(plans)
    for plan in plans:
        o = plan.options
        plan.options = replace(o, batch_size=o.batch_size * n, flush_s=o.flush_s * n)


async def _execute_all(entries: list[tuple[Plan, RunInfo | None]], control: RunControl) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    hooked = hook_signals(stop) if control.handle_signals else []
    inner = control.progress
    sub = replace(control, progress=_Forward(inner) if inner is not None else None)
    if inner is not None:
        total = sum(len(p.dataset.cases) * p.options.trials for p, _ in entries)
        inner.start(total, sum(len(p.done) for p, _ in entries))
    for plan, _ in entries:
        plan.stop = stop
    try:
        await asyncio.gather(*(execute_plan(p, sub, create) for p, create in entries))
    finally:
        for sig in hooked:
            loop.remove_signal_handler(sig)
        if inner is not None:
            inner.stop()


def _run_all(
    entries: list[tuple[Plan, RunInfo | None]],
    names: list[tuple[str, dict[str, Any]]],
    control: RunControl,
    matrix_id: str,
) -> MatrixResult:
    try:
        with run_collection():
            asyncio.run(_execute_all(entries, control))
    except KeyboardInterrupt:
        for plan, _ in entries:
            plan.status = "interrupted"
        raise
    finally:
        runs: list[VariantRun] = []
        for (plan, _), (name, overrides) in zip(entries, names, strict=True):
            if not plan.started:
                continue
            report = report_for_run(plan.store, plan.run_id, results=plan.results())
            plan.store.finish_run(plan.run_id, plan.status, headline(report))
            ended = run_metadata(plan.store.get_run(plan.run_id))
            report = report.model_copy(update={"metadata": ended})
            runs.append(VariantRun(name, plan.run_id, overrides, plan.status, report, plan.written))
    return MatrixResult(matrix_id, runs)


@dataclass(frozen=True)
class _Provenance:
    """What every run of one matrix shares: the git commit and package versions."""

    git_commit: str | None
    packages: dict[str, str]


def _provenance(suite: Suite) -> _Provenance:
    return _Provenance(git_commit(suite.base_dir), package_versions())


def _info(
    variant: Variant,
    dataset: Dataset,
    options: RunOptions,
    target: Any,
    grader: Any,
    metadata: dict[str, Any],
    now: datetime,
    where: _Provenance,
) -> RunInfo:
    suite = variant.suite
    return RunInfo(
        id=new_run_id(now),
        started_at=now,
        suite_path=str(suite.path.resolve()),
        suite=redact(suite.raw),
        dataset_name=dataset.name,
        dataset_version=dataset.version,
        target=redact(target.config()),
        target_hash=content_hash(target.config()),
        graders=[grader_provenance(grader, suite.settings.grader)],
        trials=options.trials,
        trial_policy=suite.settings.trial_policy or "per-trial",
        assay_version=__version__,
        git_commit=where.git_commit,
        packages=where.packages,
        metadata=metadata,
    )


@run_collection()
def run_matrix(
    suite: Suite | str | Path,
    store: RunStore,
    *,
    sets: tuple[str, ...] = (),
    selection: Selection | None = None,
    overrides: Overrides | None = None,
    control: RunControl | None = None,
) -> MatrixResult:
    """Run every variant of ``suite`` (its ``variants:`` crossed with ``sets``) on the
    same selected cases: one run each, grouped under a new matrix id."""
    suite = suite if isinstance(suite, Suite) else load_suite(suite)
    variants = variants_of(suite, sets)
    if not variants:
        raise AssayConfigError(f"{suite.path}: no variants: declare variants: or give --set")
    control = control or RunControl()
    overrides = overrides or Overrides()
    options = options_for(suite, overrides)
    full = suite.load_dataset()  # read once: every variant runs these very cases
    chosen = select(full, selection or Selection())
    now = datetime.now(UTC)
    matrix_id = new_matrix_id(now)
    listing = [{"name": v.name, "overrides": v.overrides} for v in variants]
    cache = open_cache(suite, overrides, store)
    where = _provenance(suite)
    entries: list[tuple[Plan, RunInfo | None]] = []
    rendered: dict[str, Any] = {}  # prompts rendered once per prompt version
    for index, variant in enumerate(variants):
        target = variant.suite.build_target()
        prepare_target(target, full, rendered)
        grader = variant.suite.grader(full)
        metadata = base_metadata(
            variant.suite, full, chosen, selection, overrides, control, store, index
        )
        metadata["matrix"] = {
            "id": matrix_id,
            "variant": variant.name,
            "index": index,
            "overrides": variant.overrides,
            "variants": listing,
        }
        if cache is not None:
            metadata["cache"] = cache_metadata(cache)
        budget = budget_for(variant.suite, overrides, target)  # each variant has the budget
        if budget is not None:
            metadata[BUDGET_KEY] = budget[0]
        info = _info(variant, chosen, options, target, grader, metadata, now, where)
        trace = overrides.trace if overrides.trace is not None else suite.settings.trace
        plan = Plan(store, info.id, chosen, target, grader, options, trace, cache=cache)
        plan.budget = BudgetMonitor(*budget) if budget is not None else None
        entries.append((plan, info))
    _shared_limits([p for p, _ in entries], options, control)
    _shared_writes([p for p, _ in entries])
    try:
        names = [(v.name, v.overrides) for v in variants]
        with chosen.sharing_json():  # every variant stores these cases: encoded once
            result = _run_all(entries, names, control, matrix_id)
    finally:
        if cache is not None:
            cache.cache.close()
    return replace(result, cache_error=cache.cache.write_error if cache else None)


def matrix_runs(store: RunStore, matrix_id: str) -> list[RunInfo]:
    """The runs of a matrix, in variant order; an unknown id is an ``AssayInputError``."""
    found = [
        info
        for info in store.list_runs()
        if isinstance(info.metadata.get("matrix"), dict)
        and str(info.metadata["matrix"].get("id", "")).startswith(matrix_id)
    ]
    ids = sorted({str(i.metadata["matrix"]["id"]) for i in found})
    if not ids:
        known = sorted(
            {
                str(i.metadata["matrix"]["id"])
                for i in store.list_runs()
                if isinstance(i.metadata.get("matrix"), dict)
            }
        )
        hint = f"; stored matrices: {', '.join(known[:5])}" if known else ""
        raise AssayInputError(f"no matrix '{matrix_id}' in the store {store.url}{hint}")
    if len(ids) > 1 and matrix_id not in ids:
        raise AssayInputError(
            f"matrix id '{matrix_id}' is ambiguous: it starts {', '.join(ids[:5])}"
        )
    chosen = matrix_id if matrix_id in ids else ids[0]
    runs = [i for i in found if i.metadata["matrix"]["id"] == chosen]
    return sorted(runs, key=lambda i: int(i.metadata["matrix"].get("index", 0)))


@run_collection()
def resume_matrix(
    store: RunStore,
    matrix_id: str,
    *,
    suite: Suite | str | Path | None = None,
    overrides: Overrides | None = None,
    control: RunControl | None = None,
) -> MatrixResult:
    """Finish a matrix: run only the case-trials its variants have not recorded, and the
    variants never started, on the matrix's own dataset version."""
    runs = matrix_runs(store, matrix_id)
    first = runs[0]
    mx = first.metadata["matrix"]
    imported = first.metadata.get("imported")
    if isinstance(imported, dict):
        raise AssayInputError(
            f"matrix {mx['id']} was imported from {imported.get('tool')} "
            f"({imported.get('file')}): there is nothing to resume"
        )
    versions = {r.dataset_version for r in runs}
    if len(versions) > 1:
        raise AssayInputError(
            f"matrix {mx['id']} holds runs on {len(versions)} dataset versions; "
            "a matrix runs one dataset version"
        )
    base = _base_suite(first, suite)
    overrides = overrides or Overrides()
    if overrides.trials is not None and overrides.trials != first.trials:
        raise AssayConfigError(
            f"--trials {overrides.trials}: matrix {mx['id']} was started with "
            f"{first.trials} trials; a resumed matrix keeps its trial count"
        )
    options = replace(options_for(base, overrides), trials=first.trials)
    dataset = store.load_dataset(first.id)
    by_name = {str(r.metadata["matrix"]["variant"]): r for r in runs}
    control = control or RunControl()
    cache = open_cache(base, overrides, store)
    entries: list[tuple[Plan, RunInfo | None]] = []
    names: list[tuple[str, dict[str, Any]]] = []
    now = datetime.now(UTC)
    full: Dataset | None = None
    rendered: dict[str, Any] = {}
    for index, listed in enumerate(mx.get("variants") or []):
        name, given = str(listed["name"]), dict(listed.get("overrides") or {})
        variant = Variant(name, given, base.with_overrides(given, f"variant {name}"))
        target = variant.suite.build_target()
        if callable(getattr(target, "use_dataset", None)):
            full = full or base.load_dataset()  # the sources the prompts are rendered from
            prepare_target(target, full, rendered)
        grader = variant.suite.grader(dataset)
        trace = overrides.trace if overrides.trace is not None else base.settings.trace
        stored = by_name.get(name)
        if stored is None:  # never started: a new run in the same matrix
            metadata = {**first.metadata, "matrix": {**mx, "variant": name, "index": index}}
            metadata.pop("overrides", None)
            info = _info(
                variant, dataset, options, target, grader, metadata, now, _provenance(base)
            )
            plan = Plan(store, info.id, dataset, target, grader, options, trace, cache=cache)
            entries.append((plan, info))
        else:
            if content_hash(target.config()) != stored.target_hash:
                raise AssayConfigError(
                    f"the target of variant {name} has changed since run {stored.id} started "
                    "(its configuration hash differs); start a new matrix instead"
                )
            done = store.recorded_keys(stored.id)
            if stored.status == "completed" and len(done) == len(dataset.cases) * stored.trials:
                continue
            plan = Plan(store, stored.id, dataset, target, grader, options, trace, done, cache)
            entries.append((plan, None))
        names.append((name, given))
    try:
        if entries:
            _shared_limits([p for p, _ in entries], options, control)
            _shared_writes([p for p, _ in entries])
            with dataset.sharing_json():
                ran = _run_all(entries, names, control, str(mx["id"]))
        else:
            ran = MatrixResult(str(mx["id"]))
    finally:
        if cache is not None:
            cache.cache.close()
    whole = _whole(store, str(mx["id"]), ran)
    return replace(whole, cache_error=cache.cache.write_error if cache else None)


def _whole(store: RunStore, matrix_id: str, ran: MatrixResult) -> MatrixResult:
    """Every variant of the matrix: those just run as they ended, the others as stored."""
    fresh = {r.run_id: r for r in ran.runs}
    runs: list[VariantRun] = []
    for info in matrix_runs(store, matrix_id):
        mx = info.metadata["matrix"]
        if info.id in fresh:
            runs.append(fresh[info.id])
        else:
            report = report_for_run(store, info.id)
            name, given = str(mx["variant"]), dict(mx.get("overrides") or {})
            runs.append(VariantRun(name, info.id, given, info.status, report))
    return MatrixResult(matrix_id, runs)


def _base_suite(info: RunInfo, given: Suite | str | Path | None) -> Suite:
    if isinstance(given, Suite):
        return given
    if given is not None:
        return load_suite(given)
    if info.suite_path is None or not Path(info.suite_path).exists():
        raise AssayConfigError(
            f"matrix run {info.id} was started from {info.suite_path}, which no longer "
            "exists; give the suite: assay run SUITE --resume MATRIX_ID"
        )
    return load_suite(info.suite_path)


def matrix_report(
    store: RunStore,
    matrix_id: str,
    *,
    interval: IntervalSetting = DEFAULT_INTERVAL,
    reports: Mapping[str, Report] | None = None,
) -> MatrixReport:
    """The matrix report of a stored matrix: every variant's run, every pair compared.

    ``reports`` (by run id) are reports already built at 95% Clopper–Pearson, e.g. by the
    run that just ended; they are used instead of rebuilding those runs' reports.
    """
    inputs = []
    runs = matrix_runs(store, matrix_id)
    full_id = str(runs[0].metadata["matrix"]["id"])
    for info in runs:
        mx = info.metadata["matrix"]
        known = (reports or {}).get(info.id)
        if known is None or interval != DEFAULT_INTERVAL:
            known = report_for_run(store, info.id, interval=interval)
        report = known
        inputs.append(
            VariantInput(
                name=str(mx["variant"]),
                run_id=info.id,
                status=info.status,
                overrides=dict(mx.get("overrides") or {}),
                report=report,
            )
        )
    return build_matrix(full_id, inputs, interval=interval)
