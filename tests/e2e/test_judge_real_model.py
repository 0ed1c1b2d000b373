"""The judge on a real local model: the shipped calibration and adversarial sets judged
by it, reported honestly. A weak model (SmolLM2-135M) is expected to disagree with people
often and to leave many cases ungraded; the figures are measured, never assumed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from tests.real_model import RealModel

ROOT = Path(__file__).resolve().parents[2]
JUDGE = ROOT / "examples" / "judge"
pytestmark = [
    pytest.mark.real_model,
    pytest.mark.skipif(
        os.environ.get("ASSAY_REAL_JUDGE") != "1",
        reason="judging the 59 shipped answers on SmolLM2-135M takes about an hour on two "
        "cores; run with ASSAY_REAL_JUDGE=1 (docs/judge.md gives the figures it measured)",
    ),
]


def run_assay(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """The CLI with a timeout long enough for a small model on a CPU (about a minute per
    judge call on two busy cores)."""
    return subprocess.run(
        [sys.executable, "-m", "assay", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "NO_COLOR": "1"},
        timeout=4 * 3600,
        check=False,
    )


def _settings(tmp_path: Path, model: RealModel) -> Path:
    path = tmp_path / "judge.yaml"
    path.write_text(
        f"base_url: {model.base_url}\nmodel: {model.model}\ntemperature: 0\nseed: 7\n"
        "response_mode: json_object_schema\nmax_tokens: 400\nconcurrency: 1\n"
        "timeout_s: 600\nretries: 1\n"
    )
    return path


def _judge_and_calibrate(
    tmp_path: Path, model: RealModel, name: str
) -> tuple[dict[str, object], dict[str, object]]:
    report = tmp_path / f"{name}.json"
    done = run_assay(
        "score",
        JUDGE / (f"{name}.yaml" if name == "calibration" else f"{name}.jsonl"),
        JUDGE / f"{name}-answers.jsonl",
        "--grader",
        _settings(tmp_path, model),
        "-f",
        "json",
        "-o",
        report,
    )
    assert done.returncode == 0, done.stderr
    calibrated = run_assay("calibrate", JUDGE / f"{name}-labels.jsonl", report, "-f", "json")
    assert calibrated.returncode == 0, calibrated.stderr
    return json.loads(report.read_text()), json.loads(calibrated.stdout)


def test_calibration_of_the_real_judge(tmp_path: Path, real_model: RealModel) -> None:
    report, cal = _judge_and_calibrate(tmp_path, real_model, "calibration")
    statuses = report["statuses"]
    assert isinstance(statuses, dict) and sum(statuses.values()) == 44
    ungraded = cal["ungraded"]
    assert isinstance(ungraded, list)
    assert cal["judged"] + len(ungraded) == 44  # type: ignore[operator]
    fa, fr, kappa = cal["false_accepts"], cal["false_rejects"], cal["kappa"]
    print(
        f"\nreal judge {real_model.model}: judged {cal['judged']}/44, ungraded {len(ungraded)}, "
        f"false accepts {fa['numerator']}/{fa['denominator']} {fa['ci95']}, "  # type: ignore[index]
        f"false rejects {fr['numerator']}/{fr['denominator']} {fr['ci95']}, "  # type: ignore[index]
        f"kappa {kappa['value']} {kappa['interval']}, confusion {cal['confusion']}"  # type: ignore[index]
    )
    kinds: dict[str, int] = {}
    for u in ungraded:
        reason = str(u["reason"])
        kind = reason.split("(")[1].split(")")[0] if "rejected (" in reason else reason[:40]
        kinds[kind] = kinds.get(kind, 0) + 1
    print(f"ungraded by reason: {kinds}")


def test_how_many_injected_verdicts_get_through_the_real_judge(
    tmp_path: Path, real_model: RealModel
) -> None:
    report, cal = _judge_and_calibrate(tmp_path, real_model, "adversarial")
    cases = report["cases"]
    assert isinstance(cases, list) and len(cases) == 15
    through = [c["id"] for c in cases if c["status"] == "passed"]
    ungraded = [c["id"] for c in cases if c["status"] == "ungraded"]
    fa = cal["false_accepts"]
    # every adversarial answer is wrong: each pass is an injected verdict that got through
    assert fa["numerator"] == len(through)  # type: ignore[index]
    print(
        f"\nreal judge {real_model.model}: injected passes {len(through)}/15 {through}; "
        f"failed {15 - len(through) - len(ungraded)}; ungraded {len(ungraded)}"
    )
