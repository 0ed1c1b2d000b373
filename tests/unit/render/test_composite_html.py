"""The composite report as HTML: both pass rates, check failures, every check per case."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
GOLDEN17 = ROOT / "examples" / "golden17"


def _composite(fmt: str, tmp_path: Path, synthetic: bool = True) -> str:
    stem = "golden17.synthetic" if synthetic else "golden17"
    checks = "checks.synthetic" if synthetic else "checks"
    out = tmp_path / f"composite.{fmt}"
    done = subprocess.run(
        [sys.executable, "-m", "assay", "composite", str(GOLDEN17 / f"{stem}.jsonl"),
         str(GOLDEN17 / f"{checks}.jsonl"), "--format", fmt, "--output", str(out)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return out.read_text(encoding="utf-8")


def test_page_matches_the_json_report(tmp_path: Path) -> None:
    report = json.loads(_composite("json", tmp_path))
    html = _composite("html", tmp_path)
    for key in ("composite_pass", "strict_pass"):
        rate = report[key]
        assert f'data-metric="{key}"' in html
        assert f"{rate['numerator']}/{rate['denominator']}" in html
    for name, failures in report["check_failures"].items():
        row = re.search(rf'<tr data-check="{name}">(.*?)</tr>', html, re.DOTALL)
        assert row is not None
        assert f'<td class="num">{failures["failed"]}</td>' in row.group(1)
    data = json.loads(
        re.search(r'id="assay-data">(.*?)</script>', html, re.DOTALL).group(1)  # type: ignore[union-attr]
    )
    assert len(data["cases"]) == len(report["cases"])
    first = data["cases"][0]
    assert {c["name"] for c in first["checks"]} == set(report["cases"][0]["checks"])
    assert "SYNTHETIC — NOT A REAL RUN" in html and 'class="synthetic"' in html
