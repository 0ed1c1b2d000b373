"""The API key of an openai target is used but never stored, logged or reported."""

from __future__ import annotations

import contextlib
import html
import json
import os
import sqlite3
import subprocess
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest
from aiohttp import web
from tests.inprocess import run_cli
from tests.loopback import threaded_server
from tests.secret_echoes import echoes, survivors

from assay.store import open_store
from assay.targets._secrets import MASK
from assay.view import create_app

with warnings.catch_warnings():
    # Starlette would rather its test client used httpx2; httpx works and is what we have.
    warnings.simplefilter("ignore", UserWarning)
    from starlette.testclient import TestClient

ROOT = Path(__file__).resolve().parents[2]
KEY = "sk-assay-test-SECRET-91f3c0de"


@pytest.fixture
def chat_server() -> Iterator[tuple[str, list[str]]]:
    """An OpenAI-compatible server on 127.0.0.1 in a thread; yields its URL and the
    Authorization headers it saw."""
    seen: list[str] = []

    async def completions(request: web.Request) -> web.Response:
        seen.append(request.headers.get("Authorization", ""))
        body = await request.json()
        question = body["messages"][-1]["content"]
        outcome = (
            {"kind": "abstain", "fact": None, "text": None, "citations": []}
            if "gift" in question
            else {
                "kind": "answer",
                "fact": "return_window_30_days",
                "text": "30 days",
                "citations": [],
            }
        )
        return web.json_response(
            {
                "choices": [{"message": {"role": "assistant", "content": json.dumps(outcome)}}],
                "usage": {"prompt_tokens": 10, "completion_tokens": 4},
            }
        )

    with threaded_server({"/v1/chat/completions": completions}) as url:
        yield f"{url}/v1", seen


