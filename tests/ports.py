"""Loopback ports for tests that run beside other test processes (pytest-xdist workers, other
checkouts' runs): a port is held for the whole block that uses it, never looked up, released
and then taken, which leaves a moment when another process's ``bind(0)`` can be handed it.

Both hold a socket bound to the port with ``SO_REUSEADDR`` and not listening. Linux hands a
port out to ``bind(0)`` only when nothing is bound to it, so no other process gets it; a
connection to it is refused; and a server that also sets ``SO_REUSEADDR`` (uvicorn, aiohttp,
asyncio, ``http.server``, PostgreSQL all do) can still listen on it, as the only listener.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def reserved_port() -> Iterator[int]:
    """A loopback port for a server the block starts on it; no other process is given it."""
    with socket.socket() as holder:
        holder.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        holder.bind(("127.0.0.1", 0))
        yield int(holder.getsockname()[1])


@contextmanager
def closed_port() -> Iterator[int]:
    """A loopback port that refuses every connection while the block runs."""
    with reserved_port() as port:
        yield port
