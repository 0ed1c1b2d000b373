"""Each speed trick in ``assay._fast`` against the plain code it stands for, on the figure
a user sees that it is there for (a command's CPU or wall time, its peak memory).

Every measurement is one ``assay`` command run as a child process, either as it is or
with one trick replaced by its plain form (patched in the child before assay's modules
are imported); the two alternate (with, without; then without, with; …), repetitions
times, and the medians are compared. A trick stays while it saves at least 10% of one of
its figures (``KEEP_AT``).

    .venv/bin/python bench/speed_tricks.py [--full] [--reps 3] [--only TRICK ...]
        [--write bench/RESULTS.md]

The default sizes suit a two-core machine (about ten minutes, a quarter of an hour when
it is busy); ``--full`` measures at ten times the size (several times longer).
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import importlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(BENCH))

SECTION = "speed_tricks"
"""The section of bench/RESULTS.md at the default sizes; ``--full`` writes ``speed_tricks_full``."""
KEEP_AT = 0.10
"""The least share of a figure a trick must save to stay."""


# The plain forms, applied in the child before any module that uses a trick is imported
# (those modules bind the trick's name when they are imported).


@contextlib.contextmanager
def _as_it_is() -> Iterator[None]:
    """The collector left as it is (a context manager and a decorator, as the tricks)."""
    yield


def _plain_run_collection() -> None:
    from assay._fast import collector

    collector.run_collection = _as_it_is


def _plain_special_functions() -> None:
    from assay._fast import special_functions

    def special() -> Any:
        import scipy.special

        s = scipy.special
        return special_functions.Special(s.betaincinv, s.ndtri, s.stdtrit)

    special_functions.special = special  # type: ignore[assignment]


def _validated(cls: Any, values: dict[str, Any], given: Any) -> Any:
    """``checked_instance``'s plain form: the values validated."""
    made = cls.model_validate(values)
    object.__setattr__(made, "__pydantic_fields_set__", given)
    return made


def _validated_in(*modules: str) -> Callable[[], None]:
    """``checked_instance``'s plain form in ``modules`` alone (they look it up when called)."""

    def patch() -> None:
        for name in modules:
            importlib.import_module(name).checked_instance = _validated  # type: ignore[attr-defined]

    return patch


def _plain_shared_fields() -> None:
    from assay._fast import shared_fields, unvalidated

    shared_fields.shared_field_names = set  # type: ignore[assignment]
    made = unvalidated.checked_instance
    unvalidated.checked_instance = lambda cls, values, given: made(cls, values, set(given))


def _plain_forked() -> None:
    from assay._fast import forked

    forked.Forked.start = classmethod(lambda cls, make: None)  # type: ignore[assignment]


def _plain_loaded() -> None:
    from assay._fast import modules

    found = modules.loaded

    def loaded(name: str) -> Any:
        return importlib.import_module(name) if name.startswith("assay.") else found(name)

    modules.loaded = loaded


@dataclass(frozen=True)
class Trick:
    """A trick: where it is, what the plain form is, and the figures it is for."""

    name: str
    where: str
    plain: str
    patch: Callable[[], None]
    figures: tuple[tuple[str, str], ...]
    """(command, metric) pairs: metric one of wall_s, cpu_s, peak_mb."""


TRICKS = (
    Trick(
        "run_collection",
        "`_fast/collector.py` `run_collection`: `gc.freeze`, young threshold 10,000 during a run",
        "the collector left as it is",
        _plain_run_collection,
        (("run", "cpu_s"),),
    ),
    Trick(
        "special_functions",
        "`_fast/special_functions.py`: scipy's compiled ufuncs loaded alone (`sys.modules`, "
        "the import system's module lock)",
        "`import scipy.special`",
        _plain_special_functions,
        (("score_level", "wall_s"), ("score_level", "cpu_s")),
    ),
    Trick(
        "unvalidated_loading",
        "`checked_instance` where cases, results and verdicts are read and counted "
        "(`cases/_parse.py`, `outcomes/_parse.py`, `grading/_structured.py`, "
        "`metrics/_counts.py`)",
        "`Model.model_validate(values)` there",
        _validated_in(
            "assay.cases._parse",
            "assay.outcomes._parse",
            "assay.grading._structured",
            "assay.metrics._counts",
        ),
        (("score", "cpu_s"),),
    ),
    Trick(
        "unvalidated_stored_rows",
        "`checked_instance` for a stored run's records and judgments (`store/_rows.py`)",
        "`Model.model_validate(values)` there",
        _validated_in("assay.store._rows"),
        (("report", "cpu_s"),),
    ),
    Trick(
        "shared_fields",
        "`_fast/shared_fields.py`: one shared `__pydantic_fields_set__` per set of given fields",
        "a set per instance (pydantic's own)",
        _plain_shared_fields,
        (("score", "peak_mb"), ("report", "peak_mb")),
    ),
    Trick(
        "forked",
        "`_fast/forked.py` (`os.fork`): a large stored run's JSON, HTML or JUnit rows "
        "rendered by two processes",
        "one process renders every row",
        _plain_forked,
        (("report", "wall_s"),),
    ),
    Trick(
        "loaded",
        "`_fast/modules.py` `loaded`: a module used only if already imported (`sys.modules`): "
        "the store's closing at exit, the judge's provenance",
        "the module imported",
        _plain_loaded,
        (("help", "wall_s"), ("help", "cpu_s"), ("run", "cpu_s")),
    ),
)
BY_NAME = {t.name: t for t in TRICKS}

