"""``assay cache``: what the response cache holds, and clearing it (all or old entries)."""

from __future__ import annotations

from pathlib import Path

import typer

from assay.cli._flags import format_option
from assay.load import path_exists

app = typer.Typer(
    name="cache",
    help="The response cache: `stats` shows what it holds, `clear` empties it.",
    no_args_is_help=True,
    rich_markup_mode=None,
)

_STORE = typer.Option(
    None, "--store", help="Store URL whose cache to use (default $ASSAY_STORE or .assay/assay.db)."
)
_PATH = typer.Option(
    None, "--cache-path", help="The cache file (default: cache.db beside the store's file)."
)


def _path(store: str | None, cache_path: Path | None) -> Path:
    from assay.runner import default_cache_path
    from assay.store import store_url

    return cache_path if cache_path is not None else default_cache_path(store_url(store))


@app.command("stats")
def stats(
    store: str | None = _STORE,
    cache_path: Path | None = _PATH,
    format: str = format_option("cache-stats", from_output=False),
) -> None:
    """Entries, size, oldest and newest entry, and entries per key version."""
    from assay.cli._options import check_format
    from assay.cli._output import emit
    from assay.formats import formats
    from assay.render import render
    from assay.report import CacheContents
    from assay.runner import CACHE_KEY_VERSION, ResponseCache

    check_format(format, formats("cache-stats"))
    path = _path(store, cache_path)
    if not path_exists(path, "--cache-path"):
        held = CacheContents(str(path), 0, 0, None, None, CACHE_KEY_VERSION)
    else:
        cache = ResponseCache(path)
        try:
            s = cache.stats()
        finally:
            cache.close()
        by_version = {str(k): v for k, v in s.by_key_version.items()}
        held = CacheContents(
            s.path, s.entries, s.bytes, s.oldest, s.newest, CACHE_KEY_VERSION, by_version
        )
    emit(render(held, format), None)


@app.command("clear")
def clear(
    older_than: str | None = typer.Option(
        None, "--older-than", help="Remove only entries older than this (7d, 12h, 30m, 2w)."
    ),
    store: str | None = _STORE,
    cache_path: Path | None = _PATH,
) -> None:
    """Remove every cached reply, or only those older than --older-than."""
    from assay.runner import ResponseCache, parse_age

    age = parse_age(older_than) if older_than is not None else None
    path = _path(store, cache_path)
    if not path_exists(path, "--cache-path"):
        typer.echo(f"assay cache: no cache at {path}; nothing to clear")
        return
    cache = ResponseCache(path)
    try:
        gone = cache.clear(age)
        left = cache.stats().entries
    finally:
        cache.close()
    scope = f" older than {older_than}" if older_than else ""
    typer.echo(f"assay cache: removed {gone} entries{scope} from {path}; {left} left")
