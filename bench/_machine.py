"""What the benchmark ran on: CPU, cores, memory, OS, Python, package versions, commit."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

from throughput import System, versions

ASSAY_PACKAGES = ("assay", "aiohttp", "pydantic", "pydantic-core", "SQLAlchemy", "typer", "rich")
INSPECT_PACKAGES = ("inspect-ai", "openai", "httpx", "aiohttp", "pydantic")
ROOT = Path(__file__).resolve().parents[1]


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _memory() -> str:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB"
    except OSError:
        pass
    return "unknown"


def _git() -> str:
    def git(*args: str) -> str:
        done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True)
        return done.stdout.strip() if done.returncode == 0 else ""

    commit = git("rev-parse", "--short", "HEAD") or "no git"
    dirty = git("status", "--porcelain", "--untracked-files=no")
    return commit + (" (with uncommitted changes in the tree)" if dirty else "")


def describe_machine(systems: list[System]) -> dict[str, str]:
    """Machine, interpreter and package versions, as labelled strings."""
    info = {
        "date (UTC)": datetime.now(UTC).strftime("%Y-%m-%d %H:%M"),
        "CPU": _cpu_model(),
        "cores": f"{os.cpu_count()} logical, {len(os.sched_getaffinity(0))} usable",
        "memory": _memory(),
        "OS": f"{platform.system()} {platform.release()}",
        "Python": f"{platform.python_implementation()} {platform.python_version()}",
        "assay commit": _git(),
        "load average at the end (1/5/15 min)": " / ".join(f"{x:.2f}" for x in os.getloadavg()),
    }
    found = versions(sys.executable, ASSAY_PACKAGES)
    info["assay venv"] = ", ".join(f"{k} {v}" for k, v in found.items())
    for system in systems:
        if system.name == "inspect_ai":
            found = versions(system.python, INSPECT_PACKAGES)
            info["inspect venv"] = ", ".join(f"{k} {v}" for k, v in found.items())
    return info