REMOVED: tuple[str, ...] = (
    "no_cycle_collection (`gc.disable` while `assay score`, `assay report`, `assay compare` "
    "built a report): saved 8% of `assay score`'s CPU at 50,000 cases (3.291 s against "
    "3.563 s) and 8% at 500,000 (25.283 s against 27.381 s); 7% of a stored run's report at "
    "110,000 case-trials (5.214 s against 5.607 s), 1% at 500,000.",
    "unchecked_replace (a dataset without its locations copied with `object.__setattr__`, "
    "its ids not checked again): 9% of `assay score`'s CPU at 50,000 cases (4.102 s against "
    "4.500 s), −15% at 500,000 (27.108 s against 23.654 s); `dataclasses.replace` now.",
    "`checked_instance` where a run makes its records, usage and spans (`runner/_record.py`, "
    "`runner/_cache.py`, `targets/_replies.py`, `tracing/_store_tracer.py`): −6% of "
    "`assay run`'s CPU at 2,000 cases (3.980 s against 3.749 s); the models are validated "
    "now. (A fully cached rerun, the figure of `runner/_cache.py`'s use, was not measured "
    "on its own.)",
    "`checked_instance` for a report's rows (`report/_rows.py` `row_of`): −12% of "
    "`assay score`'s CPU at 50,000 cases (4.592 s against 4.117 s), 1% of a stored run's "
    "report at 110,000 case-trials (4.547 s against 4.586 s); `CaseRow.model_validate` now.",
)
"""Tricks this benchmark measured saving less than ``KEEP_AT`` and that were removed (the
plain form is the code now): what they were, and the figures that removed them."""


def child(trick: str, argv: list[str]) -> None:
    """In the child: ``trick``'s plain form (unless ``-``), then ``assay ARGV`` as the
    console script runs it."""
    if trick != "-":
        BY_NAME[trick].patch()
    from assay.cli import main

    sys.argv = ["assay", *argv]
    main()


@dataclass
class Sizes:
    """The inputs of each command."""

    run_cases: int
    score_cases: int
    stored_cases: int


DEFAULT = Sizes(run_cases=2_000, score_cases=50_000, stored_cases=110_000)
FULL = Sizes(run_cases=20_000, score_cases=500_000, stored_cases=500_000)

APP = """
def answer(case):
    if case.expected_behavior == "abstain":
        return {"kind": "abstain", "reason": "not in the policy"}
    return {"kind": "answer", "fact": "return_window_30_days", "text": "Within 30 days."}
"""


def prepare(
    folder: Path, sizes: Sizes, needed: set[str]
) -> dict[str, Callable[[int, str], list[str]]]:
    """Write the inputs of the ``needed`` commands in ``folder``; each command's arguments
    for a repetition and a variant (``on``/``off``: its output file differs)."""
    from score_scale import write_inputs
    from stored_scale import fill_in_child

    big = folder / "big"
    small = folder / "small"
    run = folder / "run"
    for d in (big, small, run):
        d.mkdir()
    cases, results = write_inputs(big, sizes.score_cases if "score" in needed else 1)
    few_cases, few_results = write_inputs(small, 200)
    write_inputs(run, sizes.run_cases if "run" in needed else 1)
    (run / "app.py").write_text(APP, encoding="utf-8")
    (run / "suite.yaml").write_text(
        "dataset: cases.jsonl\ntarget: {type: function, callable: app:answer}\nconcurrency: 50\n",
        encoding="utf-8",
    )
    url = f"sqlite:///{folder / 'stored.db'}"
    if "report" in needed:
        fill_in_child(url, sizes.stored_cases)

    def out(name: str, rep: int, variant: str) -> str:
        return str(folder / f"{name}-{rep}-{variant}.json")

    return {
        "help": lambda rep, variant: ["--help"],
        "run": lambda rep, variant: [
            "run",
            str(run / "suite.yaml"),
            "--store",
            f"sqlite:///{folder / f'run-{rep}-{variant}.db'}",
        ],
        "score": lambda rep, variant: [
            "score",
            str(cases),
            str(results),
            "-f",
            "json",
            "-o",
            out("score", rep, variant),
        ],
        "score_level": lambda rep, variant: [
            "score",
            str(few_cases),
            str(few_results),
            "--confidence",
            "0.9",
        ],
        "report": lambda rep, variant: [
            "report",
            "base",
            "--store",
            url,
            "-f",
            "json",
            "-o",
            out("report", rep, variant),
        ],
    }


