"""Serving the viewer with uvicorn, on the loopback interface unless told otherwise."""

from __future__ import annotations

import errno
import socket
import sys
from collections.abc import Collection
from typing import Any

from assay.errors import AssayConfigError

LOOPBACK = "127.0.0.1"
HEADER_TIMEOUT_S = 10.0
"""Longest wait for a request's headers; a connection that sends them slower is closed."""


def host_warning(host: str) -> str | None:
    """A warning when ``host`` exposes the viewer beyond this machine, else None."""
    if host in (LOOPBACK, "localhost", "::1"):
        return None
    return (
        f"warning: serving on {host}: anyone who can reach this address can read every "
        "stored run (questions, answers, configurations). The viewer has no login."
    )


def timed_protocol(header_timeout_s: float = HEADER_TIMEOUT_S) -> type[Any]:
    """uvicorn's HTTP/1.1 protocol, closing a connection that has not sent a complete
    request head within ``header_timeout_s`` (on connecting, or after a response): a
    half-open or trickling client cannot hold a connection open."""
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    waiting = (h11.IDLE, h11.SEND_BODY)

    class TimedH11Protocol(H11Protocol):
        _head_timer: Any = None

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            self._arm()

        def _arm(self) -> None:
            self._disarm()
            self._head_timer = self.loop.call_later(header_timeout_s, self._too_slow)

        def _disarm(self) -> None:
            if self._head_timer is not None:
                self._head_timer.cancel()
                self._head_timer = None

        def _too_slow(self) -> None:
            self._head_timer = None
            if self.conn.their_state in waiting and not self.transport.is_closing():
                self.transport.close()

        def data_received(self, data: bytes) -> None:
            if self._head_timer is None and self.conn.their_state is h11.IDLE:
                self._arm()  # the head of a new request on a kept-alive connection
            super().data_received(data)
            if self.conn.their_state not in waiting:
                self._disarm()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

    return TimedH11Protocol


def serve(app: Any, host: str = LOOPBACK, port: int = 8765, hosts: Collection[str] = ()) -> None:
    """Run ``app`` until interrupted; ``hosts`` are the Host names it answers (shown)."""
    import uvicorn

    sock = _listening(host, port)
    warning = host_warning(host)
    if warning:
        sys.stderr.write(warning + "\n")
    shown = f"[{host}]" if ":" in host else host
    sys.stderr.write(f"assay view: http://{shown}:{port}/  (Ctrl-C to stop)\n")
    if hosts:
        sys.stderr.write(f"assay view: answering Host names {', '.join(sorted(hosts))}\n")
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level="warning",
        access_log=False,
        http=timed_protocol(),
        timeout_keep_alive=5,
    )
    try:
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        sock.close()


def _listening(host: str, port: int) -> socket.socket:
    """A socket bound to ``host:port`` before anything is announced: a port in use (or a
    host this machine does not have) is one message, not a server error after 'serving'."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(2048)
    except OSError as err:
        sock.close()
        raise AssayConfigError(
            f"assay view cannot listen on {host}:{port}: {err.strerror or err}"
            + ("; choose another port with --port" if err.errno == errno.EADDRINUSE else "")
        ) from None
    sock.set_inheritable(True)
    return sock
