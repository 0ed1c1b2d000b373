"""The goals and the ``RESULTS.md`` text, computed from what the benchmark measured."""

from __future__ import annotations

from dataclasses import dataclass

from startup import BANNED, GOAL_S, Startup
from throughput import Row, table

WALL_GOAL = 1.3
INSPECT_GOAL = 10.0
CPU_GOAL_MS = 0.35


@dataclass(frozen=True)
class Goal:
    """One goal, its measured figure, and whether it was met (None: not measured)."""

    name: str
    target: str
    figure: str = "not measured"
    met: bool | None = None

    @property
    def verdict(self) -> str:
        """met, NOT met, or not measured."""
        return {True: "met", False: "**NOT met**", None: "not measured"}[self.met]


def _row(rows: list[Row], system: str, latency: float) -> Row | None:
    for row in rows:
        if row.system == system and row.latency_ms == latency and row.ok:
            return row
    return None


def _ratio_goal(name: str, target: str, top: Row | None, bottom: Row | None) -> Goal:
    """``top.wall / bottom.wall`` as a goal (checked by the caller's comparison)."""
    if top is None or bottom is None:
        return Goal(name, target)
    ratio = top.wall_s / bottom.wall_s
    figure = f"{ratio:.2f}× ({top.wall_s:.2f} s / {bottom.wall_s:.2f} s)"
    return Goal(name, target, figure, None)


def goals(boot: Startup, rows: list[Row]) -> list[Goal]:
    """Every goal of the benchmark, checked against the measures."""
    floor, assay = _row(rows, "floor", 100.0), _row(rows, "assay", 100.0)
    inspect, assay0 = _row(rows, "inspect_ai", 100.0), _row(rows, "assay", 0.0)
    wall = _ratio_goal("assay wall time / floor (100 ms)", f"≤ {WALL_GOAL}×", assay, floor)
    if assay and floor:
        wall = Goal(wall.name, wall.target, wall.figure, assay.wall_s / floor.wall_s <= WALL_GOAL)
    versus = _ratio_goal(
        "inspect_ai wall time / assay (100 ms)", f"≥ {INSPECT_GOAL:g}×", inspect, assay
    )
    if inspect and assay:
        met = inspect.wall_s / assay.wall_s >= INSPECT_GOAL
        versus = Goal(versus.name, versus.target, versus.figure, met)
    cpu = Goal("assay CPU per case, everything included (0 ms)", f"< {CPU_GOAL_MS:g} ms")
    if assay0:
        ms = assay0.cpu_ms_per_case
        cpu = Goal(cpu.name, cpu.target, f"{ms:.3f} ms", ms < CPU_GOAL_MS)
    return [
        Goal(
            "`assay --help` start-up (median)",
            f"< {GOAL_S * 1000:.0f} ms",
            f"{boot.assay_s * 1000:.0f} ms ({boot.ratio:.1f}× `python -c pass`)",
            boot.assay_s < GOAL_S,
        ),
        Goal(
            "`assay --help` imports no heavy package eagerly",
            "none of " + ", ".join(sorted(BANNED)),
            ", ".join(boot.eager) or "none imported",
            not boot.eager,
        ),
        wall,
        versus,
        cpu,
    ]


def _startup_lines(boot: Startup) -> list[str]:
    heavy = ", ".join(f"{n} ({s * 1000:.0f} ms)" for n, s in boot.heavy_imported.items())
    lines = [
        f"- `{' '.join(boot.command)}`: median **{boot.assay_s * 1000:.0f} ms** over "
        f"{boot.runs} fresh processes; `python -c pass` (same run, interleaved): median "
        f"{boot.python_s * 1000:.0f} ms; ratio {boot.ratio:.1f}×. CPU time of those processes "
        f"(median, user + system): {boot.assay_cpu_s * 1000:.0f} ms against "
        f"{boot.python_cpu_s * 1000:.0f} ms — steadier than wall time on a busy machine.",
        f"- Heavy packages imported by `assay --help` (cumulative import time): {heavy or 'none'}.",
        "- Largest imports (cumulative, `python -X importtime`): "
        + ", ".join(f"{n} {s * 1000:.0f} ms" for n, s in boot.top_imports),
    ]
    lines += [f"- **FAIL: `assay --help` imports {name} eagerly.**" for name in boot.eager]
    return lines


