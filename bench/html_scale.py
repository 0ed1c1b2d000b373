"""How the HTML report handles many cases: render time, file size, and in Chromium the
time to a usable page, to filter, search, sort and open a case (medians of several runs).

    .venv/bin/python bench/html_scale.py [--cases 10000 200000 1000000] [--reps 3] [--write FILE]

Needs Debian's Chromium at /usr/bin/chromium (scripts/setup-browser.sh installs it).
Prints a Markdown table, one column per size (a report of more than 20,000 rows embeds
them packed: index columns the page keeps in memory, full rows and searched text in
compressed parts it unpacks when it needs one); ``--write`` puts it in a section of
bench/RESULTS.md. Figures are for the machine it runs on; render_html's CPU time is the
figure to compare on a shared machine. A search is timed to its end (a packed page's
search reads every text part), "search again" a second query on the same page.

With ``--page FILE`` it instead opens a page written before (``assay report RUN -f html
-o FILE`` of a large stored run) and times the same interactions on it, filtering by the
page's first slice; ``--write`` puts that table in a section of its own.
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from assay.cases import Case, Dataset
from assay.grading import grade_all
from assay.outcomes import Abstain, Answer, Error, Record
from assay.render.html import render_html
from assay.report import Report, build_report

CHROMIUM = "/usr/bin/chromium"
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--js-flags=--expose-gc",  # to measure the heap the page keeps, its garbage collected
    "--enable-precise-memory-info",
]

# Each snippet runs one interaction in the page and returns its duration (ms): until the
# table is drawn again (a packed page's search reads its text parts first) or the drawer is
# open (a packed page unpacks the case's part first).
ACTIONS = {
    "filter by status (hide passed)": """() => { const t = performance.now();
        document.querySelector('#cases-status .chip[data-status="passed"]').click();
        const d = performance.now() - t;
        document.querySelector('#cases-status .chip[data-status="passed"]').click(); return d; }""",
    "filter by slice": """() => { const s = document.getElementById('cases-slice');
        const t = performance.now(); s.value = SLICE; s.dispatchEvent(new Event('change'));
        const d = performance.now() - t; s.value = ''; s.dispatchEvent(new Event('change'));
        return d; }""",
    "search (substring over every field)": """async () => { const table = window.assayTables.cases;
        const t = performance.now(); table.query = 'question 77'; table.page = 0;
        await table.render();
        const d = performance.now() - t; table.query = ''; await table.render(); return d; }""",
    "search again (another query)": """async () => { const table = window.assayTables.cases;
        const t = performance.now(); table.query = 'item 78'; table.page = 0;
        await table.render();
        const d = performance.now() - t; table.query = ''; await table.render(); return d; }""",
    "sort by status": """() => {
        const th = document.querySelector('#cases-table th[data-sort=status]');
        const t = performance.now(); th.click(); return performance.now() - t; }""",
    "next page": """() => { const b = document.querySelector('#cases-pager [data-page=next]');
        const t = performance.now(); b.click(); return performance.now() - t; }""",
    "open a case drawer": """async () => {
        const row = document.querySelector('#cases-table tbody tr');
        const drawer = document.getElementById('drawer');
        const open = new Promise((resolve) => {
            const seen = new MutationObserver(() => {
                if (drawer.classList.contains('open')) { seen.disconnect(); resolve(); } });
            seen.observe(drawer, { attributes: true });
        });
        const t = performance.now(); row.click(); await open; const d = performance.now() - t;
        document.querySelector('#drawer .close').click(); return d; }""",
}


def make_report(n: int) -> Report:
    """``n`` cases in 7 slices with every status: passed, failed, error, missing."""
    cases = tuple(
        Case(id=f"C{i:06d}", slice=f"s{i % 7}", question=f"question {i}: how long is the window?",
             expected_behavior="answer" if i % 5 else "abstain",
             expected_fact="return_window_30_days" if i % 5 else None,
             rationale="Section 'standard-window' states a 30-day window.")
        for i in range(n)
    )  # fmt: skip
    records = []
    for i, case in enumerate(cases):
        if i % 97 == 0:
            continue  # missing
        outcome: Any
        if i % 53 == 0:
            outcome = Error(error_class="timeout", message="no reply in 10 s")
        elif i % 5 == 0:
            outcome = Abstain() if i % 2 else Answer(fact="shipping_fee_10")
        else:
            fact = "return_window_30_days" if i % 4 else "return_window_14_days"
            outcome = Answer(fact=fact, text=f"You have 30 days to return item {i}.")
        records.append(Record(case_id=case.id, outcome=outcome))
    data = Dataset(name="scale", cases=cases)
    return build_report(data, grade_all(data, records))


def _median_ms(samples: list[float]) -> str:
    return f"{statistics.median(samples):.1f} ms"


def measure(n: int, reps: int) -> list[tuple[str, str]]:
    """(measure, median) rows for ``n`` cases."""
    from assay.render.html import is_packed

    gc.disable()  # as `assay score` does while it builds a large report
    try:
        report = make_report(n)
    finally:
        gc.enable()
    renders = []
    cpu = []
    for _ in range(reps):
        began, began_cpu = time.perf_counter(), time.process_time()
        html = render_html(report)
        renders.append((time.perf_counter() - began) * 1000)
        cpu.append((time.process_time() - began_cpu) * 1000)
    rows = [("cases", f"{n:,}"), ("render_html (Python)", _median_ms(renders)),
            ("render_html CPU time", _median_ms(cpu)),
            ("file size", f"{len(html.encode()) / 1e6:.2f} MB"),
            ("case rows packed", "yes" if is_packed(report) else "no")]  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "scale.html"
        path.write_text(html, encoding="utf-8")
        return rows + browse(path, reps, "s3")


def browse(path: Path, reps: int, part: str) -> list[tuple[str, str]]:
    """(measure, median) rows of the page at ``path`` in Chromium: ``reps`` loads, each
    followed by every one of ``ACTIONS`` (filtering by slice ``part``)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        loads: list[float] = []
        timings: dict[str, list[float]] = {name: [] for name in ACTIONS}
        heap: list[float] = []
        kept: list[float] = []
        for _ in range(reps):
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            began = time.perf_counter()
            page.goto(path.as_uri())
            page.wait_for_selector("html[data-ready=true]", state="attached", timeout=600_000)
            loads.append((time.perf_counter() - began) * 1000)
            for name, script in ACTIONS.items():
                timings[name].append(float(page.evaluate(script.replace("SLICE", repr(part)))))
            heap.append(float(page.evaluate("performance.memory.usedJSHeapSize")) / 1e6)
            kept.append(float(page.evaluate("gc(), performance.memory.usedJSHeapSize")) / 1e6)
            page.close()
        browser.close()
    rows = [("open file → table usable (Chromium)", _median_ms(loads))]
    rows += [(name, _median_ms(values)) for name, values in timings.items()]
    rows.append(("JS heap after interactions", f"{statistics.median(heap):.1f} MB"))
    rows.append(("JS heap kept (after a garbage collection)", f"{statistics.median(kept):.1f} MB"))
    return rows


