"""A process's resident memory as Linux reports it, for benchmarks that measure a call
inside a process holding its inputs."""

from __future__ import annotations

from pathlib import Path


def resident_mb(field: str) -> float:
    """This process's ``VmRSS`` (resident now) or ``VmHWM`` (peak resident) in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def reset_peak() -> bool:
    """Start this process's peak resident memory (``VmHWM``) again from what it holds
    now (Linux 4.0 and later); False where it cannot."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        return False
    return True
