"""Running a suite into the store: start a run or resume one, stop cleanly on Ctrl-C."""

from __future__ import annotations

import asyncio
import contextlib
import math
import secrets
from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from assay._fast.collector import run_collection
from assay._version import __version__
from assay.cases import Dataset, content_hash
from assay.errors import MAX_TRIALS, AssayConfigError, StoreError
from assay.gates import (
    DEFAULT_ALPHA,
    SEQUENTIAL_RATES,
    GateResult,
    Rule,
    evaluate_gates,
    gate_texts,
    needs_baseline,
    paired_rule,
    paired_rules,
    parse_rule,
    sequential_problem,
    sequential_rule,
    sequential_texts,
)
from assay.load import (
    Suite,
    grader_provenance,
    load_prices,
    load_suite,
    named_path,
    path_exists,
)
from assay.report import (
    BUDGET_KEY,
    BUDGET_LIMITS,
    SEQUENTIAL_KEY,
    Price,
    Report,
    SequentialMonitor,
    budget_settings,
    sequential_settings,
)
from assay.runner._budget import BudgetMonitor, budget_limits, budget_price
from assay.runner._cache import CACHE_KEY_VERSION, CacheUse, ResponseCache, default_cache_path
from assay.runner._guard import LoopBlocked
from assay.runner._options import RunOptions
from assay.runner._plan import Plan, Progress, RunControl, execute_plan
from assay.runner._prepare import prepare_target
from assay.runner._provenance import GitCommit, new_run_id, package_versions
from assay.runner._ray import RaySettings, ray_target
from assay.runner._select import Selection, select
from assay.runs import headline, report_for_run, run_metadata, suite_baseline
from assay.store import RunClaim, RunInfo, RunStore, redact
from assay.targets import Target

__all__ = ["Overrides", "Progress", "RunControl", "RunResult", "resume_run", "run_suite"]


@dataclass(frozen=True)
class Overrides:
    """Command-line values that replace the suite's (None keeps the suite's), checked
    against the suite's bounds when made (``AssayConfigError`` naming the option)."""

    concurrency: int | None = None
    trials: int | None = None
    timeout_s: float | None = None
    retries: int | None = None
    rpm: float | None = None
    trace: bool | None = None
    cache: bool | None = None
    cache_path: str | None = None
    executor: str | None = None
    """``local`` (the default) or ``ray``: where the target's calls run."""
    address: str | None = None
    """The Ray cluster to join (``auto``, ``ray://host:10001``); None starts one locally."""
    prices: str | None = None
    """A price table (YAML) used instead of the suite's ``prices`` (``--prices``)."""
    until_decided: bool = False
    """Every gate on a case rate is sequential: stop once each is decided."""
    seed: int | None = None
    """The seed of a sequential run's random order of cases (None: drawn at random)."""
    not_worse_than: str | None = None
    """A stored run: the sequential run is also gated on doing no worse, case by case."""
    max_cost: float | None = None
    """The run's budget in USD, over the suite's ``max_cost`` (``--max-cost``)."""
    max_calls: int | None = None
    """The run's budget of target calls, over the suite's ``max_calls`` (``--max-calls``)."""
    max_tokens: int | None = None
    """The run's budget of tokens, over the suite's ``max_tokens`` (``--max-tokens``)."""

    def __post_init__(self) -> None:
        for key, value in self.given().items():
            _check_override(key, value)
        for key in BUDGET_LIMITS:
            value = getattr(self, key)
            if value is not None and not (math.isfinite(value) and value > 0):
                flag = "--" + key.replace("_", "-")
                raise AssayConfigError(f"{flag} {value:g}: must be a number more than 0")
        if self.executor not in (None, "local", "ray"):
            raise AssayConfigError(f"--executor {self.executor}: must be local or ray")
        if self.address is not None and self.executor != "ray":
            raise AssayConfigError("--address joins a Ray cluster: give --executor ray too")

    def given(self) -> dict[str, Any]:
        """The run options overridden (``trace`` aside), by ``RunOptions`` field name."""
        return {
            k: v
            for k, v in vars(self).items()
            if v is not None and k in RunOptions.__dataclass_fields__
        }


