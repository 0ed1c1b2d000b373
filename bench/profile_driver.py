"""Profile one benchmark driver with cProfile and summarise where its CPU goes.

The driver runs in a fresh process and profiles its measured section only (``--profile``)
with a CPU-time clock (``time.process_time``), so imports and time spent waiting on the
network are not counted; the summary lists the share of the profiled total spent in each
package, assay's own functions by cumulative time, and the functions with the most own
time.

    .venv/bin/python bench/profile_driver.py bench/drive_assay.py --latency-ms 0 -n 2000
"""

from __future__ import annotations

import argparse
import io
import pstats
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

from _mockproc import mock_server


def _package(filename: str) -> str:
    """The top-level package a profiled file belongs to (``~`` for built-ins)."""
    if filename.startswith("~") or filename.startswith("<"):
        return "builtins/C"
    parts = Path(filename).parts
    if "site-packages" in parts:
        return parts[parts.index("site-packages") + 1].removesuffix(".py")
    if "src" in parts and "assay" in parts:
        below = parts[parts.index("assay") + 1 :]
        return "assay." + below[0].removesuffix(".py") if len(below) > 1 else "assay"
    if "bench" in parts:
        return "bench"
    return "stdlib:" + (parts[-2] if len(parts) > 1 and parts[-2] != "python3.11" else parts[-1])


def summarise(stats_file: Path, top: int = 15) -> str:
    """Top functions by own and cumulative time, and own time by package."""
    stats = pstats.Stats(str(stats_file))
    raw = stats.stats  # type: ignore[attr-defined]
    total = sum(entry[2] for entry in raw.values())
    by_package: dict[str, float] = defaultdict(float)
    for (filename, _, _), entry in raw.items():
        by_package[_package(filename)] += entry[2]
    out = io.StringIO()
    out.write(f"profiled CPU total (own time, all functions): {total:.3f} s\n\n")
    out.write("own time by package:\n")
    for name, seconds in sorted(by_package.items(), key=lambda item: -item[1])[:14]:
        out.write(f"  {100 * seconds / total:5.1f}%  {seconds:7.3f} s  {name}\n")
    ours = sorted(
        (
            (entry[3], entry[1], f"{_short(f)}:{line}({name})")
            for (f, line, name), entry in raw.items()
            if "/src/assay/" in f
        ),
        reverse=True,
    )
    out.write(f"\nassay's functions by cumulative time (top {2 * top}):\n")
    out.write("  cum s    calls  function\n")
    for cumulative, calls, where in ours[: 2 * top]:
        out.write(f"  {cumulative:6.3f} {calls:8d}  {where}\n")
    buffer = io.StringIO()
    pstats.Stats(str(stats_file), stream=buffer).sort_stats("tottime").print_stats(top)
    body = buffer.getvalue()
    body = body[body.index("   ncalls") :] if "   ncalls" in body else body
    out.write(f"\ntop {top} functions by own time:\n{body.rstrip()}\n")
    return out.getvalue()


def _short(filename: str) -> str:
    for marker in ("/src/", "/site-packages/"):
        if marker in filename:
            return filename.split(marker, 1)[1]
    return filename


def profile(script: Path, latency_ms: float, n: int, c: int) -> str:
    """Run ``script`` under cProfile against a fresh mock server; return the summary."""
    with (
        tempfile.TemporaryDirectory(prefix="assay-bench-prof-") as tmp,
        mock_server("--latency-ms", f"{latency_ms:g}") as base_url,
    ):
        out = Path(tmp) / "driver.prof"
        command = [sys.executable, str(script), "--profile", str(out)]
        command += ["--base-url", base_url, "-n", str(n), "-c", str(c)]
        done = subprocess.run(command, capture_output=True, text=True, timeout=600)
        if done.returncode != 0:
            tail = " / ".join(done.stderr.strip().splitlines()[-5:])
            return f"profiling failed: {script.name} exited {done.returncode}: {tail}"
        return summarise(out)


def main(argv: list[str] | None = None) -> None:
    """Profile a driver and print the summary."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("script", type=Path)
    parser.add_argument("--latency-ms", type=float, default=0.0)
    parser.add_argument("-n", type=int, default=2000)
    parser.add_argument("-c", type=int, default=100)
    args = parser.parse_args(argv)
    print(profile(args.script, args.latency_ms, args.n, args.c))


if __name__ == "__main__":
    main()
