"""``--executor ray`` on a local Ray instance (2 CPUs): the same statuses and figures as
the local runner, a worker killed mid-run loses and duplicates nothing, and a driver
SIGKILLed mid-run leaves what it stored, which ``--resume`` completes.

Skipped, saying why, when Ray is not installed (pip install 'assay[ray]')."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.store_load import expected_counts, write_suite

from assay.errors import AssayConfigError
from assay.runner import Overrides, report_for_run, resume_run, run_suite
from assay.store import open_store

# One worker runs them all: a local Ray instance takes 2 CPUs, hundreds of MB and seconds to
# start, and the concurrency and rate figures these tests check need no other Ray beside it.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("ray")]
BENCH = Path(__file__).resolve().parents[3] / "bench"
FAULT_KEY = "sk-fault/Injected+KEY_0042"

_SLOW_TARGET = '''"""Answers after a short wait; the first call to case {kill} kills its worker."""
import asyncio
import os
import signal
from pathlib import Path


async def answer(case):
    await asyncio.sleep(0.02)
    number = int(case.id[1:])
    marker = Path(__file__).with_name("killed")
    if number == {kill} and not marker.exists():
        marker.write_text(str(os.getpid()))
        os.kill(os.getpid(), signal.SIGKILL)
    if number == 7:
        raise ValueError("planted exception")
    if number % 50 == 0:
        return {{"kind": "error", "class": "http_5xx", "message": "planted failure"}}
    return {{"fact": "wrong" if number % 3 == 0 else "right"}}
'''


def _ray() -> object:
    return pytest.importorskip("ray", reason="Ray is not installed: pip install 'assay[ray]'")


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    ray = _ray()
    ray.init(  # type: ignore[attr-defined]
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        object_store_memory=80 << 20,
        runtime_env={"env_vars": {"ASSAY_FAULT_KEY": FAULT_KEY}},  # the workers' API key
    )
    try:
        yield
    finally:
        ray.shutdown()  # type: ignore[attr-defined]


def _slow_suite(folder: Path, cases: int, trials: int, kill: int, concurrency: int = 8) -> Path:
    suite = write_suite(folder, cases, trials, concurrency)
    (folder / "loadapp.py").write_text(_SLOW_TARGET.format(kill=kill), encoding="utf-8")
    return suite


def _statuses(store_url: str, run_id: str) -> dict[tuple[str, int], str]:
    store = open_store(store_url)
    try:
        report = report_for_run(store, run_id)
        return {(row.id, row.trial): row.status for row in report.cases}
    finally:
        store.close()


def test_ray_gives_the_local_runners_statuses_and_figures(local_ray: None, tmp_path: Path) -> None:
    suite = write_suite(tmp_path / "suite", 120, 2, concurrency=8)
    url = f"sqlite:///{tmp_path / 'assay.db'}"
    store = open_store(url)
    try:
        local = run_suite(suite, store, overrides=Overrides(trace=True))
        on_ray = run_suite(suite, store, overrides=Overrides(executor="ray", trace=True))
        assert on_ray.status == local.status == "completed"
        assert on_ray.report.statuses == local.report.statuses
        assert on_ray.report.statuses.model_dump() == {
            **expected_counts(120, 2),
            "missing": 0,
            "ungraded": 0,
        }
        assert on_ray.report.task_success == local.report.task_success
        assert store.get_run(on_ray.run_id).metadata["executor"] == {
            "name": "ray",
            "address": "local",
        }
        assert store.get_run(local.run_id).target_hash == store.get_run(on_ray.run_id).target_hash
        traced = {r.trace_id for r in store.records(on_ray.run_id)}  # spans by the driver
        assert None not in traced and len(traced) == 240
        assert {s.trace_id for s in store.spans(on_ray.run_id)} == traced
    finally:
        store.close()
    assert _statuses(url, on_ray.run_id) == _statuses(url, local.run_id)


def test_a_worker_killed_mid_run_has_its_calls_sent_again(local_ray: None, tmp_path: Path) -> None:
    suite = _slow_suite(tmp_path / "suite", 150, 2, kill=40)
    store = open_store(f"sqlite:///{tmp_path / 'assay.db'}")
    try:
        result = run_suite(suite, store, overrides=Overrides(executor="ray"))
        assert (tmp_path / "suite" / "killed").exists()  # a worker did die mid-run
        assert result.status == "completed"
        records = store.records(result.run_id)
        keys = [(r.case_id, r.trial) for r in records]
        assert len(keys) == len(set(keys)) == 300
        resent = [r for r in records if "ray" in r.extra]
        assert resent and all(r.extra["ray"]["resent"] >= 1 for r in resent)
        raised = [r.outcome for r in records if r.case_id == "C7"]
        assert [getattr(o, "error_class", None) for o in raised] == ["exception:ValueError"] * 2
        assert all("planted exception" in getattr(o, "message", "") for o in raised)
        answered = [r for r in resent if r.outcome.kind == "answer"]
        assert answered and all(r.attempts == 1 for r in answered)  # not the target's attempts
        counts = expected_counts(150, 2)
        counts = {**counts, "passed": counts["passed"] - 2, "error": counts["error"] + 2}
        assert result.report.statuses.model_dump() == {**counts, "missing": 0, "ungraded": 0}
    finally:
        store.close()


def _stored(url: str) -> list[tuple[str, int]]:
    store = open_store(url)
    try:
        runs = store.list_runs()
        if not runs:
            return []
        return [(r.case_id, r.trial) for r in store.records(runs[0].id)]
    finally:
        store.close()


def test_a_driver_killed_mid_run_keeps_what_it_stored_and_resumes(tmp_path: Path) -> None:
    _ray()
    suite = _slow_suite(tmp_path / "suite", 300, 2, kill=0, concurrency=4)
    url = f"sqlite:///{tmp_path / 'assay.db'}"
    command = [sys.executable, "-m", "assay", "run", str(suite), "--store", url]
    driver = subprocess.Popen(
        [*command, "--executor", "ray"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # Ray's local processes stay in its group, to clean up
    )
    try:
        deadline = time.monotonic() + 240
        while len(_stored(url)) < 40 and driver.poll() is None and time.monotonic() < deadline:
            time.sleep(0.5)
        assert driver.poll() is None, "the run ended before it could be killed"
        driver.send_signal(signal.SIGKILL)
        driver.wait(30)
    finally:
        time.sleep(1)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(driver.pid, signal.SIGKILL)  # what the driver's Ray left behind
    before = _stored(url)
    assert 40 <= len(before) < 600
    store = open_store(url)
    try:
        run_id = store.list_runs()[0].id
        assert store.get_run(run_id).status == "running"  # killed: nothing marked it
        result = resume_run(store, run_id, overrides=Overrides(executor="ray"))
        assert result.status == "completed" and result.skipped == len(before)
        records = store.records(run_id)
    finally:
        store.close()
    keys = [(r.case_id, r.trial) for r in records]
    assert len(keys) == len(set(keys)) == 600
    assert set(before) <= set(keys)
    counts = expected_counts(300, 2)
    counts = {**counts, "passed": counts["passed"] - 2, "error": counts["error"] + 2}
    assert result.report.statuses.model_dump() == {**counts, "missing": 0, "ungraded": 0}


def test_without_ray_the_executor_says_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray raises ImportError
    suite = write_suite(tmp_path / "suite", 3, 1)
    store = open_store(f"sqlite:///{tmp_path / 'assay.db'}")
    try:
        with pytest.raises(AssayConfigError, match=r"pip install 'assay\[ray\]'"):
            run_suite(suite, store, overrides=Overrides(executor="ray"))
    finally:
        store.close()


def test_address_without_the_ray_executor_is_refused() -> None:
    with pytest.raises(AssayConfigError, match="--executor ray"):
        Overrides(address="auto")
    with pytest.raises(AssayConfigError, match="local or ray"):
        Overrides(executor="dask")


def test_faults_retries_and_retry_after_behave_as_locally(
    local_ray: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fault server of tests/e2e/test_run_faults.py, on Ray: every case-trial recorded
    once, every request an attempt the run recorded, every Retry-After waited, the echoed
    key stored nowhere."""
    sys.path.insert(0, str(BENCH))
    from _mockproc import mock_server

    rows = [
        {"id": f"F{i:02d}", "slice": "s", "question": f"q{i} [fact:ok]",
         "expected_behavior": "answer", "expected_fact": "ok"}
        for i in range(30)
    ]  # fmt: skip
    (tmp_path / "cases.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    stats = tmp_path / "faults.json"
    monkeypatch.setenv("ASSAY_FAULT_KEY", FAULT_KEY)
    flags = ("--fault-rate", "0.3", "--seed", "11", "--retry-after", "0.2", "--hang-s", "3")
    with mock_server(*flags, "--stats", str(stats), script=BENCH / "mock_faults.py") as url:
        suite = tmp_path / "suite.yaml"
        suite.write_text(
            f"dataset: cases.jsonl\ntarget:\n  type: openai\n  base_url: {url}\n  model: m\n"
            "  api_key_env: ASSAY_FAULT_KEY\nconcurrency: 8\ntrials: 2\ntimeout_s: 1\n"
            "retries: 3\n"
        )
        store = open_store(f"sqlite:///{tmp_path / 'runs.db'}")
        try:
            result = run_suite(suite, store, overrides=Overrides(executor="ray"))
            records = store.records(result.run_id)
        finally:
            store.close()
    seen = json.loads(stats.read_text())
    assert result.status == "completed"
    keys = [r.key for r in records]
    assert len(keys) == len(set(keys)) == 60
    failed = [a for r in records for a in r.extra.get("failed_attempts", [])]
    # Every request the server saw is an attempt the run recorded. On a loaded machine an
    # attempt can also time out (1 s) before its request reaches the server: only those
    # attempts may go unseen.
    timeouts = sum(1 for a in failed if a["error_class"] == "timeout") + sum(
        1 for r in records if getattr(r.outcome, "error_class", None) == "timeout"
    )
    assert seen["requests"] <= sum(r.attempts for r in records) <= seen["requests"] + timeouts
    waited = [a for a in failed if a["error_class"] == "http_429"]
    assert waited and all(a["waited_s"] >= a["retry_after_s"] == 0.2 for a in waited)
    assert result.report.statuses.total == 60
    for path in tmp_path.iterdir():
        if path.name.startswith("runs.db") and path.is_file():
            assert FAULT_KEY.encode() not in path.read_bytes()


_LOGGING_TARGET = '''"""Logs when each call starts and ends, and in which worker process."""
import asyncio
import os
import time
from pathlib import Path

LOG = Path(__file__).with_name("calls.log")


async def answer(case):
    started = time.time()
    await asyncio.sleep(0.15)
    with LOG.open("a") as out:
        out.write(f"{os.getpid()} {started} {time.time()}\\n")
    return {"fact": "right"}
'''


def test_concurrency_and_rate_limit_are_global_across_actors(
    local_ray: None, tmp_path: Path
) -> None:
    suite = write_suite(tmp_path / "suite", 24, 1, concurrency=3)
    (tmp_path / "suite" / "loadapp.py").write_text(_LOGGING_TARGET, encoding="utf-8")
    store = open_store(f"sqlite:///{tmp_path / 'assay.db'}")
    try:
        started = time.monotonic()
        result = run_suite(suite, store, overrides=Overrides(executor="ray", rpm=1200))
        took = time.monotonic() - started
    finally:
        store.close()
    assert result.status == "completed" and result.report.statuses.passed == 24
    calls = [line.split() for line in (tmp_path / "suite" / "calls.log").read_text().splitlines()]
    assert len(calls) == 24 and len({pid for pid, _, _ in calls}) == 2  # both actors served
    edges = sorted(
        [(float(start), 1) for _, start, _ in calls] + [(float(end), -1) for _, _, end in calls]
    )
    running = peak = 0
    for _, step in edges:
        running += step
        peak = max(peak, running)
    assert peak <= 3  # never more calls out than the run's concurrency, across both actors
    assert took >= 23 * 60 / 1200  # 1,200 calls a minute: one start every 50 ms at most