@dataclass(frozen=True)
class RunResult:
    """How a run ended and its report."""

    run_id: str
    status: str
    report: Report
    ran: int
    skipped: int = 0
    cache_error: str | None = None
    """Why the response cache could not keep this run's replies (the run went on)."""
    gates: tuple[GateResult, ...] = ()
    """The suite's ``gates:`` applied to the report, in order (none when it has none)."""

    @property
    def gates_passed(self) -> bool:
        """True when every gate of the suite holds (and when there is none)."""
        return all(g.passed for g in self.gates)


def _gated(result: RunResult, suite: Suite, store: RunStore) -> RunResult:
    """``result`` with the suite's gates applied to its report (a margin check against
    the suite's baseline run in ``store``)."""
    rules = suite.settings.gates
    paired = paired_rules(result.report)
    if rules is None and not paired:
        return result
    listed: list[str | Rule] = [*gate_texts(rules), *paired]
    baseline = suite_baseline(store, result.run_id) if needs_baseline(suite.gate_rules()) else None
    gates = []
    for text in listed:
        try:
            gates += evaluate_gates(result.report, [text], baseline)
        except AssayConfigError as err:  # a slice this run does not have: the gate fails
            gates.append(
                GateResult(
                    rule=text if isinstance(text, Rule) else parse_rule(text),
                    passed=False,
                    actual=None,
                    margin=None,
                    message=str(err),
                )
            )
    return replace(result, gates=tuple(gates))


def options_for(suite: Suite, overrides: Overrides) -> RunOptions:
    """The suite's run settings with any overrides applied."""
    s = suite.settings
    opts = RunOptions(
        concurrency=s.concurrency,
        trials=s.trials,
        timeout_s=s.timeout_s,
        retries=s.retries,
        rpm=s.rpm,
    )
    return replace(opts, **overrides.given())


# The bounds of each override, as in the suite file: (flag, lowest, lowest allowed, highest).
_BOUNDS: dict[str, tuple[str, float, bool, float]] = {
    "concurrency": ("--concurrency", 1, True, 10_000),
    "trials": ("--trials", 1, True, MAX_TRIALS),
    "timeout_s": ("--timeout", 0, False, math.inf),
    "retries": ("--retries", 0, True, 20),
    "rpm": ("--rpm", 0, False, math.inf),
}


def _check_override(key: str, value: float) -> None:
    flag, low, low_ok, high = _BOUNDS[key]
    above = value >= low if low_ok else value > low
    if math.isfinite(value) and above and value <= high:
        return
    lowest = f"at least {low:g}" if low_ok else f"more than {low:g}"
    highest = f" and at most {high:g}" if math.isfinite(high) else ""
    raise AssayConfigError(f"{flag} {value:g}: must be a number {lowest}{highest}")


def executed_target(suite: Suite, overrides: Overrides, options: RunOptions) -> Target:
    """The suite's target, called where ``--executor`` says (locally, or on Ray actors)."""
    target = suite.build_target()
    if overrides.executor != "ray":
        return target
    settings = RaySettings(address=overrides.address)
    return ray_target(target, suite.settings.target, suite.base_dir, settings, options.concurrency)


def open_cache(suite: Suite, overrides: Overrides, store: RunStore) -> CacheUse | None:
    """The response cache the run uses (None when off): ``--cache``/``--no-cache`` over the
    suite's ``cache`` key; the file is ``--cache-path``, else the suite's ``cache.path``
    (relative to the suite file), else ``cache.db`` beside the store's file."""
    settings = suite.settings.cache_settings
    enabled = overrides.cache if overrides.cache is not None else settings.enabled
    if not enabled:
        return None
    if overrides.cache_path is not None:
        path = Path(overrides.cache_path)
        path_exists(path, "--cache-path")  # a name the system refuses is refused here
    elif settings.path is not None:
        where = suite.locate("cache.path")
        path = named_path(settings.path, suite.base_dir, where, "cache.path", "suite")
    else:
        path = default_cache_path(store.url)
    return CacheUse(ResponseCache(path), settings.deterministic)


