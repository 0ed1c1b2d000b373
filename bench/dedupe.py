"""The 100,000-case dedupe benchmark: ``assay dedupe`` on a generated dataset with planted
near-duplicates, timed end to end, and the clusters checked against the plant.

    .venv/bin/python bench/dedupe.py [-n 100000] [--update bench/RESULTS.md]

The dataset is generated (seeded): questions of 8 to 16 words drawn from a vocabulary of
made-up words, and for about 5% of them a lightly edited copy (one character changed,
letter case or punctuation altered) placed later in the file. The run must find every
planted pair; clusters the generator made by chance are counted and reported.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

BENCH = Path(__file__).resolve().parent
GOAL_S = 60.0
BEGIN, END = "<!-- dedupe benchmark: begin -->", "<!-- dedupe benchmark: end -->"

SYLLABLES = [
    "ra",
    "te",
    "mi",
    "lo",
    "su",
    "ka",
    "ne",
    "po",
    "di",
    "va",
    "shi",
    "gor",
    "bel",
    "tun",
    "mar",
    "fen",
    "qui",
    "dra",
    "lis",
    "sto",
    "pre",
    "ven",
    "cor",
    "nal",
    "bri",
    "hu",
]
OPENERS = ["How", "Can I", "What", "When", "Why", "Where", "Who", "Is it", "Do you", "Should I"]


def _vocabulary(rng: random.Random, size: int = 5000) -> list[str]:
    words = {"".join(rng.choice(SYLLABLES) for _ in range(rng.randint(1, 4))) for _ in range(size)}
    return sorted(words)


def _question(rng: random.Random, words: list[str]) -> str:
    body = " ".join(rng.choice(words) for _ in range(rng.randint(7, 15)))
    return f"{rng.choice(OPENERS)} {body}?"


def _edit(rng: random.Random, text: str) -> str:
    kind = rng.randrange(3)
    if kind == 0:
        return text.upper()
    if kind == 1:
        return text.replace("?", "??").replace(" ", "  ", 2)
    i = rng.randrange(len(text) // 2)
    return text[:i] + rng.choice("abcdefghij") + text[i + 1 :]


def generate(n: int, seed: int = 7) -> tuple[list[dict[str, object]], set[frozenset[str]]]:
    """``n`` cases and the planted pairs (original id, copy id)."""
    rng = random.Random(seed)
    words = _vocabulary(rng)
    originals = int(n / 1.05)
    cases: list[dict[str, object]] = []
    for i in range(originals):
        cases.append(
            {
                "id": f"q{i}",
                "slice": rng.choice(["standard", "exception", "missing"]),
                "question": _question(rng, words),
                "expected_behavior": "answer",
                "expected_fact": "fact",
                "rationale": "generated for the benchmark",
            }
        )
    planted: set[frozenset[str]] = set()
    placed: list[tuple[float, dict[str, object]]] = [(i, c) for i, c in enumerate(cases)]
    for k in range(n - originals):
        at = rng.randrange(originals)
        source = cases[at]
        copy = dict(source, id=f"copy{k}", question=_edit(rng, str(source["question"])))
        placed.append((rng.uniform(at + 0.5, originals), copy))
        planted.add(frozenset({str(source["id"]), f"copy{k}"}))
    placed.sort(key=lambda item: item[0])
    return [c for _, c in placed], planted


@dataclass(frozen=True)
class Measure:
    cases: int
    wall_s: float
    cpu_s: float
    clusters: int
    planted: int
    expected: int
    found: int
    extra_clusters: int
    command: str
    load: tuple[float, ...]


def measure(n: int) -> Measure:
    """Generate, write, run ``assay dedupe --format json`` as a child process, check."""
    cases, planted = generate(n)
    load = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "cases.jsonl"
        data.write_text("".join(json.dumps(c) + "\n" for c in cases), encoding="utf-8")
        command = [sys.executable, "-m", "assay", "dedupe", str(data), "--format", "json"]
        began = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, timeout=900)
        wall = time.perf_counter() - began
        if done.returncode != 0:
            raise SystemExit(f"assay dedupe failed: {done.stderr[-2000:]}")
        import resource

        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        report = json.loads(done.stdout)
    found_sets = [frozenset(m["id"] for m in c["members"]) for c in report["clusters"]]
    expected = _at_threshold(cases, planted)
    found = sum(1 for pair in expected if any(pair <= s for s in found_sets))
    extra = sum(1 for s in found_sets if not any(p <= s for p in planted))
    return Measure(
        cases=len(cases),
        wall_s=wall,
        cpu_s=usage.ru_utime + usage.ru_stime,
        clusters=len(found_sets),
        planted=len(planted),
        expected=len(expected),
        found=found,
        extra_clusters=extra,
        command="python -m assay dedupe cases.jsonl --format json",
        load=load,
    )


def _version(name: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(name)
    except PackageNotFoundError:
        return "not installed"


def _at_threshold(
    cases: list[dict[str, object]], planted: set[frozenset[str]]
) -> set[frozenset[str]]:
    """The planted pairs whose exact similarity reaches the default threshold: the ones a
    correct run must cluster (an edit in a short question can fall below it)."""
    from assay.cases import NearSettings, jaccard, shingles

    settings = NearSettings()
    text = {str(c["id"]): str(c["question"]) for c in cases}
    kept = set()
    for pair in planted:
        a, b = sorted(pair)
        similarity = jaccard(
            shingles(text[a], settings.shingle), shingles(text[b], settings.shingle)
        )
        if similarity >= settings.threshold:
            kept.add(pair)
    return kept


def section(m: Measure) -> str:
    """The RESULTS.md section for one measure."""
    from _machine import describe_machine

    verdict = "met" if m.wall_s < GOAL_S else "**NOT met**"
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    info = describe_machine([])
    info["load average before the run (1/5/15 min)"] = " / ".join(f"{x:.2f}" for x in m.load)
    info["datasketch"] = _version("datasketch")
    machine = "\n".join(f"- {k}: {v}" for k, v in info.items())
    return "\n".join(
        [
            BEGIN,
            f"## Dedupe ({m.cases:,} cases)",
            "",
            f"Written by `python bench/dedupe.py` (also run by `make bench`) on {when}. "
            "Every figure was measured by that run.",
            "",
            f"`{m.command}` as a child process on a generated dataset of {m.cases:,} cases "
            f"({m.planted:,} of them lightly edited copies planted after their original), "
            "default settings (5-character shingles, threshold 0.8, 128 permutations). "
            "Wall time includes start-up, reading and validating the file, shingling, "
            "MinHash/LSH, the exact check of every candidate pair and the JSON output. The "
            "machine is shared: the load average before and after the run is below; CPU time "
            "is the steadier figure when the load is high.",
            "",
            "| goal | target | measured | verdict |",
            "|---|---|---|---|",
            f"| `assay dedupe` on {m.cases:,} cases | < {GOAL_S:.0f} s wall | "
            f"{m.wall_s:.1f} s wall, {m.cpu_s:.1f} s CPU (user + system) | {verdict} |",
            f"| planted pairs at or above the threshold found | all {m.expected:,} "
            f"(of {m.planted:,} planted) | {m.found:,} | "
            f"{'met' if m.found == m.expected else '**NOT met**'} |",
            f"| clusters not planted | reported, not hidden | {m.extra_clusters:,} "
            f"(of {m.clusters:,} clusters) | – |",
            "",
            machine,
            END,
        ]
    )


def update(results: Path, text: str) -> None:
    """Replace the dedupe section of ``results`` (or append it)."""
    old = results.read_text(encoding="utf-8") if results.exists() else ""
    pattern = re.compile(re.escape(BEGIN) + ".*?" + re.escape(END), re.S)
    new = pattern.sub(lambda _: text, old) if pattern.search(old) else old.rstrip() + "\n\n" + text
    results.write_text(new.rstrip() + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", type=int, default=100_000)
    parser.add_argument("--update", type=Path, help="write the section into this RESULTS.md")
    args = parser.parse_args(argv)
    m = measure(args.n)
    text = section(m)
    print(text)
    if args.update is not None:
        update(args.update, text)


if __name__ == "__main__":
    main()
