"""How the HTML report handles 10,000 cases: render time, file size, and in Chromium the
time to a usable page, to filter, search, sort and open a case (medians of several runs).

    .venv/bin/python bench/html_scale.py [--cases 10000] [--reps 5]

Needs Debian's Chromium at /usr/bin/chromium (scripts/setup-browser.sh installs it).
Prints a Markdown table; figures are for the machine it runs on.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from assay.cases import Case, Dataset
from assay.grading import grade_all
from assay.outcomes import Abstain, Answer, Error, Record
from assay.report import Report, build_report
from assay.report.render.html import render_html

CHROMIUM = "/usr/bin/chromium"
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

# Each snippet runs one interaction synchronously in the page and returns its duration (ms).
ACTIONS = {
    "filter by status (hide passed)": """() => { const t = performance.now();
        document.querySelector('#cases-status .chip[data-status="passed"]').click();
        const d = performance.now() - t;
        document.querySelector('#cases-status .chip[data-status="passed"]').click(); return d; }""",
    "filter by slice": """() => { const s = document.getElementById('cases-slice');
        const t = performance.now(); s.value = 's3'; s.dispatchEvent(new Event('change'));
        const d = performance.now() - t; s.value = ''; s.dispatchEvent(new Event('change'));
        return d; }""",
    "search (substring over every field)": """() => { const table = window.assayTables.cases;
        const t = performance.now(); table.query = 'question 77'; table.page = 0; table.render();
        const d = performance.now() - t; table.query = ''; table.render(); return d; }""",
    "sort by status": """() => {
        const th = document.querySelector('#cases-table th[data-sort=status]');
        const t = performance.now(); th.click(); return performance.now() - t; }""",
    "next page": """() => { const b = document.querySelector('#cases-pager [data-page=next]');
        const t = performance.now(); b.click(); return performance.now() - t; }""",
    "open a case drawer": """() => { const row = document.querySelector('#cases-table tbody tr');
        const t = performance.now(); row.click(); const d = performance.now() - t;
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
    from playwright.sync_api import sync_playwright

    report = make_report(n)
    renders = []
    for _ in range(reps):
        began = time.perf_counter()
        html = render_html(report)
        renders.append((time.perf_counter() - began) * 1000)
    rows = [("cases", f"{n:,}"), ("render_html (Python)", _median_ms(renders)),
            ("file size", f"{len(html.encode()) / 1e6:.2f} MB")]  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as playwright:
        path = Path(tmp) / "scale.html"
        path.write_text(html, encoding="utf-8")
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        loads: list[float] = []
        timings: dict[str, list[float]] = {name: [] for name in ACTIONS}
        heap: list[float] = []
        for _ in range(reps):
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            began = time.perf_counter()
            page.goto(path.as_uri())
            page.wait_for_selector("html[data-ready=true]", state="attached")
            loads.append((time.perf_counter() - began) * 1000)
            for name, script in ACTIONS.items():
                timings[name].append(float(page.evaluate(script)))
            heap.append(float(page.evaluate("performance.memory.usedJSHeapSize")) / 1e6)
            page.close()
        browser.close()
    rows.append(("open file → table usable (Chromium)", _median_ms(loads)))
    rows += [(name, _median_ms(values)) for name, values in timings.items()]
    rows.append(("JS heap after interactions", f"{statistics.median(heap):.1f} MB"))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args()
    rows = measure(args.cases, args.reps)
    print(f"| HTML report at {args.cases:,} cases (median of {args.reps}) | |")
    print("|---|---:|")
    for name, value in rows:
        print(f"| {name} | {value} |")


if __name__ == "__main__":
    main()