def cache_metadata(cache: CacheUse) -> dict[str, Any]:
    """What a run records about the cache it used."""
    return {
        "key_version": CACHE_KEY_VERSION,
        "deterministic": cache.deterministic,
        "path": str(cache.cache.path),
    }


def _run_plan(plan: Plan, control: RunControl, create: RunInfo | None) -> RunResult:
    """Execute the plan and record how the run ended, whatever happened."""
    report: Report | None = None
    store_failed = False
    hooks = plan.guard if control.handle_signals else contextlib.nullcontext()
    with hooks, _released(plan):
        try:
            with run_collection():
                asyncio.run(execute_plan(plan, control, create))
        except LoopBlocked:  # said on stderr; the run ends like one stopped by Ctrl-C
            plan.status = "interrupted"
        except KeyboardInterrupt:
            plan.status = "interrupted"
            raise
        except StoreError as err:
            store_failed = True
            if not plan.started:
                raise
            raise _stopped_by_the_store(plan, err) from None
        finally:
            if plan.started and not store_failed:
                report = _finish(plan)
    plan.guard.end_recording()  # a signal held back while the end was recorded: exit now
    assert report is not None  # the run was created, or an exception went up
    return RunResult(plan.run_id, plan.status, report, plan.written, len(plan.done))


@contextlib.contextmanager
def _released(plan: Plan) -> Iterator[None]:
    try:
        yield
    finally:
        plan.claim.release()


def _stopped_by_the_store(plan: Plan, err: StoreError) -> StoreError:
    """The store failed during the run (full disk, lost connection…): what was stored
    stays, and the run is marked ``interrupted`` (when the store still takes that one
    small write) so that ``--resume`` finishes it."""
    plan.status = "interrupted"
    plan.store.release_reserve()  # the room to write this
    try:
        with plan.guard.deferred():
            plan.store.finish_run(plan.run_id, plan.status)
        marked = f"run {plan.run_id} is marked interrupted"
    except StoreError:
        marked = f"run {plan.run_id} could not even be marked interrupted (it shows as running)"
    return StoreError(
        f"{err}\nThe run stopped: {marked}; every case-trial stored before the failure is "
        f"kept. Once the store can be written again, finish it with "
        f"`assay run --resume {plan.run_id}`",
        err.kind,
    )


def _finish(plan: Plan) -> Report:
    """Record the run's final status (a Ctrl-C cannot cut this short), then its headline."""
    try:
        with plan.guard.deferred():
            plan.store.finish_run(plan.run_id, plan.status)
    finally:
        plan.store.release_reserve()
    report = report_for_run(plan.store, plan.run_id, results=plan.results())
    with plan.guard.deferred():  # a second Ctrl-C waits for the write to end
        plan.store.finish_run(plan.run_id, plan.status, headline(report))
    ended = run_metadata(plan.store.get_run(plan.run_id))
    return report.model_copy(update={"metadata": ended})