def render(
    *,
    machine: dict[str, str],
    argv: list[str],
    boot: Startup,
    rows: list[Row],
    missing: dict[str, str],
    phases: dict[str, str],
    profiled: str,
    checked: list[Goal],
    setup_log: list[str],
    took_s: float,
) -> str:
    """The whole ``RESULTS.md``."""
    out = [
        "# Benchmark results",
        "",
        f"Written by `make bench` (`{' '.join(argv)}`) on {machine['date (UTC)']} UTC in "
        f"{took_s:.0f} s. Every figure below was measured by that run; rerun it rather "
        "than editing this file.",
        "",
        "## Goals",
        "",
        "| goal | target | measured | verdict |",
        "|---|---|---|---|",
        *(f"| {g.name} | {g.target} | {g.figure} | {g.verdict} |" for g in checked),
        "",
        "## Machine",
        "",
        *(f"- {key}: {value}" for key, value in machine.items()),
        "",
        "## Start-up",
        "",
        *_startup_lines(boot),
        "",
        "## Throughput",
        "",
        *_method_lines(rows),
        "",
        *table(rows),
        "",
        *(f"- **{name} not measured**: {why}" for name, why in missing.items()),
        "",
        "## Where assay's CPU goes, by phase",
        "",
        f"`.venv/bin/python bench/phases.py -n {rows[0].cases if rows else 2000}` "
        "[`--no-trace`] [`--latency-ms 100`]: one run with a few of assay's functions "
        "wrapped to add up the process CPU time spent inside them (a coroutine's own "
        "steps only); nested phases are included in their parents. No profiler overhead.",
        "",
        *(line for title, text in phases.items() for line in (f"**{title}**", "", text, "")),
        "## Where assay's CPU goes (cProfile, 0 ms latency)",
        "",
        "`.venv/bin/python bench/profile_driver.py bench/drive_assay.py --latency-ms 0 "
        f"-n {rows[0].cases if rows else 2000}` (CPU-time clock). cProfile slows Python "
        "code several-fold; read the shares, not the absolute times.",
        "",
        "```",
        profiled.rstrip(),
        "```",
        "",
    ]
    if setup_log:
        out += ["## Set-up commands run", "", *(f"- `{step}`" for step in setup_log), ""]
    return "\n".join(out)


def _method_lines(rows: list[Row]) -> list[str]:
    n = rows[0].cases if rows else 0
    c = rows[0].concurrency if rows else 0
    return [
        f"{n} cases at concurrency {c}, against `bench/mock_openai.py` (127.0.0.1, a separate "
        "process sharing the same cores) at 100 ms and at 0 ms latency. Each repetition is a "
        "fresh process; floor, assay and inspect_ai repetitions are interleaved against one "
        "mock server per latency. *Wall* and *CPU* cover the work phase measured inside the "
        "driver (`time.perf_counter`, `time.process_time`; imports excluded); "
        "*whole-process CPU* is the child's `getrusage` total, imports included. Medians "
        "over the repetitions; failures is the largest count of non-passing requests in any "
        "repetition. inspect_ai runs at 100 ms only unless `--inspect-at-0` is given: "
        "its CPU per sample is measured there already, and one run takes minutes.",
        "",
        "Commands (URL is the mock's, printed when it starts):",
        "",
        "- mock: `.venv/bin/python bench/mock_openai.py --port 0 --latency-ms L`",
        f"- floor: `.venv/bin/python bench/floor.py --base-url URL -n {n} -c {c}`",
        f"- assay: `.venv/bin/python bench/drive_assay.py --base-url URL -n {n} -c {c}` "
        "(suite defaults: tracing on); *assay (trace off)* adds `--no-trace`; *assay run "
        "(CLI)* adds `--cli`: `assay run SUITE --format json --store sqlite:///…` as a child "
        "process, measured from outside (its wall and CPU include start-up and imports)",
        "- inspect_ai: `bench/.venv-inspect/bin/python bench/drive_inspect.py "
        f"--base-url URL -n {n} -c {c}`",
    ]
