"""Whole processes, as a user times them: ``assay run`` against a bare client and the peers.

Every figure is the wall time of a fresh process measured from outside (interpreter
start-up, imports, store creation and rendering included), with its stdout sent to a file.
Repetitions are interleaved across the systems of one workload, so a change in the
machine's load hits all of them alike; each figure is the median with its spread (lowest
and highest). The workloads:

- ``run``: N cases (2,000 by default) at 100 ms latency, concurrency 100 — the bare aiohttp
  client (``floor.py``), ``assay run SUITE --format json`` and every installed peer
  (``peers.py``); and 20,000 cases, the floor against assay alone (skipped with ``--quick``)
- ``one case``: ``assay run`` of a one-case suite at 0 ms latency
- ``score``: ``assay score`` on the seed's six cases (``examples/policy``)
- ``report``: ``assay report RUN`` of one of the 2,000-case runs, from its store

The load average is recorded before and after; a warning says when it was too high to
trust the ratios (the benchmark's own processes need about one of the cores).

With ``--baseline SRC`` another version of assay (the ``src`` directory of another
checkout, e.g. ``git archive main src | tar -x -C /tmp/main``) is timed beside this one on
every assay workload, repetitions interleaved, with the same interpreter and dependencies:
a before/after comparison in one run, where the machine's load hits both alike.

    .venv/bin/python bench/whole_process.py [--quick] [--baseline SRC] [--update bench/RESULTS.md]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import peers
from _bytecode import NOTE, precompile, precompile_src
from _mockproc import mock_server
from _sections import write_section
from drive_assay import KEY_ENV, write_suite

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
POLICY = ROOT / "examples" / "policy"
SECTION = "whole-process"
# A 1-minute load average above this, before or after, makes the ratios untrustworthy:
# the mock server and the measured process need one core between them already.
TRUSTED_LOAD = max(1.0, (os.cpu_count() or 2) - 1.0)


@dataclass
class Figure:
    """Wall times of one system on one workload, over the repetitions, and the CPU time
    (user + system) of each process and its children."""

    workload: str
    system: str
    command: str = ""
    walls: list[float] = field(default_factory=list)
    cpus: list[float] = field(default_factory=list)
    problem: str | None = None
    note: str = ""

    @property
    def median(self) -> float:
        """Median wall seconds."""
        return statistics.median(self.walls)

    @property
    def cpu(self) -> str:
        """Median CPU seconds: less sensitive than the wall time to other work on the
        machine, as long as the process is not the one waiting for the cores."""
        return f"{statistics.median(self.cpus):.2f}" if self.cpus else "–"

    @property
    def spread(self) -> str:
        """Lowest–highest wall seconds."""
        return f"{min(self.walls):.2f}–{max(self.walls):.2f}"

    @property
    def ok(self) -> bool:
        """Measured at least once and never failed."""
        return bool(self.walls) and self.problem is None


@dataclass(frozen=True)
class Goal:
    """One goal of the whole-process benchmark and how it fared."""

    name: str
    target: str
    figure: str
    met: bool | None  # None: not measured


def _assay() -> str:
    script = Path(sys.executable).with_name("assay")
    if not script.exists():
        raise SystemExit(f"whole_process: no assay console script at {script}; run `make dev`")
    return str(script)


# What the console script runs, for a baseline that is not installed.
_CONSOLE = "import sys; from assay.cli import main; sys.exit(main())"
BASELINE = "baseline:"


@dataclass(frozen=True)
class Assay:
    """How to start one version of assay: this checkout's console script, or a baseline's
    ``src`` directory put first on the path of the same interpreter."""

    src: Path | None = None

    def command(self, *args: str) -> list[str]:
        """The command line of ``assay ARGS``."""
        if self.src is None:
            return [_assay(), *args]
        return [str(Path(_assay()).with_name("python")), "-c", _CONSOLE, *args]

    def env(self, base: dict[str, str]) -> dict[str, str]:
        """``base`` with the baseline's ``src`` first on the path."""
        if self.src is None:
            return base
        return {**base, "PYTHONPATH": str(self.src)}

    def name(self, system: str) -> str:
        """The figure's system name (a baseline's is marked so goals skip it)."""
        return system if self.src is None else f"{BASELINE} {system}"


