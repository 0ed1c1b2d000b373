"""The names ``cli/_halves.py`` and ``load/_aside.py`` import from their old place; the
forking itself is ``assay._fast.forked``. Goes once those two modules import from there."""

from __future__ import annotations

from assay._fast.forked import (
    Child,
    Forked,
    Request,
    Texts,
    cores,
    pickled,
    read_items,
    send,
    write_items,
)

__all__ = [
    "Child",
    "Forked",
    "Request",
    "Texts",
    "cores",
    "pickled",
    "read_items",
    "send",
    "write_items",
]