COMMANDS = {
    "help": "`assay --help`",
    "run": "`assay run SUITE` ({run} cases, a `function` target, tracing on, SQLite)",
    "score": "`assay score CASES RESULTS -f json -o FILE` ({score} cases)",
    "score_level": "`assay score CASES RESULTS --confidence 0.9` (200 cases)",
    "report": "`assay report RUN -f json -o FILE` (a stored run of {stored} case-trials, SQLite)",
}
METRICS = {"wall_s": "wall s", "cpu_s": "CPU s", "peak_mb": "peak MB"}


def measure(trick: str, argv: list[str]) -> dict[str, Any]:
    """One command as a child: wall and CPU seconds (its forks included), peak RSS (MB,
    of its largest process), exit code."""
    command = [sys.executable, str(Path(__file__)), "--child", trick, "--", *argv]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(BENCH)])}
    started = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    assert proc.stderr is not None
    said = proc.stderr.read().decode("utf-8", "replace")
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    code = os.waitstatus_to_exitcode(status)
    return {
        "wall_s": wall,
        "cpu_s": usage.ru_utime + usage.ru_stime,
        "peak_mb": usage.ru_maxrss / 1024,
        "exit": code,
        "said": said[-300:],
    }


def _digest(path: str) -> str | None:
    p = Path(path)
    if not p.exists():
        return None
    return hashlib.sha256(p.read_bytes()).hexdigest()


def compare(
    trick: Trick, command: str, args: Callable[[int, str], list[str]], reps: int
) -> dict[str, Any]:
    """``command`` with ``trick`` and with its plain form, interleaved ``reps`` times."""
    runs: dict[str, list[dict[str, Any]]] = {"on": [], "off": []}
    outputs: dict[str, set[str | None]] = {"on": set(), "off": set()}
    for rep in range(reps):
        order = ("on", "off") if rep % 2 == 0 else ("off", "on")
        for variant in order:
            argv = args(rep, variant)
            done = measure("-" if variant == "on" else trick.name, argv)
            if done["exit"] not in (0, 1):
                print(f"{trick.name} {command} {variant}: exit {done['exit']}", file=sys.stderr)
                print(done["said"], file=sys.stderr)
            runs[variant].append(done)
            if "-o" in argv:
                outputs[variant].add(_digest(argv[argv.index("-o") + 1]))
    medians = {
        variant: {m: statistics.median(r[m] for r in done) for m in METRICS}
        for variant, done in runs.items()
    }
    exits = {variant: sorted({r["exit"] for r in done}) for variant, done in runs.items()}
    same = None
    if outputs["on"] or outputs["off"]:
        same = len(outputs["on"] | outputs["off"]) == 1 and None not in outputs["on"]
    return {"medians": medians, "exits": exits, "same_output": same, "reps": reps}


