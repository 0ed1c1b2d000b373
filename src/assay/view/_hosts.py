"""Which ``Host`` names the viewer answers, and the middleware that refuses the others.

A web page on another site can make a browser send requests to the viewer through a DNS
name it controls that resolves to 127.0.0.1 (DNS rebinding); such requests carry that
name in their ``Host`` header. Answering only loopback names (and names the user gave)
keeps every stored run out of reach of such a page.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any

LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost", "::1"})
_ANY_ADDRESS = frozenset({"0.0.0.0", "::", ""})

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]


def host_name(header: str) -> str:
    """The name in a ``Host`` header value, without port, brackets or trailing dot."""
    value = header.strip().lower()
    if value.startswith("["):  # [::1]:8765
        return value[1 : value.find("]")] if "]" in value else value
    return value.rsplit(":", 1)[0].rstrip(".") if value.count(":") == 1 else value.rstrip(".")


def allowed_hosts(bind: str, named: Iterable[str] = ()) -> frozenset[str]:
    """The ``Host`` names to answer: loopback names, the bound address when it is one
    address (not 0.0.0.0 or ::), and every name the user gave."""
    names = set(LOOPBACK_NAMES) | {host_name(n) for n in named if n.strip()}
    bound = host_name(bind)
    if bound not in _ANY_ADDRESS:
        names.add(bound)
    return frozenset(names)


class HostCheck:
    """ASGI middleware: a request whose ``Host`` is not allowed gets 421 and nothing else."""

    def __init__(
        self, app: Callable[[Scope, Receive, Send], Awaitable[None]], allowed: Iterable[str]
    ) -> None:
        self.app = app
        self.allowed = frozenset(allowed)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            headers = dict(scope.get("headers") or [])
            name = host_name(headers.get(b"host", b"").decode("latin-1"))
            if name not in self.allowed:
                body = (
                    b"assay view: this Host name is not served; start the viewer with "
                    b"--allow-host NAME to serve it\n"
                )
                await send(
                    {
                        "type": "http.response.start",
                        "status": 421,
                        "headers": [
                            (b"content-type", b"text/plain; charset=utf-8"),
                            (b"content-length", str(len(body)).encode()),
                        ],
                    }
                )
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)
