"""examples/notebooks/tour.ipynb runs in a real Jupyter kernel without an error, and the
figures its report, comparison and trend show equal their JSON reports'."""

from __future__ import annotations

import copy
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
FOLDER = ROOT / "examples" / "notebooks"
NOTEBOOK = FOLDER / "tour.ipynb"

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

# Appended to a copy of the notebook: the JSON of what its cells showed, to check against.
FIGURES = """
import json
from assay.render import render
print(json.dumps({name: json.loads(render(obj, "json")) for name, obj in
                  {"v1": v1.report, "comparison": comparison, "trend": trend}.items()}))
"""


@pytest.fixture(scope="module")
def executed() -> Any:
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    run = copy.deepcopy(notebook)
    run.cells.append(nbformat.v4.new_code_cell(FIGURES, metadata={"tags": ["figures"]}))
    client = nbclient.NotebookClient(
        run,
        timeout=300,
        kernel_name="python3",
        resources={"metadata": {"path": str(FOLDER)}},
    )
    client.execute()
    return run


def _tagged(notebook: Any, tag: str) -> Any:
    (cell,) = [c for c in notebook.cells if tag in c.get("metadata", {}).get("tags", [])]
    return cell


def _html(notebook: Any, tag: str) -> str:
    (html,) = [o["data"]["text/html"] for o in _tagged(notebook, tag).outputs if "data" in o]
    return str(html)


def _cells(html: str) -> dict[str, list[str]]:
    rows = re.findall(r"<tr>(.*?)</tr>", html, re.S)
    cells = [
        [re.sub(r"<[^>]+>", "", c) for c in re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", r)]
        for r in rows
    ]
    return {row[0]: row for row in cells if row}


def _pct(value: float) -> str:
    return f"{value * 100:.1f}%"


def _same_rates(html: str, report: dict[str, Any]) -> None:
    rows = _cells(html)
    for label, key in (
        ("Task success", "task_success"),
        ("Answer coverage", "answer_coverage"),
        ("Answered accuracy", "answered_accuracy"),
    ):
        rate = report[key]
        lo, hi = rate["ci"]
        assert rows[label][1:4] == [
            f"{rate['numerator']}/{rate['denominator']}",
            _pct(rate["value"]),
            f"[{_pct(lo)}, {_pct(hi)}]",
        ], label
    for name, sl in report["slices"].items():
        ts = sl["task_success"]
        assert rows[name][1] == f"{ts['numerator']}/{ts['denominator']}", name


def test_the_committed_notebook_has_no_outputs() -> None:
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    code = [c for c in notebook.cells if c.cell_type == "code"]
    assert code and all(c.outputs == [] and c.execution_count is None for c in code)


def test_every_cell_runs_without_an_error(executed: Any) -> None:
    errors = [o for c in executed.cells for o in c.get("outputs", []) if o.output_type == "error"]
    assert errors == []
    shown = [c for c in executed.cells if c.cell_type == "code" and c.outputs]
    assert len(shown) >= 7


def test_the_seed_report_shows_the_cli_s_json_figures(executed: Any) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "assay",
            "score",
            "policy.jsonl",
            "results.jsonl",
            "--format",
            "json",
        ],
        cwd=ROOT / "examples" / "policy",
        capture_output=True,
        text=True,
        check=True,
    )
    _same_rates(_html(executed, "seed-report"), json.loads(done.stdout))


def _figures(executed: Any) -> dict[str, Any]:
    (out,) = [o for o in _tagged(executed, "figures").outputs if o.output_type == "stream"]
    return dict(json.loads(out["text"]))


def test_the_run_s_report_shows_its_json_figures(executed: Any) -> None:
    _same_rates(_html(executed, "v1-report"), _figures(executed)["v1"])


def test_the_comparison_shows_its_json_figures(executed: Any) -> None:
    c = _figures(executed)["comparison"]
    rows = _cells(_html(executed, "comparison"))
    for side, label in (("baseline", "Baseline"), ("candidate", "Candidate")):
        rate = c[side]["task_success"]
        lo, hi = rate["ci"]
        figure = f"{rate['numerator']}/{rate['denominator']} = {_pct(rate['value'])}"
        assert rows[label][2] == f"{figure} [{_pct(lo)}, {_pct(hi)}]", side
    html = _html(executed, "comparison")
    assert f"Newly fixed ({len(c['newly_fixed'])})" in html
    assert f"p = {c['mcnemar']['p_value']:.3g}" in html


def test_the_trend_shows_each_run_s_json_figures(executed: Any) -> None:
    trend = _figures(executed)["trend"]
    html = _html(executed, "trend")
    assert len(trend["points"]) == 2
    for point in trend["points"]:
        rate = point["rate"]
        assert point["run_id"] in html
        assert f"{rate['numerator']}/{rate['denominator']}" in html
