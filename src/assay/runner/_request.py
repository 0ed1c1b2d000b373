"""What ``assay run`` is asked to do: a suite run, a resume, a matrix or a dry run, with its
options, checked together before anything runs (``AssayConfigError`` naming the flags)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from assay.errors import AssayConfigError
from assay.load import Suite, load_suite
from assay.metrics import DEFAULT_INTERVAL, IntervalSetting
from assay.runner._run import Overrides
from assay.runner._select import Selection

__all__ = ["RunRequest"]

MAX_SEED = 2**63


@dataclass(frozen=True)
class RunRequest:
    """A run of ``suite`` (or the resume of stored run ``resume``) into the store at
    ``store``: a matrix with ``sets`` (or a suite's ``variants:``, or a matrix id to
    resume), else one run, or only its dry run. Made, it refuses options that contradict
    each other; the checks that need the suite's file are ``is_matrix`` and ``single``."""

    suite: Path | None = None
    resume: str | None = None
    store: str | None = None
    name: str | None = None
    """The new run's name (unique in the store)."""
    sets: tuple[str, ...] = ()
    """``KEY=V1,V2`` settings: a matrix of one variant per value, crossed."""
    overrides: Overrides = field(default_factory=Overrides)
    selection: Selection = field(default_factory=Selection)
    otlp_endpoint: str | None = None
    receive_spans: bool = False
    """Receive the application's own spans over OTLP/HTTP on 127.0.0.1 while it runs."""
    receive_port: int = 4318
    interval: IntervalSetting = DEFAULT_INTERVAL
    trial_policy: str | None = None
    """How several trials of a case combine in the report (checked against the trials run)."""
    product_selects_best: bool = False
    dry_run: bool = False
    pilot: str | None = None
    """With ``dry_run``: the stored run whose usage the forecast is made from."""

    def __post_init__(self) -> None:
        o = self.overrides
        if self.suite is None and self.resume is None:
            raise AssayConfigError("give a suite file to run, or --resume RUN_ID")
        if self.resume is not None:
            if any(v is not None for v in (o.max_cost, o.max_calls, o.max_tokens)):
                raise AssayConfigError(
                    "--max-cost, --max-calls and --max-tokens budget a new run; a resumed run "
                    "keeps the budget it was started with"
                )
            if o.prices is not None:
                raise AssayConfigError(
                    "--prices prices a new run; a resumed run keeps its own price table "
                    f"(re-price it with: assay report {self.resume} --prices {o.prices})"
                )
            if self.sequential:
                raise AssayConfigError(
                    "--until-decided and --seed start a sequential run; a resumed run keeps "
                    "how it was started (its order and gates are stored with it)"
                )
        if self.pilot is not None and not self.dry_run:
            raise AssayConfigError("--pilot gives a dry run's forecast its usage; add --dry-run")
        if self.dry_run and (self.resume is not None or self.sets):
            raise AssayConfigError("--dry-run needs a suite file (not --resume, not --set)")
        if o.seed is not None and not 0 <= o.seed < MAX_SEED:
            raise AssayConfigError(f"--seed {o.seed}: must be a whole number from 0 to 2^63-1")
        if self.resume is not None and self.sets:
            raise AssayConfigError("--resume finishes the stored matrix's own variants; drop --set")

    @property
    def sequential(self) -> bool:
        """Whether a sequential run is asked for (``--until-decided``, ``--seed`` or
        ``--not-worse-than``)."""
        o = self.overrides
        return o.until_decided or o.seed is not None or bool(o.not_worse_than)

    @property
    def run_overrides(self) -> Overrides:
        """The overrides the run is given: receiving spans records them, and a cache path
        turns the cache on unless it is turned off."""
        o = self.overrides
        trace = True if self.receive_spans else o.trace
        cache = True if o.cache_path is not None and o.cache is None else o.cache
        return o if (trace, cache) == (o.trace, o.cache) else replace(o, trace=trace, cache=cache)

    @property
    def label(self) -> str:
        """What a progress display calls the run: its suite file, else the run resumed."""
        if self.suite is not None:
            return f"{self.suite.parent.name}/{self.suite.name}".lstrip("/")
        return f"run {self.resume}"

    def load(self) -> Suite | None:
        """The suite file loaded, once, when a new run reads it: whether it declares
        variants, and (when it does not) the run's suite; None with ``resume`` or ``sets``."""
        if self.suite is None or self.resume is not None or self.sets:
            return None
        return load_suite(self.suite)

    def is_matrix(self, loaded: Suite | None) -> bool:
        """Whether a matrix runs (``loaded``: what ``load`` gave), refusing the options
        that apply to one run only."""
        variants = loaded is not None and bool(loaded.settings.variants)
        resumed = self.resume is not None and self.resume.startswith("mx-")
        new = self.suite is not None and self.resume is None and (bool(self.sets) or variants)
        if not (resumed or new):
            return False
        if self.name is not None:
            raise AssayConfigError("--name names one run; a matrix's runs are named by variant")
        if self.sequential:
            raise AssayConfigError("--until-decided runs one suite, not a matrix")
        if self.dry_run:
            raise AssayConfigError(
                "--dry-run shows one suite's run, not a matrix's: dry-run a variant's own suite"
            )
        if self.overrides.executor == "ray":
            raise AssayConfigError("--executor ray runs one suite at a time, not a matrix")
        return True

    def single(self, loaded: Suite | None) -> Suite | None:
        """The suite of the one run (``loaded``, or the file given to resume with; None to
        resume with the suite the run was started from), refusing the options a resumed
        run cannot take."""
        if self.resume is not None and not self.selection.empty:
            raise AssayConfigError(
                "--resume runs the stored run's own cases; drop --limit/--slice/--ids"
            )
        if loaded is None and self.suite is not None:
            loaded = load_suite(self.suite)
        if self.name is not None and self.resume is not None:
            raise AssayConfigError("--name names a new run; a resumed run keeps its name")
        return loaded