def measure_all(sizes: Sizes, reps: int, only: list[str] | None) -> dict[str, Any]:
    """Every trick on each of its figures."""
    chosen = [t for t in TRICKS if only is None or t.name in only]
    found: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        print("speed tricks: writing the inputs …", file=sys.stderr)
        needed = {c for t in chosen for c, _ in t.figures}
        commands = prepare(Path(tmp), sizes, needed)
        for trick in chosen:
            for command in dict.fromkeys(c for c, _ in trick.figures):
                print(f"speed tricks: {trick.name} on {command} …", file=sys.stderr)
                n = 10 if command in ("help", "score_level") else 1
                found[f"{trick.name}/{command}"] = compare(
                    trick, command, commands[command], max(reps, reps * n // 2)
                )
    return found


def _ratio(on: float, off: float) -> float:
    return on / off if off else float("nan")


def verdicts(found: dict[str, Any]) -> dict[str, tuple[bool, float, str]]:
    """Each measured trick: kept or not, its largest saving and on which figure."""
    out: dict[str, tuple[bool, float, str]] = {}
    for trick in TRICKS:
        best, where = -float("inf"), ""
        for command, metric in trick.figures:
            got = found.get(f"{trick.name}/{command}")
            if got is None:
                continue
            on, off = got["medians"]["on"][metric], got["medians"]["off"][metric]
            saved = 1 - _ratio(on, off)
            if saved > best:
                best, where = saved, f"{command} {METRICS[metric]}"
        if where:
            out[trick.name] = (best >= KEEP_AT, best, where)
    return out


def _load() -> str:
    return " / ".join(f"{x:.2f}" for x in os.getloadavg())


def section(
    found: dict[str, Any], sizes: Sizes, argv: list[str], took: float, full: bool = False
) -> str:
    """The Markdown of the section."""
    from _machine import describe_machine

    machine = describe_machine({})
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT
    ).stdout.strip()
    lines = [
        "## Speed tricks: each against its plain form" + (" (full size)" if full else ""),
        "",
        f"`python {' '.join(['bench/speed_tricks.py', *argv])}` on "
        f"{time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC, {took:.0f} s; assay commit "
        f"{commit}; CPU: {machine.get('CPU', '?')}, {machine.get('cores', '?')} cores; "
        f"Python {sys.version.split()[0]}; load average at the end {_load()}.",
        "",
        "Each row: one command run as a child process with the trick (as assay ships) and "
        "with the trick replaced by its plain form (patched in the child before assay's "
        "modules load), alternating, the medians of the repetitions. *CPU* and *peak* "
        "include the command's forks (`wait4`). *Saves* is 1 − with/without. A trick stays "
        f"while it saves at least {KEEP_AT:.0%} of one of its figures. *Same output*: the "
        "files the two forms wrote are byte for byte the same.",
        "",
    ]
    measured = {key.split("/")[1] for key in found}
    for key, text in COMMANDS.items():
        if key not in measured:
            continue
        described = text.format(
            run=sizes.run_cases, score=sizes.score_cases, stored=sizes.stored_cases
        )
        lines.append(f"- {key}: {described}")
    lines += [
        "",
        "| trick | plain form | command | figure | with | without | with/without | saves "
        "| reps | same output |",
        "|---|---|---|---|---:|---:|---:|---:|---:|---|",
    ]
    for trick in TRICKS:
        for command, metric in trick.figures:
            got = found.get(f"{trick.name}/{command}")
            if got is None:
                continue
            on, off = got["medians"]["on"][metric], got["medians"]["off"][metric]
            ratio = _ratio(on, off)
            fmt = "{:.0f}" if metric == "peak_mb" else "{:.3f}"
            same = {None: "–", True: "yes", False: "**no**"}[got["same_output"]]
            exits = got["exits"]
            if exits["on"] != exits["off"]:
                same += f" (exit {exits['on']} / {exits['off']})"
            lines.append(
                f"| {trick.name} | {trick.plain} | {command} | {METRICS[metric]} | "
                f"{fmt.format(on)} | {fmt.format(off)} | {ratio:.2f} | {1 - ratio:.0%} | "
                f"{got['reps']} | {same} |"
            )
    if REMOVED and not full:
        lines += ["", "Removed (measured here, then replaced by the plain form):", ""]
        lines += [f"- {line}" for line in REMOVED]
    lines += [
        "",
        "Verdicts of this run (a trick is kept while this section or `speed_tricks_full` "
        "shows it paying):",
        "",
    ]
    for name, (kept, saved, where) in verdicts(found).items():
        trick = BY_NAME[name]
        verdict = "pays" if kept else f"**under {KEEP_AT:.0%}** at these sizes"
        lines.append(f"- {name} — {trick.where}: saves {saved:.0%} of {where}: {verdict}.")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Measure, print the section, and write it with ``--write``."""
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--child"]:
        child(argv[1], argv[3:])
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--full", action="store_true", help="ten times the default sizes")
    parser.add_argument("--reps", type=int, default=3, help="repetitions of each form")
    parser.add_argument("--only", nargs="*", choices=sorted(BY_NAME), help="these tricks only")
    parser.add_argument("--write", type=Path, help="write the section into this file")
    parser.add_argument("--json", type=Path, help="also keep the raw figures here")
    args = parser.parse_args(argv)
    sizes = FULL if args.full else DEFAULT
    began = time.time()
    found = measure_all(sizes, args.reps, args.only)
    if args.json:
        args.json.write_text(json.dumps(found, indent=1), encoding="utf-8")
    text = section(found, sizes, argv, time.time() - began, args.full)
    print(text)
    if args.write:
        from _sections import write_section

        write_section(args.write, SECTION + ("_full" if args.full else ""), text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
