"""Fuzz every loader with hostile files and count what is not a clean refusal.

Each input is a hostile variant of a valid file (bench/_hostile.py) given to the loader
of its kind: dataset (JSONL, JSON, YAML, CSV), results (JSONL, JSON), sources, suite,
scoring profile, composite results and JSON report. A loader must load it (and what it
loaded must serialise as UTF-8 JSON) or refuse it with an ``AssayError``. Anything else is
counted: a traceback (any other exception), a hang (over ``--timeout`` seconds) or a
blowup (resident memory over ``--memory-mb``).

    .venv/bin/python bench/fuzz_loaders.py [-n 20000] [--seed 1] [--write bench/RESULTS.md]
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import signal
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from _hostile import VALID, hostile_input  # noqa: E402

CHECKS = ("content_present", "content_absent", "answer_not_empty", "citation_valid")


class _Hang(Exception):
    pass


def loaders() -> dict[str, Callable[[Path], Any]]:
    """The loader for each kind of file in ``VALID``."""
    from assay.load import (
        load_composite_results,
        load_dataset,
        load_profile,
        load_report_file,
        load_results,
        load_sources,
        load_suite,
    )

    return {
        "dataset.jsonl": load_dataset,
        "dataset.json": load_dataset,
        "dataset.yaml": load_dataset,
        "dataset.csv": load_dataset,
        "results.jsonl": load_results,
        "results.json": load_results,
        "sources.yaml": load_sources,
        "suite.yaml": load_suite,
        "profile.yaml": load_profile,
        "composite.jsonl": lambda p: load_composite_results(p, CHECKS),
        "report.json": load_report_file,
    }


def _exercise(loaded: Any) -> None:
    """Serialise what was loaded as UTF-8 JSON, as storing or reporting it would."""
    from assay.cases import Dataset
    from assay.load import Suite
    from assay.outcomes import Results, result_line

    if isinstance(loaded, Dataset):
        loaded.version.encode("utf-8")
        for case in loaded.cases:
            case.model_dump_json().encode("utf-8")
    elif isinstance(loaded, Results):
        for record in loaded.records:
            json.dumps(result_line(record), ensure_ascii=False).encode("utf-8")
    elif isinstance(loaded, Suite):
        json.dumps(loaded.raw, ensure_ascii=False, default=str).encode("utf-8")
    elif hasattr(loaded, "model_dump_json"):
        loaded.model_dump_json().encode("utf-8")


def fuzz_one(name: str, data: bytes, directory: Path, timeout_s: float = 10.0) -> str:
    """``ok`` (loaded), ``refused`` (an AssayError), ``hang``, or ``traceback: <type>``."""
    from assay.errors import AssayError

    path = directory / name
    path.write_bytes(data)
    load = loaders()[name]

    def _alarm(signum: int, frame: Any) -> None:
        raise _Hang

    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, timeout_s)
    try:
        _exercise(load(path))
        return "ok"
    except AssayError as err:
        return "refused" if str(err).strip() else "traceback: empty AssayError"
    except _Hang:
        return "hang"
    except Exception as err:
        return f"traceback: {type(err).__name__}: {str(err)[:120]}"
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run(n: int, seed: int, timeout_s: float, memory_mb: float) -> dict[str, Any]:
    """Fuzz ``n`` inputs round-robin over every kind of file; the tallies."""
    rng = random.Random(seed)
    names = sorted(VALID)
    outcomes: Counter[str] = Counter()
    per_kind: dict[str, Counter[str]] = {name: Counter() for name in names}
    failures: list[str] = []
    started = time.perf_counter()
    blowups = 0
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(n):
            name = names[i % len(names)]
            data = hostile_input(rng, name)
            outcome = fuzz_one(name, data, Path(tmp), timeout_s)
            if _rss_mb() > memory_mb:
                blowups += 1
                outcome = "blowup"
            kind = outcome.split(":")[0]
            outcomes[kind] += 1
            per_kind[name][kind] += 1
            if kind not in ("ok", "refused") and len(failures) < 20:
                failures.append(f"{name} (input {i}): {outcome}")
    return {
        "inputs": n,
        "seed": seed,
        "seconds": time.perf_counter() - started,
        "outcomes": dict(outcomes),
        "per_kind": {k: dict(v) for k, v in per_kind.items()},
        "failures": failures,
        "peak_rss_mb": _rss_mb(),
        "blowups": blowups,
    }


def render(result: dict[str, Any], timeout_s: float, memory_mb: float) -> str:
    """The Markdown section for ``bench/RESULTS.md``."""
    o = result["outcomes"]
    bad = sum(v for k, v in o.items() if k not in ("ok", "refused"))
    lines = [
        "## Hostile input files (fuzzed loaders)",
        "",
        f"`bench/fuzz_loaders.py -n {result['inputs']} --seed {result['seed']}`: "
        f"**{result['inputs']:,} inputs, {o.get('traceback', 0)} tracebacks, "
        f"{o.get('hang', 0)} hangs, {o.get('blowup', 0)} blowups** "
        f"({o.get('refused', 0):,} refused with a message, {o.get('ok', 0):,} loaded; "
        f"{result['seconds']:.0f} s; hang = over {timeout_s:g} s, blowup = over "
        f"{memory_mb:,.0f} MB resident; peak {result['peak_rss_mb']:,.0f} MB).",
        "",
        "| File kind | Inputs | Refused | Loaded | Other |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, tally in result["per_kind"].items():
        other = sum(v for k, v in tally.items() if k not in ("ok", "refused"))
        total = sum(tally.values())
        lines.append(
            f"| {name} | {total:,} | {tally.get('refused', 0):,} | {tally.get('ok', 0):,} "
            f"| {other} |"
        )
    if bad:
        lines += ["", "Failures (first 20):", "", *(f"- `{f}`" for f in result["failures"])]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Fuzz, print the section, and write it into ``--write`` (exit 1 on any failure)."""
    from _sections import write_section

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", type=int, default=20_000, help="inputs to try")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds before a hang")
    parser.add_argument("--memory-mb", type=float, default=1_500.0, help="RSS for a blowup")
    parser.add_argument("--write", type=Path, help="results file to update (a section)")
    args = parser.parse_args(argv)
    result = run(args.n, args.seed, args.timeout, args.memory_mb)
    section = render(result, args.timeout, args.memory_mb)
    sys.stdout.write(section)
    if args.write:
        write_section(args.write, "fuzz_loaders", section)
    o = result["outcomes"]
    return 0 if set(o) <= {"ok", "refused"} else 1


if __name__ == "__main__":
    sys.exit(main())
