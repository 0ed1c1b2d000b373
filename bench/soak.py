"""Kill/resume soak: SIGKILL ``assay run`` at random moments, resume, and count what was
lost or recorded twice.

A run of ``--cases`` cases x ``--trials`` trials goes to ``bench/mock_faults.py`` (a share
of requests faulted: 500, 429, resets, hangs, garbage, truncated and empty bodies, key
echoes). The run is started, SIGKILLed after a random delay, resumed with
``assay run --resume`` and killed again, ``--kills`` times; a last resume runs to the end.
The store is then read: every (case, trial) must be recorded exactly once, the run must
end ``completed``, and no process may have failed in any other way than the kill.

    .venv/bin/python bench/soak.py --kills 24 --write   # updates bench/RESULTS.md
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from _mockproc import mock_server

BENCH = Path(__file__).resolve().parent
BEGIN, END = "<!-- soak:begin -->", "<!-- soak:end -->"
KEY = "sk-soak/Planted+KEY_5a0c"


@dataclass
class Soak:
    """What one soak did and found."""

    cases: int
    trials: int
    kills: int = 0
    resumes: int = 0
    killed_while_writing: int = 0
    crashed: list[str] = field(default_factory=list)
    recorded: int = 0
    distinct: int = 0
    status: str = ""
    attempts: int = 0
    server: dict[str, object] = field(default_factory=dict)
    key_found: int = 0
    took_s: float = 0.0

    @property
    def expected(self) -> int:
        return self.cases * self.trials

    @property
    def lost(self) -> int:
        return self.expected - self.distinct

    @property
    def duplicated(self) -> int:
        return self.recorded - self.distinct


def _count(db: Path) -> int:
    if not db.exists():
        return 0
    try:
        with sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True, timeout=10) as conn:
            return int(conn.execute("SELECT COUNT(*) FROM records").fetchone()[0])
    except sqlite3.Error:  # not created yet
        return 0


def _assay(args: list[str], cwd: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "NO_COLOR": "1", "ASSAY_SOAK_KEY": KEY}
    return subprocess.Popen(
        [sys.executable, "-m", "assay", *args],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _write_suite(folder: Path, url: str, cases: int, trials: int) -> Path:
    rows = [
        {
            "id": f"S{i:04d}",
            "slice": f"s{i % 4}",
            "question": f"question {i} [fact:ok]",
            "expected_behavior": "answer",
            "expected_fact": "ok",
        }
        for i in range(cases)
    ]
    (folder / "cases.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    suite = folder / "suite.yaml"
    suite.write_text(
        f"dataset: cases.jsonl\ntarget:\n  type: openai\n  base_url: {url}\n  model: m\n"
        f"  api_key_env: ASSAY_SOAK_KEY\nconcurrency: 8\ntrials: {trials}\n"
        "timeout_s: 1\nretries: 2\n"
    )
    return suite


def _wait_for_progress(db: Path, proc: subprocess.Popen[str], before: int) -> None:
    """Wait until the process has stored a new case-trial (or ended): it is running."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None and _count(db) <= before:
        time.sleep(0.05)


def _run_id(db: Path) -> str | None:
    if not db.exists():
        return None
    with sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True, timeout=10) as conn:
        try:
            row = conn.execute("SELECT id FROM runs").fetchone()
        except sqlite3.Error:
            return None
    return str(row[0]) if row else None


