"""One shared aiohttp session per target per run, opened on the running event loop."""

from __future__ import annotations

import json
import socket
from typing import TYPE_CHECKING, Any

from assay.targets._base import Reply
from assay.targets._replies import (
    connection_error_reply,
    error_reply,
    http_error_class,
    retry_after_seconds,
)

if TYPE_CHECKING:
    import aiohttp

to_json = json.JSONEncoder(ensure_ascii=False).encode  # json.dumps(…, ensure_ascii=False)
"""The JSON text of a request body (``json.dumps(body, ensure_ascii=False)``)."""


def _why(err: Exception) -> str:
    """Why a connection failed, in a few words (aiohttp's own text repeats itself)."""
    import aiohttp

    cause = getattr(err, "os_error", None)
    if isinstance(err, aiohttp.ClientConnectorError) and isinstance(cause, OSError):
        host = f"{err.host}:{err.port}"
        reason = cause.strerror or str(cause)
        if isinstance(cause, socket.gaierror):
            return f"cannot resolve host {err.host} ({reason})"
        if isinstance(cause, ConnectionRefusedError):
            return "connection refused"
        return f"cannot connect to {host} ({type(cause).__name__}: {reason})"
    if isinstance(err, aiohttp.ServerDisconnectedError):
        return "the server closed the connection without a reply"
    return f"{type(err).__name__}: {err}" if str(err) else type(err).__name__


class HttpClient:
    """A lazily opened aiohttp session: connection pooling, no client-side timeout (the
    runner bounds each call), and JSON POSTs reduced to the few steps that matter."""

    def __init__(self, headers: dict[str, str] | None = None) -> None:
        self.headers = {"Content-Type": "application/json", **(headers or {})}
        self._session: aiohttp.ClientSession | None = None

    async def start(self) -> None:
        import aiohttp

        if self._session is None:
            connector = aiohttp.TCPConnector(limit=0, ttl_dns_cache=300)
            self._session = aiohttp.ClientSession(
                connector=connector,
                timeout=aiohttp.ClientTimeout(total=None),
                json_serialize=json.dumps,
            )

    async def aclose(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None

    async def post_json(
        self,
        url: str,
        body: Any,
        extra_headers: dict[str, str] | None = None,
        encoded: bytes | None = None,
    ) -> tuple[Any, str] | Reply:
        """The decoded JSON body and its text, or an ``Error`` reply for an HTTP failure
        (``http_429``/``http_5xx``/``http_4xx``, with Retry-After), a connection that failed
        (``connection_error``: refused, reset, unknown host) or a non-JSON body.
        ``encoded``, when given, is ``body``'s JSON text as ``to_json`` writes it, in UTF-8."""
        import aiohttp

        if self._session is None:
            await self.start()
        assert self._session is not None
        headers = self.headers if not extra_headers else {**self.headers, **extra_headers}
        data = to_json(body).encode("utf-8") if encoded is None else encoded
        try:
            async with self._session.post(url, data=data, headers=headers) as response:
                payload = await response.read()
                status = response.status
                retry_after = response.headers.get("Retry-After")
        except aiohttp.ClientConnectionError as err:
            if isinstance(err, TimeoutError):
                raise
            return connection_error_reply(_why(err), url)
        text = payload.decode("utf-8", errors="replace")
        if status >= 400:
            return error_reply(
                http_error_class(status),
                f"HTTP {status} from {url}",
                text,
                retry_after_seconds(retry_after),
            )
        try:
            return json.loads(text), text
        except json.JSONDecodeError as err:
            return error_reply("parse_error", f"the reply is not JSON: {err.msg}", text)
