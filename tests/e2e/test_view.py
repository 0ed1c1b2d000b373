"""The viewer over a real store: pages, figures, errors, read-only, and ``assay view``."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import time
import warnings
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

with warnings.catch_warnings():
    # Starlette would rather its test client used httpx2; httpx works and is what we have.
    warnings.simplefilter("ignore", UserWarning)
    from starlette.testclient import TestClient

from tests.ports import reserved_port
from tests.run_stores import add_edited_run

from assay.errors import AssayConfigError
from assay.metrics import IntervalSetting
from assay.store import open_store
from assay.view import create_app, host_warning

ROOT = Path(__file__).resolve().parents[2]


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def client(run_store: tuple[str, Path]) -> Iterator[TestClient]:
    reader = open_store(run_store[0], read_only=True)
    with TestClient(create_app(reader), base_url="http://127.0.0.1") as test_client:
        yield test_client
    reader.close()


def test_run_list_shows_headline_rates(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200
    text = page.text
    assert text.index('data-run="cand"') < text.index('data-run="base"')  # newest first
    assert '33.3%</span> <span class="sub" data-field="fraction">2/6' in text
    assert '66.7%</span> <span class="sub" data-field="fraction">4/6' in text
    assert "[4.3%, 77.7%]" in text


def test_run_page_and_json_agree(client: TestClient) -> None:
    report = client.get("/runs/base/report.json").json()
    assert report["run_id"] == "base" and report["errors"] == 1
    page = client.get("/runs/ba")  # a unique prefix is enough
    assert page.status_code == 200
    assert "2/6" in page.text and '"name":"retrieve"' in page.text


def test_compare_and_case_pages(client: TestClient) -> None:
    page = client.get("/compare", params={"baseline": "base", "candidate": "cand"})
    assert page.status_code == 200
    fixed = page.text.split('id="fixed-table"')[1].split("</table>")[0]
    assert all(f'data-case="{case}"' in fixed for case in ("E2", "E4", "E6"))
    broken = page.text.split('id="broken-table"')[1].split("</table>")[0]
    assert 'data-case="E3"' in broken
    case = client.get("/case", params={"id": "E2"})
    assert case.status_code == 200
    assert case.text.count('data-run="') == 2 and 'href="/runs/base#case=E2"' in case.text


def test_every_page_uses_the_level_and_method_asked(run_store: tuple[str, Path]) -> None:
    reader = open_store(run_store[0], read_only=True)
    with TestClient(
        create_app(reader, interval=IntervalSetting(0.9, "wilson")), base_url="http://127.0.0.1"
    ) as client:
        report = client.get("/runs/base/report.json").json()
        for key in ("task_success", "answer_coverage", "answered_accuracy"):
            assert (report[key]["confidence"], report[key]["method"]) == (0.9, "wilson")
        assert "[11.7%, 65.3%]" in client.get("/runs/base").text
        page = client.get("/compare", params={"baseline": "base", "candidate": "cand"}).text
        assert "90%" in page and "95%" not in page
    reader.close()


def test_unknown_things_are_clear_404s(client: TestClient) -> None:
    missing = client.get("/runs/nope")
    assert missing.status_code == 404 and "no run &#39;nope&#39;" in missing.text
    assert client.get("/case", params={"id": "E99"}).status_code == 404
    assert client.get("/compare", params={"baseline": "base"}).status_code == 400


def test_browsing_never_changes_the_store(run_store: tuple[str, Path]) -> None:
    url, path = run_store
    before = _digest(path)
    reader = open_store(url, read_only=True)
    with TestClient(create_app(reader), base_url="http://127.0.0.1") as test_client:
        for route in ("/", "/runs/base", "/runs/cand/report.json", "/case?id=E5",
                      "/compare?baseline=base&candidate=cand"):  # fmt: skip
            assert test_client.get(route).status_code == 200
        assert test_client.post("/").status_code == 405
    with pytest.raises(Exception, match=r"readonly|read-only"):
        reader.finish_run("base", "failed")
    reader.close()
    assert _digest(path) == before


def test_missing_store_is_an_error_not_created(tmp_path: Path) -> None:
    with pytest.raises(AssayConfigError, match="nothing to view"):
        open_store(f"sqlite:///{tmp_path / 'none.db'}", read_only=True)
    assert not (tmp_path / "none.db").exists()


def test_host_warning_only_off_loopback() -> None:
    assert host_warning("127.0.0.1") is None and host_warning("localhost") is None
    warning = host_warning("0.0.0.0")
    assert warning is not None and "no login" in warning


def test_assay_view_serves_on_loopback(run_store: tuple[str, Path]) -> None:
    with reserved_port() as port:
        _view_serves_on(port, run_store[0])


def _view_serves_on(port: int, store: str) -> None:
    server = subprocess.Popen(
        [sys.executable, "-m", "assay", "view", "--store", store, "--port", str(port),
         "--confidence", "0.9", "--interval", "wilson"],
        cwd=ROOT, stderr=subprocess.PIPE, text=True, env={**os.environ},
    )  # fmt: skip
    try:
        for _ in range(100):
            try:
                page = httpx.get(f"http://127.0.0.1:{port}/", timeout=2)
                break
            except httpx.TransportError:
                time.sleep(0.1)
        else:
            pytest.fail("assay view did not start")
        assert page.status_code == 200 and 'data-run="base"' in page.text
        assert "[11.7%, 65.3%]" in page.text  # 2/6 by Wilson at 90%, as asked
    finally:
        server.terminate()
        _, err = server.communicate(timeout=10)
    assert f"http://127.0.0.1:{port}/" in err and "warning" not in err


def test_assay_view_without_a_store_exits_2(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "assay", "view", "--store", str(tmp_path / "x.db")],
        capture_output=True, text=True, check=False, cwd=ROOT,
    )  # fmt: skip
    assert done.returncode == 2 and done.stdout == ""
    assert "nothing to view" in done.stderr


PAYLOAD = '"><img src=x onerror=alert(1)><script>alert(2)</script>'


def test_viewer_pages_escape_stored_values(tmp_path: Path) -> None:
    from datetime import UTC, datetime

    from assay.cases import Case, Dataset
    from assay.outcomes import Answer, Record
    from assay.store import RunInfo, open_store

    case = Case(id="X1", slice=PAYLOAD, question=PAYLOAD, expected_behavior="answer",
                expected_fact="f", rationale=PAYLOAD)  # fmt: skip
    data = Dataset(name=PAYLOAD, cases=(case,))
    url = f"sqlite:///{tmp_path / 'x.db'}"
    store = open_store(url)
    info = RunInfo(
        id="r1", started_at=datetime(2026, 11, 1, tzinfo=UTC), dataset_name=PAYLOAD,
        dataset_version=data.version, target={"type": PAYLOAD, "model": PAYLOAD},
        assay_version="0.1.0", metadata={PAYLOAD: PAYLOAD},
    )  # fmt: skip
    store.create_run(info, data.cases)
    store.add_records("r1", [Record(case_id="X1", outcome=Answer(fact=PAYLOAD, text=PAYLOAD))])
    store.finish_run("r1", "completed")
    store.close()
    reader = open_store(url, read_only=True)
    with TestClient(create_app(reader), base_url="http://127.0.0.1") as test_client:
        for route in ("/", "/runs/r1", "/case?id=X1", f"/case?id={PAYLOAD}"):
            page = test_client.get(route)
            assert "<img" not in page.text, route
            assert page.text.count("<script") <= 2, route
    reader.close()


def test_compare_says_what_it_left_out_and_can_refuse(run_store: tuple[str, Path]) -> None:
    add_edited_run(run_store[0])
    reader = open_store(run_store[0], read_only=True)
    with TestClient(create_app(reader), base_url="http://127.0.0.1") as test_client:
        page = test_client.get("/compare", params={"baseline": "base", "candidate": "edited"})
        assert page.status_code == 200
        note = page.text.split('id="pairing"')[1].split("</p>")[0]
        assert "5 cases paired. 1 case left out" in note and "case definition differs" in note
        assert 'data-case="E1"' in page.text.split('id="excluded"')[1]
        assert "strict=1" in page.text
        strict = test_client.get(
            "/compare", params={"baseline": "base", "candidate": "edited", "strict": "1"}
        )
        assert strict.status_code == 409 and "Comparison refused" in strict.text
        assert "E1" in strict.text and 'href="/compare?baseline=base&amp;candidate=edited"' in (
            strict.text
        )
        same = test_client.get("/compare", params={"baseline": "base", "candidate": "cand"})
        assert "none left out" in same.text and "strict=1" not in same.text
    reader.close()


def test_no_strict_link_when_only_synthetic_cases_are_left_out(
    run_store: tuple[str, Path],
) -> None:
    for run_id in ("syn1", "syn2"):  # E1 synthetic in both: left out, never refused
        add_edited_run(run_store[0], run_id, synthetic=True)
    reader = open_store(run_store[0], read_only=True)
    with TestClient(create_app(reader), base_url="http://127.0.0.1") as test_client:
        page = test_client.get("/compare", params={"baseline": "syn1", "candidate": "syn2"})
        assert page.status_code == 200
        assert "synthetic case" in page.text.split('id="pairing"')[1].split("</p>")[0]
        assert "strict=1" not in page.text
    reader.close()