def soak(kills: int, cases: int, trials: int, fault_rate: float, seed: int) -> Soak:
    """Run the soak in a temporary folder and return what it found."""
    rng = random.Random(seed)
    found = Soak(cases, trials)
    began = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="assay-soak-") as tmp:
        folder = Path(tmp)
        stats = folder / "faults.json"
        flags = ["--fault-rate", f"{fault_rate}", "--seed", str(seed), "--hang-s", "2"]
        flags += ["--latency-ms", "50", "--stats", str(stats)]
        with mock_server(*flags, script=BENCH / "mock_faults.py") as url:
            suite = _write_suite(folder, url, cases, trials)
            db = folder / ".assay" / "assay.db"
            for attempt in range(kills + 1):
                run_id = _run_id(db)
                args = ["run", "--resume", run_id] if run_id else ["run", str(suite)]
                proc = _assay(args, folder)
                found.resumes += 1 if run_id else 0
                if attempt < kills:
                    started = _count(db)
                    _wait_for_progress(db, proc, started)
                    time.sleep(rng.uniform(0.0, 1.5))  # then a random while of work
                    if proc.poll() is None:
                        proc.send_signal(signal.SIGKILL)
                        found.kills += 1
                        found.killed_while_writing += _count(db) > started
                _, err = proc.communicate(timeout=600)
                if proc.returncode not in (0, 1, -signal.SIGKILL):
                    found.crashed.append(f"exit {proc.returncode}: {err.strip()[-300:]}")
                if proc.returncode in (0, 1):
                    break
        found.server = json.loads(stats.read_text()) if stats.exists() else {}
        with sqlite3.connect(db) as conn:
            found.status = str(conn.execute("SELECT status FROM runs").fetchone()[0])
            found.recorded = int(conn.execute("SELECT COUNT(*) FROM records").fetchone()[0])
            found.distinct = int(
                conn.execute(
                    "SELECT COUNT(DISTINCT case_id || '/' || trial) FROM records"
                ).fetchone()[0]
            )
            found.attempts = int(conn.execute("SELECT SUM(attempts) FROM records").fetchone()[0])
        for path in db.parent.iterdir():
            if path.is_file():
                found.key_found += path.read_bytes().count(KEY.encode())
    found.took_s = time.perf_counter() - began
    return found


def section(found: Soak, argv: list[str]) -> str:
    """The soak's Markdown section for bench/RESULTS.md."""
    server = found.server
    faults = server.get("faults", {})
    kinds = ", ".join(f"{k} {v}" for k, v in faults.items()) if isinstance(faults, dict) else ""
    lines = [
        BEGIN,
        "## Kill and resume soak",
        "",
        f"Written by `{' '.join(argv)}` on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} "
        f"in {found.took_s:.0f} s: `assay run` of {found.cases} cases x {found.trials} trials "
        "(openai target, concurrency 8, timeout 1 s, 2 retries) against `bench/mock_faults.py` "
        "(50 ms latency), SIGKILLed at a random moment (0-1.5 s after the process stored its "
        "first new case-trial) and resumed with `assay run --resume`, again and again; a "
        "last resume runs to the end.",
        "",
        "| figure | value |",
        "|---|---:|",
        f"| SIGKILLs | {found.kills} |",
        f"| resumes | {found.resumes} |",
        f"| kills that fell after that process had stored new case-trials | "
        f"{found.killed_while_writing} |",
        f"| case-trials expected | {found.expected} |",
        f"| case-trials lost | {found.lost} |",
        f"| case-trials recorded twice | {found.duplicated} |",
        f"| final status | {found.status} |",
        f"| processes that failed other than by the kill | {len(found.crashed)} |",
        f"| requests the server received | {server.get('requests', 'n/a')} |",
        f"| faults injected | {server.get('faulted', 'n/a')} ({kinds}) |",
        f"| attempts recorded with the final results | {found.attempts} |",
        f"| planted key found in the store | {found.key_found} |",
        "",
        "Requests beyond the recorded attempts were in flight when a kill fell; their "
        "case-trials were run again by the next resume, which is why none is lost.",
        END,
    ]
    return "\n".join(lines) + "\n"


def write_section(path: Path, text: str) -> None:
    """Put ``text`` in ``path`` in place of its previous soak section (or at the end)."""
    current = path.read_text() if path.exists() else ""
    if BEGIN in current and END in current:
        head, rest = current.split(BEGIN, 1)
        tail = rest.split(END, 1)[1].lstrip("\n")
        current = head + text + ("\n" + tail if tail else "")
    else:
        current = current.rstrip("\n") + "\n\n" + text
    path.write_text(current)


def main(argv: list[str] | None = None) -> None:
    """Run the soak, print its section, and with --write put it in bench/RESULTS.md."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=24)
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--trials", type=int, default=2)
    parser.add_argument("--fault-rate", type=float, default=0.3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--write", action="store_true", help="update bench/RESULTS.md")
    parser.add_argument("--output", type=Path, default=BENCH / "RESULTS.md")
    args = parser.parse_args(argv)
    found = soak(args.kills, args.cases, args.trials, args.fault_rate, args.seed)
    text = section(
        found, ["python", "bench/soak.py", *(argv if argv is not None else sys.argv[1:])]
    )
    print(text)
    for crash in found.crashed:
        print(crash, file=sys.stderr)
    if args.write:
        write_section(args.output, text)
        print(f"wrote {args.output}", file=sys.stderr)
    if found.lost or found.duplicated or found.crashed or found.status != "completed":
        sys.exit(1)


if __name__ == "__main__":
    main()
