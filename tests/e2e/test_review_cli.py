"""``assay view --review`` through the real CLI: refused on a non-loopback interface; a
served review whose labels file ``assay calibrate`` reads unchanged, and whose calibration
then corrects the run's task success."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from tests.conftest import RunAssay
from tests.judge_server import judge_server, keyword_verdict
from tests.ports import reserved_port
from tests.review_runs import judged_store

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    "extra",
    [
        ["--host", "0.0.0.0"],
        ["--host", "192.168.1.20"],
        ["--allow-host", "reviews.example"],
    ],
)
def test_review_is_refused_beyond_loopback(
    run_assay: RunAssay, tmp_path: Path, extra: list[str]
) -> None:
    labels = tmp_path / "labels.jsonl"
    done = run_assay("view", "--review", "any-run", "--labels", labels, *extra)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "loopback" in done.stderr or "--allow-host" in done.stderr
    assert not labels.exists()


def test_review_options_need_review(run_assay: RunAssay, tmp_path: Path) -> None:
    done = run_assay("view", "--labels", tmp_path / "labels.jsonl", "--seed", "3")
    assert done.returncode == 2 and "--labels, --seed: only with --review" in done.stderr


def _label_every_answer(base: str) -> int:
    """Label each answer the page offers until none is left: the human agrees with the
    judge but for two answers it passed (scored 0 here). Returns how many were labelled."""
    labelled = disagreed = 0
    with httpx.Client(base_url=base, timeout=10) as client:
        while True:
            went = client.get("/review")
            if went.headers["location"].startswith("/review/progress"):
                return labelled
            page = client.get(went.headers["location"]).text
            token = re.search(r'name="csrf" value="([^"]+)"', page)
            case = re.search(r'name="case" value="([^"]+)"', page)
            assert token and case and "keyword judge" not in page
            passing = case[1].startswith("C")  # the judge passes C…, fails F… (review_runs)
            score = "2" if passing else "0"
            if passing and disagreed < 2:
                score, disagreed = "0", disagreed + 1
            form = {"csrf": token[1], "case": case[1], "trial": "1", "verdict": score,
                    "item-R1": "present" if passing else "absent", "item-D1": "absent"}  # fmt: skip
            sent = client.post(
                went.headers["location"].split("?")[0], data=form, headers={"Origin": base}
            )
            assert sent.status_code == 303, sent.text
            labelled += 1


def test_labels_from_the_review_page_calibrate_the_judge(
    run_assay: RunAssay, tmp_path: Path
) -> None:
    store, run_id = judged_store(tmp_path, passing=12, failing=12)
    labels = tmp_path / "labels.jsonl"
    with reserved_port() as port:
        server = subprocess.Popen(
            [sys.executable, "-m", "assay", "view", "--store", store, "--port", str(port),
             "--review", "review", "--labels", str(labels), "--reviewer", "rk", "--seed", "11"],
            cwd=tmp_path, stderr=subprocess.PIPE, text=True, env={**os.environ},
        )  # fmt: skip
        try:
            base = f"http://127.0.0.1:{port}"
            for _ in range(150):
                try:
                    httpx.get(base + "/", timeout=2)
                    break
                except httpx.TransportError:
                    time.sleep(0.1)
            else:
                pytest.fail("assay view --review did not start")
            assert _label_every_answer(base) == 24
        finally:
            server.terminate()
            _, err = server.communicate(timeout=10)
    assert f"reviewing run {run_id}: 24 judged answers, sample seed 11" in err
    lines = [json.loads(line) for line in labels.read_text().splitlines()]
    assert len(lines) == 24 and {line["reviewer"] for line in lines} == {"rk"}
    assert all(line["seed"] == 11 and line["labelled_at"].endswith("Z") for line in lines)

    calibration = tmp_path / "calibration.json"
    done = run_assay(
        "calibrate", labels, run_id, "--store", store, "-f", "json", "-o", calibration,
        cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    measured = json.loads(calibration.read_text())
    assert measured["labelled"] == measured["judged"] == 24 and measured["unlabelled"] == 0
    fa = measured["false_accepts"]
    assert (fa["numerator"], fa["denominator"]) == (2, 14)  # 12 judge fails + 2 passes
    assert measured["false_rejects"]["numerator"] == 0
    assert measured["judge"]["judge_model"] == "scripted"

    # a suite that names the calibration: its run (the same judge) is corrected by it
    suite = tmp_path / "suite.yaml"
    with judge_server(keyword_verdict) as url:
        text = re.sub(r"base_url: \S+", f"base_url: {url}", suite.read_text())
        suite.write_text(
            text.replace(
                "  retries: 0\n",
                "  retries: 0\n"
                "  calibration: {report: calibration.json, max_false_accept_upper: 0.5}\n",
            )
        )
        done = run_assay("run", suite, "--store", store, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    said = " ".join(done.stdout.split())
    assert "corrected for the judge's measured errors:" in said
    assert "false accepts 2/14, false rejects 0/10" in said