def measure_page(path: Path, reps: int) -> list[tuple[str, str]]:
    """(measure, median) rows of a page written before: its size, then ``browse``'s,
    filtering by the first slice its slice menu offers."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        page = browser.new_page()
        page.goto(path.as_uri())
        page.wait_for_selector("html[data-ready=true]", state="attached", timeout=600_000)
        part = str(page.evaluate("document.getElementById('cases-slice').options[1].value"))
        browser.close()
    size = ("file size", f"{path.stat().st_size / 1e6:.2f} MB")
    return [size, *browse(path, reps, part)]


def render_page_section(path: Path, rows: list[tuple[str, str]], reps: int, load: str) -> str:
    """The Markdown section of a page written before."""
    lines = [
        "## The HTML report of a large stored run in Chromium",
        "",
        f"`bench/html_scale.py --page {path.name} --reps {reps}` at {_commit()}: the page "
        f"`assay report RUN -f html` wrote, medians of {reps} page loads in Debian's Chromium "
        f"(headless). Load average after the runs: {load}; times are inflated when the "
        "machine is shared.",
        "",
        "| Measure | Figure |",
        "|---|---:|",
        *(f"| {name} | {figure} |" for name, figure in rows),
    ]
    return "\n".join(lines) + "\n"


def _commit() -> str:
    found = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
    )
    return found.stdout.strip() or "an unknown commit"


def render_section(columns: dict[int, list[tuple[str, str]]], reps: int, load: str) -> str:
    """The Markdown section: one row per measure, one column per size."""
    sizes = list(columns)
    lines = [
        "## The HTML report at scale",
        "",
        f"`bench/html_scale.py --cases {' '.join(str(n) for n in sizes)} --reps {reps}` at "
        f"{_commit()}: medians of {reps} page loads in Debian's Chromium (headless). Load "
        f"average after the runs: {load}; times are inflated when the machine is shared.",
        "",
        "| Measure | " + " | ".join(f"{n:,} cases" for n in sizes) + " |",
        "|---|" + "---:|" * len(sizes),
    ]
    for i, (name, _) in enumerate(columns[sizes[0]]):
        lines.append(f"| {name} | " + " | ".join(columns[n][i][1] for n in sizes) + " |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, nargs="+", default=[10_000])
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--write", type=Path, help="results file to update (a section)")
    parser.add_argument("--page", type=Path, help="time this page, written before, instead")
    parser.add_argument("--section", default="html_page", help="the section --page writes")
    args = parser.parse_args()
    if args.page is not None:
        rows = measure_page(args.page.resolve(), args.reps)
        load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
        page_section = render_page_section(args.page, rows, args.reps, load)
        sys.stdout.write(page_section)
        if args.write:
            sys.path.insert(0, str(Path(__file__).resolve().parent))
            from _sections import write_section

            write_section(args.write, args.section, page_section)
        return
    columns = {n: measure(n, args.reps) for n in args.cases}
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    section = render_section(columns, args.reps, load)
    sys.stdout.write(section)
    if args.write:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from _sections import write_section

        write_section(args.write, "html_scale", section)


if __name__ == "__main__":
    main()