def _assay(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    return run_cli(*args, cwd=cwd, env={"ASSAY_TEST_KEY": KEY})


def test_the_key_never_reaches_the_store_spans_or_any_report_format(
    tmp_path: Path, chat_server: tuple[str, list[str]]
) -> None:
    url, seen = chat_server
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        f"dataset: {ROOT / 'examples' / 'policy' / 'policy.jsonl'}\n"
        f"target:\n  type: openai\n  base_url: {url}\n  model: test-model\n"
        "  api_key_env: ASSAY_TEST_KEY\n  seed: 3\n"
        "metadata: {purpose: secrets test}\n"
    )
    ran = _assay("run", suite, "--format", "json", cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    assert seen and all(header == f"Bearer {KEY}" for header in seen)  # the key was used
    run_id = json.loads(ran.stdout)["run_id"]

    outputs = [ran.stdout, ran.stderr]
    for fmt in ("text", "json", "markdown", "html", "junit"):
        shown = _assay("report", run_id, "--format", fmt, cwd=tmp_path)
        assert shown.returncode == 0, shown.stderr
        outputs += [shown.stdout, shown.stderr]
    spans = _assay("trace", run_id, "E1", "--format", "json", "--all-attributes", cwd=tmp_path)
    assert spans.returncode == 0 and "assay.request" in spans.stdout  # the spans were stored
    listed = _assay("runs", "--format", "json", cwd=tmp_path)
    outputs += [spans.stdout, spans.stderr, listed.stdout, listed.stderr]
    assert all(KEY not in text for text in outputs)

    store_files = list((tmp_path / ".assay").iterdir())
    assert store_files
    for path in store_files:
        assert KEY.encode() not in path.read_bytes(), path


ECHO_KEY = "sk-proj/Echo+Planted_SECRET-7e11"


def _echo_forms(value: str) -> list[str]:
    import base64
    from urllib.parse import quote

    return [
        value,
        json.dumps(value)[1:-1].replace("/", "\\/"),
        quote(value, safe=""),
        base64.b64encode(value.encode()).decode(),
    ]


@pytest.fixture
def echo_server() -> Iterator[str]:
    """A server that echoes the caller's key back in every way servers do: in error bodies
    (the token alone, JSON-escaped, URL-encoded, base64) and inside successful answers,
    for both the http target (POST /ask) and the openai target (/v1/chat/completions)."""

    def token(request: web.Request) -> str:
        header = request.headers.get("Authorization", "")
        return header.removeprefix("Bearer ")

    def echo_for(n: int, request: web.Request) -> str:
        forms = _echo_forms(token(request)) + _echo_forms(request.headers["Authorization"])
        return forms[n % len(forms)]

    async def ask(request: web.Request) -> web.Response:
        body = await request.json()
        n = int(str(body["id"]).lstrip("E") or 0)
        echoed = echo_for(n, request)
        if n % 3 == 0:
            text = '{"error": "invalid token ' + echoed + '"}'
            return web.Response(status=401, text=text, content_type="application/json")
        outcome = {"kind": "answer", "fact": "return_window_30_days", "text": f"key {echoed}",
                   "citations": [echoed]}  # fmt: skip
        return web.json_response(outcome)

    async def completions(request: web.Request) -> web.Response:
        body = await request.json()
        question = body["messages"][-1]["content"]
        n = len(question)
        echoed = echo_for(n, request)
        if n % 4 == 0:
            return web.Response(status=500, text=f"upstream rejected {echoed}")
        if n % 4 == 1:
            outcome = {"kind": "abstain", "reason": f"no access for {echoed}"}
        else:
            outcome = {"kind": "answer", "fact": "return_window_30_days", "text": echoed}
        message = {"role": "assistant", "content": json.dumps(outcome)}
        return web.json_response({"choices": [{"message": message}], "echo": echoed})

    with threaded_server({"/ask": ask, "/v1/chat/completions": completions}) as url:
        yield url


@pytest.mark.parametrize("target", ["http", "openai"])
def test_a_planted_key_echoed_in_every_encoding_is_found_nowhere_after_a_full_run(
    tmp_path: Path, echo_server: str, target: str
) -> None:
    if target == "http":
        spec = (
            f"target:\n  type: http\n  url: {echo_server}/ask\n"
            "  headers_env: {Authorization: ASSAY_ECHO_HEADER}\n"
        )
    else:
        spec = (
            f"target:\n  type: openai\n  base_url: {echo_server}/v1\n  model: m\n"
            "  api_key_env: ASSAY_ECHO_KEY\n"
        )
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        f"dataset: {ROOT / 'examples' / 'policy' / 'policy.jsonl'}\n{spec}retries: 1\ntrials: 2\n"
    )
    env = {"ASSAY_ECHO_HEADER": f"Bearer {ECHO_KEY}", "ASSAY_ECHO_KEY": ECHO_KEY}
    os.environ.update(env)
    try:
        ran = _assay("run", suite, "--format", "json", cwd=tmp_path)
        assert ran.returncode in (0, 1), ran.stderr
        run_id = json.loads(ran.stdout)["run_id"]
        outputs = [ran.stdout, ran.stderr]
        for fmt in ("text", "json", "markdown", "html", "junit"):
            shown = _assay("report", run_id, "--format", fmt, cwd=tmp_path)
            assert shown.returncode in (0, 1), shown.stderr
            outputs += [shown.stdout, shown.stderr]
        for command, case_id in (("trace", "E1"), ("diagnose", "E3")):
            got = _assay(command, run_id, case_id, "--format", "json", cwd=tmp_path)
            outputs += [got.stdout, got.stderr]
        listed = _assay("runs", "--format", "json", cwd=tmp_path)
        outputs += [listed.stdout, listed.stderr]
    finally:
        for name in env:
            os.environ.pop(name, None)
    joined = "\n".join(outputs)
    assert "<redacted>" in joined  # the echoes were there, and masked
    forms = [f for value in (ECHO_KEY, f"Bearer {ECHO_KEY}") for f in _echo_forms(value)]
    for form in forms:
        assert form not in joined, form
    for path in (tmp_path / ".assay").iterdir():
        data = path.read_bytes()
        for form in forms:
            assert form.encode() not in data, (path, form)


ENCODED_KEY = "sk-proj/Enc0ded+Echo_SECRET=91f3"
ECHOES = echoes(ENCODED_KEY)
ECHO_NAMES = sorted(ECHOES)


def _php_json(value: object) -> str:
    """JSON as PHP's json_encode writes it: non-ASCII and ``/`` escaped."""
    return json.dumps(value).replace("/", "\\/")


