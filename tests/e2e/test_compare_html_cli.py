"""``assay compare --format html``: the comparison page from the command line."""

from __future__ import annotations

from pathlib import Path

from tests.inprocess import run_cli

ROOT = Path(__file__).resolve().parents[2]


def test_compare_two_stored_runs_as_html(run_store: tuple[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "compare.html"
    done = run_cli(
        "compare",
        "base",
        "cand",
        "--store",
        run_store[0],
        "--format",
        "html",
        "--output",
        out,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    html = out.read_text(encoding="utf-8")
    assert html.index('id="fixed"') < html.index('id="broken"') < html.index('id="test"')
    fixed = html.split('id="fixed-table"')[1].split("</table>")[0]
    assert [case for case in ("E2", "E4", "E6") if f'data-case="{case}"' in fixed] == [
        "E2",
        "E4",
        "E6",
    ]
    assert "exact McNemar" in html and "<script" not in html
