"""``assay compare`` end to end on report files: output, refusal, matching-only, gates."""

from __future__ import annotations

import html
import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

POLICY = Path(__file__).resolve().parents[2] / "examples" / "policy"
RunAssay = Callable[..., subprocess.CompletedProcess[str]]

CANDIDATE = [
    {"id": "E1", "kind": "answer", "fact": "return_window_30_days"},
    {"id": "E2", "kind": "answer", "fact": "custom_excluded"},
    {"id": "E3", "kind": "answer", "fact": "made_up"},
    {"id": "E4", "kind": "abstain"},
    {"id": "E5", "kind": "answer", "fact": "wrong"},
    {"id": "E6", "kind": "abstain"},
]


def _write(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _score(run_assay: RunAssay, dataset: Path, results: Path, out: Path, *extra: str) -> Path:
    done = run_assay("score", dataset, results, "-f", "json", "-o", out, *extra)
    assert done.returncode == 0, done.stderr
    return out


@pytest.fixture
def reports(tmp_path: Path, run_assay: RunAssay) -> tuple[Path, Path]:
    base = _score(
        run_assay, POLICY / "policy.jsonl", POLICY / "results.jsonl", tmp_path / "base.json"
    )
    results = _write(tmp_path / "cand.jsonl", CANDIDATE)
    cand = _score(run_assay, POLICY / "policy.jsonl", results, tmp_path / "cand.json")
    return base, cand


def test_text_report_names_fixed_broken_and_moved(
    reports: tuple[Path, Path], run_assay: RunAssay
) -> None:
    done = run_assay("compare", *reports)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "2 fixed, 1 broken; p = 1: not distinguishable from noise at these counts" in out
    assert "Newly fixed (2)" in out and "Newly broken (1)" in out
    assert "E5" in out and "error" in out
    assert done.stderr == ""


def test_json_follows_the_contract(reports: tuple[Path, Path], run_assay: RunAssay) -> None:
    done = run_assay("compare", *reports, "--format", "json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["paired"] == 6
    assert data["newly_fixed"] == ["E2", "E4"]
    assert data["newly_broken"] == ["E3"]
    assert data["moved"] == [
        {"id": "E5", "trial": 1, "slice": "standard", "from": "error", "to": "failed"}
    ]
    assert data["mcnemar"]["fixed"] == 2 and data["mcnemar"]["broken"] == 1
    assert data["task_success_delta"]["value"] == pytest.approx(1 / 6)


def test_gates_exit_1_and_say_which_and_by_how_much(
    reports: tuple[Path, Path], run_assay: RunAssay
) -> None:
    done = run_assay("compare", *reports, "--gate", "no-new-failures", "--format", "json")
    assert done.returncode == 1
    assert "gate FAILED: no-new-failures: 1 newly failing: E3" in done.stderr
    json.loads(done.stdout)  # the report is still complete and valid
    done = run_assay("compare", *reports, "--gate", "task_success_delta>=0.2")
    assert done.returncode == 1
    assert "task_success_delta = +0.1667" in done.stderr
    done = run_assay("compare", *reports, "--gate", "task_success_delta>=-0.02")
    assert done.returncode == 0, done.stderr
    assert "gate passed" in done.stderr


def test_bad_gate_is_exit_2(reports: tuple[Path, Path], run_assay: RunAssay) -> None:
    done = run_assay("compare", *reports, "--gate", "task_sucess_delta>=0")
    assert done.returncode == 2
    assert 'did you mean "task_success_delta"' in done.stderr
    assert "Traceback" not in done.stderr


def test_refuses_different_datasets_and_matching_only_accounts(
    tmp_path: Path, run_assay: RunAssay
) -> None:
    base = _score(
        run_assay, POLICY / "policy.jsonl", POLICY / "results.jsonl", tmp_path / "base.json"
    )
    e7 = _score(
        run_assay, POLICY / "policy-e7.jsonl", POLICY / "results.jsonl", tmp_path / "e7.json"
    )
    done = run_assay("compare", base, e7)
    assert done.returncode == 2
    assert done.stdout == ""
    assert "E7: only in the candidate" in done.stderr
    assert "--matching-only" in done.stderr
    done = run_assay("compare", base, e7, "--matching-only", "--format", "json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["excluded"] == [{"id": "E7", "trial": None, "reason": "only in the candidate"}]
    assert data["paired"] == 6


def test_not_a_report_is_exit_2(tmp_path: Path, run_assay: RunAssay) -> None:
    done = run_assay("compare", POLICY / "policy.jsonl", POLICY / "results.jsonl")
    assert done.returncode == 2
    assert "not an assay JSON report" in done.stderr
    assert "Traceback" not in done.stderr


def test_markdown_to_a_file(
    reports: tuple[Path, Path], run_assay: RunAssay, tmp_path: Path
) -> None:
    out = tmp_path / "compare.md"
    done = run_assay("compare", *reports, "--format", "markdown", "--output", out)
    assert done.returncode == 0, done.stderr
    text = out.read_text(encoding="utf-8")
    assert text.startswith("## assay compare")
    assert "| E3 |" in text


def test_trial_policy_is_printed_beside_the_figures(tmp_path: Path, run_assay: RunAssay) -> None:
    rows = []
    for cid, passes in {"E1": 3, "E2": 1, "E3": 0, "E4": 2, "E5": 3, "E6": 0}.items():
        for t in range(1, 4):
            ok = t <= passes
            fact = {"E1": "return_window_30_days", "E5": "defect_window_7_days"}.get(cid)
            if cid in ("E3", "E4"):
                rows.append({"id": cid, "trial": t, "kind": "abstain" if ok else "answer",
                             **({} if ok else {"fact": "nope"})})  # fmt: skip
            elif cid in ("E2", "E6"):
                answer = {"kind": "answer", "fact": "custom_excluded" if ok else "nope"}
                rows.append({"id": cid, "trial": t, **answer})
            else:
                rows.append({"id": cid, "trial": t, "kind": "answer", "fact": fact if ok else "x"})
    results = _write(tmp_path / "trials.jsonl", rows)
    # Best-of-k selection is refused until the user declares the product selects too.
    done = run_assay("score", POLICY / "policy.jsonl", results, "--trial-policy", "pass@3")
    assert done.returncode == 2
    assert done.stdout == ""
    assert "selects the best of several outputs" in done.stderr
    assert "--product-selects-best" in done.stderr
    done = run_assay(
        "score", POLICY / "policy.jsonl", results, "--trial-policy", "pass@3",
        "--product-selects-best",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "Trial policy: pass@3 of 3 trials, best of 3 as the product selects" in done.stdout
    done = run_assay("score", POLICY / "policy.jsonl", results, "--trial-policy", "pass@1")
    assert done.returncode == 0, done.stderr
    done = run_assay("score", POLICY / "policy.jsonl", results, "--trial-policy", "pass^3")
    assert done.returncode == 0, done.stderr
    assert "Trial policy: pass^3 of 3 trials" in done.stdout
    assert "(pass^3 of 3 trials)" in done.stdout
    assert "Flaky cases (some but not all recorded trials passed): E2, E4" in done.stdout
    assert "clustered by case" in done.stdout
    done = run_assay("score", POLICY / "policy.jsonl", results, "--trial-policy", "best-of-3")
    assert done.returncode == 2
    assert "unknown trial policy" in done.stderr


def _plain(text: str) -> str:
    """HTML or Markdown as the words it shows."""
    return html.unescape(text).replace("\\[", "[").replace("\\]", "]")


def test_a_margin_states_non_inferiority_in_every_format_and_gates_the_exit(
    reports: tuple[Path, Path], run_assay: RunAssay, tmp_path: Path
) -> None:
    # the paired 95% interval of the difference is [-31.5, +55.9] points
    done = run_assay("compare", *reports, "--margin", "0.5")
    assert done.returncode == 0, done.stderr
    said = (
        "not worse than the baseline by more than 50.0 points: the paired 95% interval of "
        "the difference is [-31.5, +55.9] points"
    )
    assert f"Non-inferiority: {said}" in done.stdout
    assert f"gate passed: not_worse_than_baseline(0.5): {said}" in done.stderr
    for fmt in ("markdown", "html", "json"):
        out = tmp_path / f"margin.{fmt}"
        assert (
            run_assay("compare", *reports, "--margin", "0.5", "-f", fmt, "-o", out).returncode == 0
        )
        assert said in _plain(out.read_text(encoding="utf-8")), fmt
    data = json.loads((tmp_path / "margin.json").read_text())
    assert data["non_inferiority"]["verdict"] == "not worse"
    assert data["worst_case"]["survives"] is True
    done = run_assay("compare", *reports, "--margin", "0.02")
    assert done.returncode == 1
    assert "may be worse than the baseline by more than 2.0 points" in done.stdout
    assert "gate FAILED: not_worse_than_baseline(0.02)" in done.stderr
    done = run_assay("compare", *reports, "--gate", "not_worse_than_baseline(2%)")
    assert done.returncode == 1 and "reaching below -2.0" in done.stderr


@pytest.mark.parametrize("bad", ["-0.01", "1", "1.5", "nan"])
def test_a_bad_margin_exits_2_naming_the_flag(
    reports: tuple[Path, Path], run_assay: RunAssay, bad: str
) -> None:
    done = run_assay("compare", *reports, "--margin", bad)
    assert done.returncode == 2
    assert "--margin: the margin" in done.stderr and "Traceback" not in done.stderr


def test_a_misspelt_check_exits_2_with_a_hint(
    reports: tuple[Path, Path], run_assay: RunAssay
) -> None:
    done = run_assay("compare", *reports, "--gate", "not_worse_than_basline(0.02)")
    assert done.returncode == 2
    assert 'did you mean "not_worse_than_baseline"' in done.stderr
    done = run_assay("compare", *reports, "--gate", "not_worse_than_baseline(1.2)")
    assert done.returncode == 2 and "the margin 1.2" in done.stderr


def test_the_worst_case_is_stated_in_every_format(
    reports: tuple[Path, Path], run_assay: RunAssay, tmp_path: Path
) -> None:
    words = "the verdict survives the worst case (the candidate's 0 error, missing or ungraded"
    assert words in run_assay("compare", *reports).stdout.replace("\n            ", " ")
    for fmt in ("markdown", "html", "json"):
        out = tmp_path / f"worst.{fmt}"
        assert run_assay("compare", *reports, "-f", fmt, "-o", out).returncode == 0
        assert words in _plain(out.read_text(encoding="utf-8")), fmt