def _served(base_url: str) -> int:
    """Requests the mock has answered so far (its ``/stats``)."""
    with urllib.request.urlopen(base_url.removesuffix("/v1") + "/stats", timeout=10) as got:
        stats: dict[str, int] = json.load(got)
    return stats["served"] + stats["failed"]


def timed(
    figure: Figure,
    command: list[str],
    *,
    cwd: Path,
    env: dict[str, str] | None = None,
    check: Callable[[Path], str | None] | None = None,
    ok_codes: tuple[int, ...] = (0,),
) -> None:
    """Run ``command`` once with stdout to a file; add its wall time (or its problem)."""
    out = cwd / "stdout.txt"
    figure.command = figure.command or shlex.join(command)
    with out.open("wb") as sink:
        cpu = _children_cpu()
        start = time.perf_counter()
        try:
            done = subprocess.run(
                command, stdout=sink, stderr=subprocess.PIPE, cwd=cwd, env=env, timeout=1800
            )
        except subprocess.TimeoutExpired:
            figure.problem = "still running after 30 minutes: stopped"
            return
        wall = time.perf_counter() - start
        used = _children_cpu() - cpu
    if done.returncode not in ok_codes:
        tail = done.stderr.decode(errors="replace").strip().splitlines()[-3:]
        figure.problem = f"exited {done.returncode}: " + " / ".join(tail)
        return
    why = check(out) if check is not None else None
    if why is not None:
        figure.problem = why
        return
    figure.walls.append(wall)
    figure.cpus.append(used)


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _requests_check(base_url: str, before: int, n: int) -> Callable[[Path], str | None]:
    """A check that the mock answered ``n`` requests since ``before``."""

    def check(_: Path) -> str | None:
        sent = _served(base_url) - before
        return None if sent >= n else f"sent {sent} requests, expected {n}"

    return check


def _assay_check(n: int) -> Callable[[Path], str | None]:
    def check(out: Path) -> str | None:
        report = json.loads(out.read_text(encoding="utf-8"))
        passed = report["statuses"]["passed"]
        return None if passed == n else f"{passed} of {n} cases passed"

    return check


def run_workload(
    base_url: str,
    n: int,
    c: int,
    reps: int,
    peer_list: list[peers.Peer],
    scratch: Path,
    peer_reps: int = 0,
    versions: tuple[Assay, ...] = (Assay(),),
) -> tuple[list[Figure], Path | None]:
    """The floor, ``assay run`` of each version (``reps`` times) and the peers
    (``peer_reps`` times) over ``n`` cases, repetitions interleaved; and the first
    version's store of one run."""
    label = f"{n:,} cases, 100 ms, concurrency {c}"
    floor = Figure(label, "bare aiohttp client (floor.py)")
    assays = [(v, Figure(label, v.name("assay run --format json"))) for v in versions]
    others = {peer.name: Figure(label, f"{peer.name} {peer.version}") for peer in peer_list}
    env = {**os.environ, KEY_ENV: "bench-not-a-secret"}
    store: Path | None = None
    for rep in range(max(reps, peer_reps)):
        print(f"  {label}: rep {rep + 1}", file=sys.stderr)
        folder = scratch / f"run-{n}-{rep}"
        folder.mkdir(parents=True)
        base = rep < reps
        if base and floor.problem is None:
            command = [sys.executable, str(BENCH / "floor.py"), "--base-url", base_url]
            before = _served(base_url)
            timed(
                floor,
                [*command, "-n", str(n), "-c", str(c)],
                cwd=folder,
                check=_requests_check(base_url, before, n),
            )
        for at, (version, assay) in enumerate(assays):
            if not base or assay.problem is not None:
                continue
            where = folder / f"assay-{at}"
            where.mkdir()
            suite = write_suite(where, base_url, n, c)
            db = where / "assay.db"
            command = version.command(
                "run", str(suite), "--format", "json", "--store", f"sqlite:///{db}"
            )
            timed(assay, command, cwd=where, env=version.env(env), check=_assay_check(n))
            if at == 0:
                store = db
        for peer in peer_list:
            figure = others[peer.name]
            if rep >= peer_reps or figure.problem is not None:
                continue
            where = folder / peer.name
            peers.prepare(peer, where, n)
            before = _served(base_url)
            timed(
                figure,
                peer.command(where, base_url, n, c),
                cwd=where,
                env=peer.env(where),
                check=_requests_check(base_url, before, n),
            )
    return [floor, *(f for _, f in assays), *others.values()], store


