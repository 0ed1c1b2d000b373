"""Count injection payloads that stay live in assay's terminal and Markdown output.

Writes a dataset whose case ids, slices, questions, answers, reasons and error messages
carry the payloads of tests/payloads.py (terminal escapes, OSC 8 links, bidi overrides,
rich markup, raw HTML, Markdown links and table breakers), runs every command that prints
them, and counts: control characters reaching stdout or stderr, and elements a CommonMark
renderer with raw HTML enabled makes of the Markdown (tags, links, images) plus broken
table rows. The goal is 0 of each.

    .venv/bin/python bench/injection.py [--write bench/RESULTS.md]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(BENCH.parent))

from tests.payloads import ALL, LIVE_TERMINAL, broken_table_rows, live_html  # noqa: E402


def _assay(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "assay", *args]
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False)


def _inputs(root: Path) -> None:
    cases, outcomes = [], []
    for i, payload in enumerate(ALL):
        case_id = f"P{i} {payload}"
        cases.append(
            {
                "id": case_id,
                "slice": payload[:40],
                "question": payload,
                "expected_behavior": "answer",
                "expected_fact": "fact",
            }
        )
        kind = ("error", "abstain", "answer")[i % 3]
        detail = {"error": {"message": payload}, "abstain": {"reason": payload}}
        outcomes.append({"id": case_id, "kind": kind, **detail.get(kind, {"text": payload})})
        if kind == "answer":
            outcomes[-1]["fact"] = "other"
    name = "<img src=x onerror=alert(1)>`x|y [a](javascript:alert(2)) \x1b[2J"
    (root / "cases.json").write_text(json.dumps({"name": name, "cases": cases}))
    (root / "results.jsonl").write_text("".join(json.dumps(o) + "\n" for o in outcomes))
    (root / "suite.yaml").write_text(
        "name: hostile\ndataset: cases.json\ntarget: {type: scripted, results: results.jsonl}\n"
        "grader: structured\nconcurrency: 2\nretries: 0\n"
    )
    _assay(root, "score", "cases.json", "results.jsonl", "-f", "json", "-o", "r.json")


def run() -> tuple[list[tuple[str, int, int]], list[tuple[str, int, int]]]:
    """(command, payload renderings, live) for the terminal and for Markdown."""
    terminal: list[tuple[str, int, int]] = []
    markdown: list[tuple[str, int, int]] = []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        _inputs(root)
        store = ["--store", f"sqlite:///{root / 's.db'}"]
        ran = _assay(root, "run", "suite.yaml", *store, "-f", "json")
        run_id = json.loads(ran.stdout)["run_id"] if ran.stdout.startswith("{") else "none"
        commands = {
            "score": ["score", "cases.json", "results.jsonl"],
            "composite": ["composite", "cases.json", "results.jsonl"],
            "compare": ["compare", "r.json", "r.json"],
            "gate": ["gate", "r.json", "-r", "task_success>=0.99"],
            "run": ["run", "suite.yaml", *store],
            "runs": ["runs", *store],
            "report": ["report", run_id, *store],
            "trace": ["trace", run_id, f"P0 {ALL[0]}", "--all-attributes", *store],
            "diagnose": ["diagnose", run_id, "--all", *store],
        }
        for label, args in commands.items():
            done = _assay(root, *args)
            live = len(LIVE_TERMINAL.findall(done.stdout + done.stderr))
            terminal.append((label, len(ALL), live))
        for label, args in {
            "score": ["score", "cases.json", "results.jsonl", "-f", "markdown"],
            "composite": ["composite", "cases.json", "results.jsonl", "-f", "markdown"],
            "compare": ["compare", "r.json", "r.json", "-f", "markdown"],
            "report": ["report", run_id, *store, "-f", "markdown"],
        }.items():
            text = _assay(root, *args).stdout
            markdown.append((label, len(ALL), len(live_html(text)) + len(broken_table_rows(text))))
        _assay(root, "gate", "r.json", "-r", "task_success>=0.99", "--markdown", "g.md")
        text = (root / "g.md").read_text(encoding="utf-8")
        markdown.append(("gate --markdown", 1, len(live_html(text)) + len(broken_table_rows(text))))
    return terminal, markdown


def render(terminal: list[tuple[str, int, int]], markdown: list[tuple[str, int, int]]) -> str:
    """The Markdown section for ``bench/RESULTS.md``."""
    t_live = sum(r[2] for r in terminal)
    m_live = sum(r[2] for r in markdown)
    lines = [
        "## Injection payloads in terminal and Markdown output",
        "",
        f"`bench/injection.py`: {len(ALL)} payloads as case ids, slices, questions, answers, "
        f"reasons and error messages (and a hostile dataset name). **Terminal: "
        f"{len(terminal)} commands run over them, {t_live} live control characters in "
        f"their stdout and stderr. Markdown: {len(markdown)} outputs, {m_live} live tags, "
        "links, images or broken table rows** (CommonMark with raw HTML enabled). Chromium "
        "runs none of them either: tests/e2e/browser/test_markdown_payloads.py and "
        "test_html_report.py.",
        "",
        "| Output | Payloads in its data | Live |",
        "|---|---:|---:|",
        *(f"| terminal: {c} | {n} | {live} |" for c, n, live in terminal),
        *(f"| Markdown: {c} | {n} | {live} |" for c, n, live in markdown),
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Measure, print the section, and write it into ``--write`` (exit 1 if any is live)."""
    from _sections import write_section

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", type=Path, help="results file to update (a section)")
    args = parser.parse_args(argv)
    terminal, markdown = run()
    section = render(terminal, markdown)
    sys.stdout.write(section)
    if args.write:
        write_section(args.write, "injection", section)
    return 1 if any(r[2] for r in terminal + markdown) else 0


if __name__ == "__main__":
    sys.exit(main())