@run_collection()  # the report and the run's preparation too
def run_suite(
    suite: Suite | str | Path,
    store: RunStore,
    *,
    selection: Selection | None = None,
    overrides: Overrides | None = None,
    control: RunControl | None = None,
) -> RunResult:
    """Run a suite's target over its (selected) cases and store the run.

    It blocks until the run ends, on an event loop of its own: inside a running event
    loop (a Jupyter notebook's) it raises ``RuntimeError`` before anything runs, saying to
    ``await run_suite_async(...)`` instead.
    """
    refuse_in_running_loop("run_suite", "run_suite_async")
    suite = suite if isinstance(suite, Suite) else load_suite(suite)
    commit = GitCommit(suite.base_dir)  # answered while the run is prepared
    control = control or RunControl()
    options = options_for(suite, overrides or Overrides())
    full = suite.load_dataset()
    chosen = select(full, selection or Selection())
    target = executed_target(suite, overrides or Overrides(), options)
    prepare_target(target, full)
    grader = suite.grader(full)
    now = datetime.now(UTC)
    metadata = base_metadata(suite, full, chosen, selection, overrides, control, store)
    sequential = sequential_settings_for(suite, overrides or Overrides(), store, chosen)
    monitor = None
    if sequential is not None:
        metadata[SEQUENTIAL_KEY] = sequential
        monitor = SequentialMonitor(sequential, chosen.cases, options.trials)
    budget = budget_for(suite, overrides or Overrides(), target)
    if budget is not None:
        metadata[BUDGET_KEY] = budget[0]
    cache = open_cache(suite, overrides or Overrides(), store)
    if cache is not None:
        metadata["cache"] = cache_metadata(cache)
    config = redact(target.config())
    info = RunInfo(
        id=new_run_id(now),
        started_at=now,
        suite_path=str(suite.path.resolve()),
        suite=redact(suite.raw),
        dataset_name=chosen.name,
        dataset_version=chosen.version,
        target=config,
        target_hash=content_hash(target.config()),
        graders=[grader_provenance(grader, suite.settings.grader)],
        trials=options.trials,
        trial_policy=suite.settings.trial_policy or "per-trial",
        assay_version=__version__,
        git_commit=commit.result(),
        packages=package_versions(),
        metadata=metadata,
    )
    trace = overrides.trace if overrides and overrides.trace is not None else suite.settings.trace
    plan = Plan(
        store,
        info.id,
        chosen,
        target,
        grader,
        options,
        trace,
        cache=cache,
        claim=store.claim(info.id),
        monitor=monitor,
        budget=BudgetMonitor(*budget) if budget is not None else None,
    )
    try:
        result = _run_plan(plan, control, info)
    finally:
        if cache is not None:
            cache.cache.close()
    result = replace(result, cache_error=cache.cache.write_error if cache else None)
    return _gated(result, suite, store)


def budget_for(
    suite: Suite, overrides: Overrides, target: Target
) -> tuple[dict[str, Any], Price | None] | None:
    """The run's budget (each limit from the command line, else the suite) and the price
    its cost is spent at, or None without one; a ``max_cost`` with no price for the
    target's model is refused before the run starts."""
    s = suite.settings
    limits = budget_limits(
        {"max_cost": s.max_cost, "max_calls": s.max_calls, "max_tokens": s.max_tokens},
        {k: getattr(overrides, k) for k in BUDGET_LIMITS},
    )
    if limits is None:
        return None
    given = overrides.prices
    prices = load_prices(Path(given)) if given is not None else suite.price_table()
    model = target.config().get("model")
    price = budget_price(limits, prices, model if isinstance(model, str) else None)
    return limits, price