def run_fixed_costs(
    base_url: str,
    store: Path | None,
    n: int,
    reps: int,
    scratch: Path,
    versions: tuple[Assay, ...] = (Assay(),),
) -> list[Figure]:
    """A one-case ``assay run``, ``assay score`` on the seed, ``assay report`` of a big run,
    for each version, repetitions interleaved."""
    env = {**os.environ, KEY_ENV: "bench-not-a-secret"}
    run_id = None
    if store is not None:
        done = subprocess.run(
            [_assay(), "runs", "--store", f"sqlite:///{store}", "--format", "json"],
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode == 0:
            listed = json.loads(done.stdout)
            runs = listed["runs"] if isinstance(listed, dict) else listed
            run_id = runs[0]["id"] if runs else None
    rows: list[tuple[Assay, Figure, Figure, Figure]] = []
    for version in versions:
        one = Figure("fixed cost", version.name("assay run, one case, 0 ms latency"))
        score = Figure("fixed cost", version.name("assay score, the seed's six cases"))
        report = Figure("fixed cost", version.name(f"assay report RUN (text) of a {n:,}-case run"))
        if run_id is None:
            report.problem = f"no stored {n:,}-case run to report on"
        rows.append((version, one, score, report))
    # The seed's six cases include failures and an error: assay score exits 0 (no gate).
    seed = [str(POLICY / "policy.jsonl"), str(POLICY / "results.jsonl")]
    for rep in range(reps):
        print(f"  fixed costs: rep {rep + 1}", file=sys.stderr)
        for at, (version, one, score, report) in enumerate(rows):
            folder = scratch / f"one-{rep}-{at}"
            folder.mkdir()
            suite = write_suite(folder, base_url, 1, 1)
            db = f"sqlite:///{folder / 'assay.db'}"
            timed(
                one,
                version.command("run", str(suite), "--format", "json", "--store", db),
                cwd=folder,
                env=version.env(env),
                check=_assay_check(1),
            )
            timed(score, version.command("score", *seed), cwd=folder, env=version.env(env))
            if run_id is not None and report.problem is None and store is not None:
                command = version.command("report", run_id, "--store", f"sqlite:///{store}")
                timed(report, command, cwd=folder, env=version.env(env))
    return [figure for _, *figures in rows for figure in figures]


def goals_of(figures: list[Figure], n: int) -> list[Goal]:
    """The issue's goals, checked against the figures."""
    by = {(f.workload, f.system.split(" ")[0]): f for f in figures}
    out: list[Goal] = []

    def ratio(workload: str, top: str, bottom: str, goal: float, name: str, above: bool) -> None:
        a, b = by.get((workload, top)), by.get((workload, bottom))
        if a is None or b is None or not (a.ok and b.ok):
            out.append(Goal(name, f"{'≥' if above else '≤'} {goal:g}×", "not measured", None))
            return
        r = a.median / b.median
        met = r >= goal if above else r <= goal
        figure = f"{r:.2f}× ({a.median:.2f} s / {b.median:.2f} s)"
        out.append(Goal(name, f"{'≥' if above else '≤'} {goal:g}×", figure, met))

    big = f"{n:,} cases, 100 ms, concurrency 100"
    ratio(big, "assay", "bare", 1.3, f"`assay run` / bare client, {n:,} cases", False)
    ratio(
        "20,000 cases, 100 ms, concurrency 100",
        "assay",
        "bare",
        1.1,
        "`assay run` / bare client, 20,000 cases",
        False,
    )
    ratio(big, "inspect_ai", "assay", 10, f"inspect_ai / `assay run`, {n:,} cases", True)
    ratio(big, "promptfoo", "assay", 4, f"promptfoo / `assay run`, {n:,} cases", True)
    ratio(big, "lm-eval", "assay", 4, f"lm-eval / `assay run`, {n:,} cases", True)
    for system, limit in (("assay run, one", 0.5), ("assay score", 0.35), ("assay report", 0.5)):
        found = next((f for f in figures if f.system.startswith(system)), None)
        name = found.system if found else system
        if found is None or not found.ok:
            out.append(Goal(f"{name} (wall)", f"< {limit} s", "not measured", None))
        else:
            figure = f"{found.median:.3f} s"
            out.append(Goal(f"{name} (wall)", f"< {limit} s", figure, found.median < limit))
    return out


def section(
    figures: list[Figure],
    goals: list[Goal],
    loads: tuple[tuple[float, ...], tuple[float, ...]],
    missing: dict[str, str],
    argv: list[str],
    took_s: float,
    compiled: str = NOTE,
) -> str:
    """The RESULTS.md section; ``compiled`` says how assay's bytecode was made."""
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    before, after = loads
    lines = [
        "## Whole processes: `assay run` against a bare client and the peers",
        "",
        f"Written by `python bench/{' '.join(argv)}` on {when} in {took_s:.0f} s. Each figure is "
        "the wall time of a fresh process measured from outside (start-up, imports, store "
        "creation and rendering included), stdout to a file; repetitions interleaved across "
        "the systems of a workload; median and spread (lowest–highest) over the repetitions. "
        "Every system talks to the same `bench/mock_openai.py` (127.0.0.1, a separate process "
        "on the same cores), and the mock's request counter checks that each sent every request.",
        "",
        f"- {compiled}",
        f"- load average before (1/5/15 min): {' / '.join(f'{x:.2f}' for x in before)}",
        f"- load average after (1/5/15 min): {' / '.join(f'{x:.2f}' for x in after)}",
    ]
    if max(before[0], after[0]) > TRUSTED_LOAD:
        lines += [
            "",
            f"**Warning: the 1-minute load average exceeded {TRUSTED_LOAD:g} (on "
            f"{os.cpu_count()} cores): other work shared the machine, so these wall times "
            "are pessimistic and the ratios are not to be trusted. Rerun on a quiet machine.**",
        ]
    lines += ["", "| goal | target | measured | verdict |", "|---|---|---|---|"]
    for goal in goals:
        verdict = "not measured" if goal.met is None else ("met" if goal.met else "**NOT met**")
        lines.append(f"| {goal.name} | {goal.target} | {goal.figure} | {verdict} |")
    lines += [
        "",
        "| workload | system | wall s (median) | spread | CPU s (median) | reps |",
        "|---|---|---:|---|---:|---:|",
    ]
    for f in figures:
        if f.ok:
            lines.append(
                f"| {f.workload} | {f.system} | {f.median:.2f} | {f.spread} | {f.cpu} "
                f"| {len(f.walls)} |"
            )
        else:
            lines.append(f"| {f.workload} | {f.system} | not measured: {f.problem} | | | |")
    for name, why in missing.items():
        lines.append(f"| | {name} | not installed: {why} | | | |")
    lines += ["", "Commands (URL is the mock's; paths are per repetition):", ""]
    seen: set[str] = set()
    for f in figures:
        if f.command and f.system not in seen:
            seen.add(f.system)
            lines.append(f"- {f.system}: `{f.command}`")
    return "\n".join(lines)


def measure(
    n: int,
    c: int,
    reps: int,
    big_n: int | None,
    peer_reps: int,
    log: list[str],
    baseline: Path | None = None,
) -> tuple[list[Figure], dict[str, str]]:
    """Every workload; the figures and the peers that could not be installed (no peer is
    run when ``peer_reps`` is 0). With ``baseline`` (another checkout's ``src``), that
    version of assay is timed beside this one."""
    peer_list, missing = peers.install(log) if peer_reps > 0 else ([], {})
    python = str(Path(_assay()).with_name("python"))
    log.append(precompile(python))
    versions: tuple[Assay, ...] = (Assay(),)
    if baseline is not None:
        versions = (Assay(), Assay(baseline.resolve()))
        done = precompile_src(python, baseline.resolve())
        log.append(
            f"The rows marked `{BASELINE}` time the assay in `{baseline}` with the same "
            f"interpreter (PYTHONPATH); {done}."
        )
    figures: list[Figure] = []
    with tempfile.TemporaryDirectory(prefix="assay-bench-whole-") as tmp:
        scratch = Path(tmp)
        with mock_server("--latency-ms", "100") as base_url:
            got, store = run_workload(base_url, n, c, reps, peer_list, scratch, peer_reps, versions)
            figures += got
            if big_n:
                big, _ = run_workload(
                    base_url, big_n, c, reps, [], scratch / "big", versions=versions
                )
                figures += big
        with mock_server("--latency-ms", "0") as base_url:
            figures += run_fixed_costs(base_url, store, n, max(reps, 5), scratch, versions)
    return figures, missing


def main(argv: list[str] | None = None) -> None:
    """Measure and print the section; with ``--update``, write it into RESULTS.md."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", type=int, default=2000, help="cases of the main workload")
    parser.add_argument("-c", type=int, default=100, help="concurrency")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--peer-reps", type=int, default=3, help="repetitions of each peer")
    parser.add_argument("--big", type=int, default=20_000, help="cases of the long workload")
    parser.add_argument("--quick", action="store_true", help="200 cases, 1 rep, no long run")
    parser.add_argument("--no-peers", action="store_true", help="skip inspect_ai and the others")
    parser.add_argument("--update", type=Path, help="write the section into this RESULTS.md")
    parser.add_argument(
        "--baseline",
        type=Path,
        metavar="SRC",
        help="also time the assay in this src directory (another checkout), interleaved",
    )
    args = parser.parse_args(argv)
    if args.quick:
        args.n, args.reps, args.peer_reps, args.big = 200, 1, 1, 0
    began = time.time()
    before = os.getloadavg()
    log: list[str] = []
    if args.no_peers:
        args.peer_reps = 0
    if args.baseline is not None and not (args.baseline / "assay" / "__init__.py").is_file():
        parser.error(f"--baseline {args.baseline}: no assay package in that directory")
    figures, missing = measure(
        args.n, args.c, args.reps, args.big, args.peer_reps, log, args.baseline
    )
    after = os.getloadavg()
    goals = goals_of(figures, args.n)
    text = section(
        figures,
        goals,
        (before, after),
        missing,
        ["whole_process.py", *(argv if argv is not None else sys.argv[1:])],
        time.time() - began,
        " ".join(line for line in log if "bytecode" in line) or NOTE,
    )
    print(text)
    if args.update is not None:
        write_section(args.update, SECTION, text)
    for line in log:
        print(line if "bytecode" in line else f"installed: {line}", file=sys.stderr)


if __name__ == "__main__":
    main()
