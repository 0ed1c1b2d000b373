"""The viewer and ``assay compare`` read stored runs the same way: on one store they give
the same comparison, figure for figure, name a changed configuration key the same way and
refuse a changed case with the same words."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from tests.run_stores import add_edited_run, fill_store

from assay.cli import main
from assay.store import open_store
from assay.view import create_app


@pytest.fixture
def store_url(tmp_path: Path) -> str:
    url = fill_store(f"sqlite:///{tmp_path / 'runs.db'}")
    # E1 accepts one more fact: a change no report row shows, only the stored definition.
    add_edited_run(url, "facts", change={"accepted_facts": ("return_window_one_month",)})
    return url


@pytest.fixture
def viewer(store_url: str) -> Iterator[TestClient]:
    reader = open_store(store_url, read_only=True)
    try:
        with TestClient(create_app(reader), base_url="http://127.0.0.1") as client:
            yield client
    finally:
        reader.close()


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    with pytest.raises(SystemExit) as exit_info:
        main(["compare", *args])
    out, err = capsys.readouterr()
    code = exit_info.value.code
    return int(code) if isinstance(code, int) else 0, out, err


def test_the_viewer_and_the_cli_give_the_same_comparison(
    viewer: TestClient, store_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    page = viewer.get("/compare.json", params={"baseline": "base", "candidate": "cand"})
    assert page.status_code == 200
    code, out, err = cli(capsys, "base", "cand", "--store", store_url, "-f", "json")
    assert code == 0, err
    shown: dict[str, Any] = page.json()
    printed: dict[str, Any] = json.loads(out)
    assert shown == printed
    keys = [change["key"] for change in shown["config_diff"]]
    assert "target.model" in keys
    assert not [k for k in keys if k.startswith("run.")]
    assert shown["mcnemar"]["fixed"] == printed["mcnemar"]["fixed"] > 0


def test_the_html_page_shows_the_cli_s_figures(
    viewer: TestClient, store_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    html = viewer.get("/compare", params={"baseline": "base", "candidate": "cand"}).text
    _, out, _ = cli(capsys, "base", "cand", "--store", store_url, "-f", "json")
    printed = json.loads(out)
    for change in printed["config_diff"]:
        assert change["key"] in html
    assert printed["summary"].split(";")[0] in html


def test_both_refuse_a_changed_case_naming_the_changed_field(
    viewer: TestClient, store_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    params = {"baseline": "base", "candidate": "facts", "strict": "1"}
    page = viewer.get("/compare.json", params=params)
    assert page.status_code == 409
    code, _, err = cli(capsys, "base", "facts", "--store", store_url, "-f", "json")
    assert code == 2
    refused = page.json()["error"]
    assert "accepted_facts" in refused
    assert "compare the stored runs by id" not in refused
    assert refused in err
    html = viewer.get("/compare", params=params)
    assert html.status_code == 409 and "accepted_facts" in html.text


def test_both_compare_the_matching_cases_alike(
    viewer: TestClient, store_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    page = viewer.get("/compare.json", params={"baseline": "base", "candidate": "facts"})
    code, text, err = cli(capsys, "base", "facts", "--store", store_url, "--matching-only")
    assert code == 0, err
    assert "E1" in text
    _, printed, _ = cli(
        capsys, "base", "facts", "--store", store_url, "--matching-only", "-f", "json"
    )
    assert page.json() == json.loads(printed)
    assert [e["id"] for e in page.json()["excluded"]] == ["E1"]
    assert "accepted_facts" in page.json()["excluded"][0]["reason"]
