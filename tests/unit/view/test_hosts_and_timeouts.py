"""The viewer answers only the Host names it serves (no DNS rebinding) and closes
connections that do not send a request head in time (no half-open connections held)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.responses import PlainTextResponse
from starlette.routing import Route
from starlette.testclient import TestClient

from assay.view import LOOPBACK_NAMES, allowed_hosts
from assay.view._hosts import HostCheck, host_name
from assay.view._serve import timed_protocol


def _app(hosts: frozenset[str] = LOOPBACK_NAMES) -> Starlette:
    async def home(request: object) -> PlainTextResponse:
        return PlainTextResponse("stored runs")

    return Starlette(routes=[Route("/", home)], middleware=[Middleware(HostCheck, allowed=hosts)])


@pytest.mark.parametrize(
    ("header", "name"),
    [
        ("127.0.0.1:8765", "127.0.0.1"),
        ("LOCALHOST", "localhost"),
        ("localhost.:80", "localhost"),
        ("[::1]:8765", "::1"),
        ("[::1]", "::1"),
        ("evil.example:8765", "evil.example"),
        ("", ""),
    ],
)
def test_host_name_drops_port_brackets_and_case(header: str, name: str) -> None:
    assert host_name(header) == name


@pytest.mark.parametrize(
    "base", ["http://127.0.0.1:8765", "http://localhost:8765", "http://[::1]:8765"]
)
def test_loopback_names_are_answered(base: str) -> None:
    with TestClient(_app(), base_url=base) as client:
        assert client.get("/").text == "stored runs"


@pytest.mark.parametrize(
    "base", ["http://rebind.evil.example:8765", "http://192.168.1.5:8765", "http://testserver"]
)
def test_any_other_host_gets_421_and_no_data(base: str) -> None:
    with TestClient(_app(), base_url=base) as client:
        response = client.get("/")
    assert response.status_code == 421
    assert "stored runs" not in response.text
    assert "--allow-host" in response.text


def test_a_request_without_host_is_refused() -> None:
    with TestClient(_app()) as client:
        response = client.get("/", headers={"host": ""})
    assert response.status_code == 421


def test_binding_elsewhere_answers_the_bound_address_and_named_hosts() -> None:
    assert allowed_hosts("127.0.0.1") == LOOPBACK_NAMES
    assert allowed_hosts("0.0.0.0") == LOOPBACK_NAMES  # any-address names no host
    assert allowed_hosts("192.168.1.5") == LOOPBACK_NAMES | {"192.168.1.5"}
    hosts = allowed_hosts("0.0.0.0", ["evals.example.com", "Box:8765"])
    assert hosts == LOOPBACK_NAMES | {"evals.example.com", "box"}
    with TestClient(_app(hosts), base_url="http://evals.example.com:8765") as client:
        assert client.get("/").status_code == 200


@pytest.fixture
def server() -> Iterator[int]:
    import uvicorn

    config = uvicorn.Config(
        _app(),
        host="127.0.0.1",
        port=0,
        log_level="error",
        lifespan="off",
        http=timed_protocol(header_timeout_s=0.5),
        timeout_keep_alive=30,
    )
    srv = uvicorn.Server(config)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not srv.started and time.monotonic() < deadline:
        time.sleep(0.02)
    port = srv.servers[0].sockets[0].getsockname()[1]
    yield port
    srv.should_exit = True
    thread.join(timeout=10)


def _closed_within(sock: socket.socket, seconds: float) -> bool:
    sock.settimeout(seconds)
    try:
        while sock.recv(4096):
            pass
    except TimeoutError:
        return False
    except ConnectionResetError:
        return True
    return True


def test_a_silent_connection_is_closed(server: int) -> None:
    with socket.create_connection(("127.0.0.1", server)) as sock:
        assert _closed_within(sock, 5)


def test_a_trickled_request_head_is_closed(server: int) -> None:
    with socket.create_connection(("127.0.0.1", server)) as sock:
        sock.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # never ends the head
        assert _closed_within(sock, 5)


def test_a_kept_alive_connection_that_starts_a_head_is_closed(server: int) -> None:
    with socket.create_connection(("127.0.0.1", server)) as sock:
        sock.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        sock.settimeout(5)
        data = b""
        while b"stored runs" not in data:
            data += sock.recv(4096)
        sock.sendall(b"GET / HT")  # keep-alive is 30 s here; the head timeout is 0.5 s
        assert _closed_within(sock, 5)


def test_a_prompt_request_is_answered(server: int) -> None:
    with socket.create_connection(("127.0.0.1", server)) as sock:
        sock.sendall(b"GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        sock.settimeout(5)
        data = b""
        while chunk := sock.recv(4096):
            data += chunk
    assert b"200 OK" in data and b"stored runs" in data