@pytest.fixture
def encoding_server() -> Iterator[tuple[str, list[str]]]:
    """A server on 127.0.0.1 that echoes the caller's key in one encoding after another
    (``ECHO_NAMES``), every other reply as an answer's text and as an error's message
    (its body written as PHP writes JSON); for the openai target also as the model that
    answered. Yields its URL and the encodings it echoed, in order."""
    echoed: list[str] = []

    def next_echo(request: web.Request) -> tuple[int, str]:
        header = request.headers.get("Authorization", "")
        n = len(echoed)
        name = ECHO_NAMES[n // 2 % len(ECHO_NAMES)]
        echoed.append(name)
        return n, echoes(header.removeprefix("Bearer "))[name]

    def error(echo: str) -> web.Response:
        body = _php_json({"error": {"message": f"Incorrect API key provided: {echo}"}})
        return web.Response(status=401, text=body, content_type="application/json")

    async def ask(request: web.Request) -> web.Response:
        n, echo = next_echo(request)
        if n % 2:
            return error(echo)
        outcome = {"kind": "answer", "fact": "return_window_30_days", "text": f"key {echo}"}
        return web.Response(text=_php_json(outcome), content_type="application/json")

    async def completions(request: web.Request) -> web.Response:
        n, echo = next_echo(request)
        if n % 2:
            return error(echo)
        outcome = {"kind": "answer", "fact": "return_window_30_days", "text": f"key {echo}"}
        message = {"role": "assistant", "content": json.dumps(outcome)}
        body = {"model": echo, "choices": [{"message": message, "finish_reason": "stop"}]}
        return web.Response(text=_php_json(body), content_type="application/json")

    with threaded_server({"/ask": ask, "/v1/chat/completions": completions}) as url:
        yield url, echoed


def _stored_texts(database: Path) -> list[str]:
    """Every value in every table of the store, as text."""
    found = []
    with contextlib.closing(sqlite3.connect(database)) as connection:
        tables = [row[0] for row in connection.execute("SELECT name FROM sqlite_master "
                                                       "WHERE type = 'table'")]  # fmt: skip
        for table in tables:
            for row in connection.execute(f'SELECT * FROM "{table}"'):
                found += [v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v)
                          for v in row if v is not None]  # fmt: skip
    return found


@pytest.mark.parametrize("target", ["http", "openai"])
def test_a_key_echoed_in_every_encoding_is_found_in_no_artifact_of_a_run(
    tmp_path: Path, encoding_server: tuple[str, list[str]], target: str
) -> None:
    url, echoed = encoding_server
    if target == "http":
        spec = (
            f"target:\n  type: http\n  url: {url}/ask\n"
            "  headers_env: {Authorization: ASSAY_ENCODED_HEADER}\n"
        )
    else:
        spec = (
            f"target:\n  type: openai\n  base_url: {url}/v1\n  model: m\n"
            "  api_key_env: ASSAY_ENCODED_KEY\n"
        )
    trials = -(-2 * len(ECHO_NAMES) // 6)  # every encoding, as an answer and as an error
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        f"dataset: {ROOT / 'examples' / 'policy' / 'policy.jsonl'}\n{spec}trials: {trials}\n"
    )
    env = {"ASSAY_ENCODED_HEADER": f"Bearer {ENCODED_KEY}", "ASSAY_ENCODED_KEY": ENCODED_KEY}
    ran = run_cli("run", suite, "--format", "json", cwd=tmp_path, env=env)
    assert ran.returncode in (0, 1), ran.stderr
    assert set(echoed) == set(ECHO_NAMES)  # every encoding was echoed
    run_id = json.loads(ran.stdout)["run_id"]

    artifacts = {"run output": ran.stdout + ran.stderr}
    for fmt in ("text", "json", "markdown", "html", "junit"):
        shown = run_cli("report", run_id, "--format", fmt, cwd=tmp_path)
        assert shown.returncode in (0, 1), shown.stderr
        artifacts[f"{fmt} report"] = shown.stdout + shown.stderr
    for case_id in ("E1", "E2", "E3", "E4", "E5", "E6"):
        spans = run_cli("trace", run_id, case_id, "--format", "json", "--all-attributes",
                        cwd=tmp_path)  # fmt: skip
        assert spans.returncode == 0, spans.stderr
        artifacts[f"trace of {case_id}"] = spans.stdout + spans.stderr
    database = tmp_path / ".assay" / "assay.db"
    artifacts["store"] = "\n".join(_stored_texts(database))
    artifacts["store file"] = database.read_bytes().decode("utf-8", "replace")
    reader = open_store(f"sqlite:///{database}", read_only=True)
    try:
        with TestClient(create_app(reader), base_url="http://127.0.0.1") as client:
            for case_id in ("E1", "E2", "E3", "E4", "E5", "E6"):
                page = client.get("/case", params={"id": case_id})
                assert page.status_code == 200
                artifacts[f"viewer's page of {case_id}"] = html.unescape(page.text)
            run_page = client.get(f"/runs/{run_id}")
            assert run_page.status_code == 200
            artifacts["viewer's run page"] = html.unescape(run_page.text)
    finally:
        reader.close()

    leaks = {name: survivors(text, ENCODED_KEY) for name, text in artifacts.items()}
    leaked = [f"{name}: {'; '.join(found)}" for name, found in leaks.items() if found]
    assert not leaked, "the key survives in\n" + "\n".join(leaked)
    assert MASK in artifacts["store"] and MASK in artifacts["json report"]  # echoes were there
    if target == "openai":  # the case page shows each transcript
        assert MASK in artifacts["viewer's page of E1"]