def refuse_in_running_loop(call: str, awaited: str) -> None:
    """Raise ``RuntimeError`` when an event loop is running in this thread: ``call`` runs
    one of its own until the run ends, which a running loop (a notebook's) cannot host."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return
    raise RuntimeError(
        f"{call} blocks until the run ends, but an event loop is already running in this "
        f"thread (as in a Jupyter notebook): use `await assay.{awaited}(...)` there instead "
        "(same arguments, same result)"
    )


def sequential_settings_for(
    suite: Suite, overrides: Overrides, store: RunStore, chosen: Dataset
) -> dict[str, Any] | None:
    """What a sequential run records (its seed, error bound and rules), or None for a fixed
    run: with ``--until-decided`` every gate on a case rate is sequential, else those the
    suite marks ``sequential: true``; ``--not-worse-than RUN`` adds the paired rule."""
    gates = suite.settings.gates
    paired = []
    if overrides.not_worse_than is not None:
        if not overrides.until_decided:
            raise AssayConfigError(
                "--not-worse-than compares as the run goes: give --until-decided"
            )
        paired = [_paired_with(store, overrides.not_worse_than, chosen)]
    if overrides.until_decided:
        rules = [parse_rule(t) for t in gate_texts(gates)]
        rules = [r for r in rules if sequential_problem(r) is None]
        if not rules and not paired:
            raise AssayConfigError(
                f"--until-decided stops a run once its gates are decided, and {suite.path} "
                f"has no gate on a case rate ({SEQUENTIAL_RATES}); add one under gates:"
            )
    else:
        rules = [parse_rule(t) for t in sequential_texts(gates)]
        if not rules:
            if overrides.seed is not None:
                raise AssayConfigError(
                    "--seed orders a sequential run's cases: give --until-decided too, or "
                    "mark a gate sequential: true"
                )
            return None
    policy = suite.settings.trial_policy
    seed = overrides.seed if overrides.seed is not None else secrets.randbelow(2**32)
    return {
        "seed": seed,
        "alpha": DEFAULT_ALPHA,
        "rules": [sequential_rule(r, policy) for r in rules] + paired,
    }


def _paired_with(store: RunStore, baseline: str, chosen: Dataset) -> dict[str, Any]:
    """The paired rule against stored run ``baseline``: its trials' mean for every case of
    ``chosen`` it ran with the same content."""
    info = store.get_run(baseline)
    hashes = chosen.case_hashes
    passed: dict[str, list[int]] = {}
    for row in report_for_run(store, info.id).cases:
        if row.synthetic or row.status == "missing" or row.case_hash != hashes.get(row.id):
            continue
        passed.setdefault(row.id, []).append(int(row.status == "passed"))
    scores = {case_id: sum(p) / len(p) for case_id, p in passed.items()}
    if not scores:
        raise AssayConfigError(
            f"--not-worse-than {baseline}: run {info.id} ran none of these cases with the same "
            "content; compare with a run of this dataset"
        )
    return paired_rule(info.id, scores)


def base_metadata(
    suite: Suite,
    full: Dataset,
    chosen: Dataset,
    selection: Selection | None,
    overrides: Overrides | None,
    control: RunControl,
    store: RunStore,
    earlier_heldout_runs: int = 0,
) -> dict[str, Any]:
    """What a run records about how it was started: the suite's and caller's metadata,
    the selection and split, overrides, the dataset change, held-out run count and the
    price table. ``earlier_heldout_runs``: held-out runs started with this one but not yet
    stored (the variants of a matrix before it)."""
    metadata: dict[str, Any] = {**suite.settings.metadata, **control.metadata}
    if selection is not None and not selection.empty:
        metadata["selection"] = selection.describe()
        metadata["full_dataset_version"] = full.version
    if overrides is not None and overrides.given():
        metadata["overrides"] = overrides.given()
    if overrides is not None and overrides.executor == "ray":
        metadata["executor"] = {"name": "ray", "address": overrides.address or "local"}
    metadata["split"] = (selection or Selection()).split
    if full.change is not None:
        metadata["dataset_change"] = full.change
    if any(c.split == "heldout" for c in chosen.cases):
        runs = _heldout_runs(store, chosen.name)
        metadata["heldout_runs"] = 1 + runs + earlier_heldout_runs
    given = overrides.prices if overrides is not None else None
    prices = load_prices(Path(given)) if given is not None else suite.price_table()
    if prices is not None:
        metadata["prices"] = prices.stored()
    return metadata


def _heldout_runs(store: RunStore, dataset_name: str) -> int:
    """Stored runs of ``dataset_name`` that included held-out cases."""
    return sum(
        1
        for info in store.list_runs()
        if info.dataset_name == dataset_name and info.metadata.get("heldout_runs")
    )


@run_collection()
def resume_run(
    store: RunStore,
    run_id: str,
    *,
    suite: Suite | str | Path | None = None,
    overrides: Overrides | None = None,
    control: RunControl | None = None,
) -> RunResult:
    """Run only the case-trials a stored run has not recorded yet, into the same run.

    A completed run is left untouched: its report is returned and nothing runs. Like
    ``run_suite``, it refuses to block inside a running event loop (``resume_run_async``).
    """
    refuse_in_running_loop("resume_run", "resume_run_async")
    info = store.get_run(run_id)
    claim = store.claim(info.id)  # before anything is read: another resume may be writing
    try:
        return _resume_claimed(store, store.get_run(info.id), claim, suite, overrides, control)
    except BaseException:
        claim.release()
        raise


def _resume_claimed(
    store: RunStore,
    info: RunInfo,
    claim: RunClaim,
    suite: Suite | str | Path | None,
    overrides: Overrides | None,
    control: RunControl | None,
) -> RunResult:
    suite = _suite_of(info, suite)
    matrix = info.metadata.get("matrix")
    if isinstance(matrix, dict):  # one variant of a matrix: its own overrides again
        given = dict(matrix.get("overrides") or {})
        suite = suite.with_overrides(given, f"variant {matrix.get('variant')}")
    overrides = overrides or Overrides()
    if overrides.trials is not None and overrides.trials != info.trials:
        raise AssayConfigError(
            f"--trials {overrides.trials}: run {info.id} was started with {info.trials} trials; "
            "a resumed run keeps its trial count"
        )
    options = replace(options_for(suite, overrides), trials=info.trials)
    target = executed_target(suite, overrides, options)
    if content_hash(target.config()) != info.target_hash:
        raise AssayConfigError(
            f"the target in {suite.path} has changed since run {info.id} started "
            "(its configuration hash differs); start a new run instead of resuming"
        )
    prepare_target(target, suite.load_dataset())
    trace = overrides.trace if overrides.trace is not None else suite.settings.trace
    dataset = store.load_dataset(info.id)
    done = store.recorded_keys(info.id)
    sequential = sequential_settings(info.metadata) is not None
    whole = len(done) == len(dataset.cases) * info.trials
    if info.status == "completed" and (whole or sequential):  # a sequential run ended so
        claim.release()
        finished = RunResult(info.id, info.status, report_for_run(store, info.id), 0, len(done))
        return _gated(finished, suite, store)
    cache = open_cache(suite, overrides, store)
    plan = Plan(
        store, info.id, dataset, target, suite.grader(), options, trace, done, cache, claim=claim
    )
    settings = sequential_settings(info.metadata)
    if settings is not None:  # the cases recorded are tested again, in the seeded order
        plan.monitor = SequentialMonitor(settings, dataset.cases, info.trials)
        for row in report_for_run(store, info.id).cases:
            if row.status != "missing":
                plan.monitor.add(row.id, row.status == "passed")
        plan.monitor.advance()
    budget = budget_settings(info.metadata)
    if budget is not None:  # the run's own budget, less what it spent so far
        plan.budget = BudgetMonitor(budget, _stored_price(info, budget))
        for record in store.records(info.id):
            plan.budget.done(record)
    try:
        result = _run_plan(plan, control or RunControl(), None)
    finally:
        if cache is not None:
            cache.cache.close()
    result = replace(result, cache_error=cache.cache.write_error if cache else None)
    return _gated(result, suite, store)


def _stored_price(info: RunInfo, budget: dict[str, Any]) -> Price | None:
    """The price a stored run's ``max_cost`` is spent at: its own table's, for its model."""
    if budget.get("max_cost") is None:
        return None
    table = (info.metadata.get("prices") or {}).get("table") or {}
    found = table.get(info.target.get("model"))
    return Price.model_validate(found) if isinstance(found, dict) else None


def _suite_of(info: RunInfo, given: Suite | str | Path | None) -> Suite:
    """The suite to resume ``info`` with: the one given, else the one it was started from."""
    if isinstance(given, Suite):
        return given
    if given is not None:
        return load_suite(given)
    if info.suite_path is None or not Path(info.suite_path).exists():
        where = f"from {info.suite_path}, which no longer exists" if info.suite_path else ""
        raise AssayConfigError(
            f"run {info.id} was started {where or 'without a suite file'}; give the suite: "
            f"assay run SUITE --resume {info.id}"
        )
    return load_suite(info.suite_path)
