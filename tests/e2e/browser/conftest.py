"""A real Chromium for page tests: Debian's /usr/bin/chromium driven by Playwright.

``scripts/setup-browser.sh`` (run by ``make test``) installs it. Playwright never downloads
a browser here. Without Chromium the browser tests are skipped locally and fail in CI.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path(os.environ.get("ASSAY_CHROMIUM", "/usr/bin/chromium"))
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

if not CHROMIUM.exists():
    if os.environ.get("CI"):
        raise RuntimeError(f"{CHROMIUM} is missing: run scripts/setup-browser.sh (make test does)")
    pytest.skip(f"{CHROMIUM} is missing: run scripts/setup-browser.sh", allow_module_level=True)

from playwright.sync_api import Browser, ConsoleMessage, Dialog, Page, sync_playwright  # noqa: E402


@dataclass
class Watch:
    """What a page did that a test may want to forbid: dialogs, script errors, requests."""

    dialogs: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    # Module scope, not session: Playwright's sync API keeps an event loop running in this
    # thread while it is open, and asyncio.run() in later tests would refuse to start.
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=FLAGS
        )
        yield launched
        launched.close()


@pytest.fixture
def watch() -> Watch:
    return Watch()


@pytest.fixture
def page(browser: Browser, watch: Watch) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    opened = context.new_page()

    def on_dialog(dialog: Dialog) -> None:
        watch.dialogs.append(dialog.message)
        dialog.dismiss()

    def on_console(message: ConsoleMessage) -> None:
        if message.type == "error":
            watch.errors.append(message.text)

    opened.on("dialog", on_dialog)
    opened.on("console", on_console)
    opened.on("pageerror", lambda err: watch.errors.append(str(err)))
    opened.on("request", lambda request: watch.requests.append(request.url))
    yield opened
    context.close()


@pytest.fixture
def artifacts() -> Path:
    """tests/artifacts/ (git-ignored): screenshots kept for people to look at."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


@contextlib.contextmanager
def serve_viewer(store_url: str, review: Callable[[Any], Any] | None = None) -> Iterator[str]:
    """The read-only viewer on ``store_url``, on a free loopback port in this process; its
    base URL while the block runs, stopped afterwards. ``review``, given the store reader,
    opens the review the viewer serves as well."""
    import threading
    import time

    import uvicorn

    from assay.store import open_store
    from assay.view import create_app

    reader = open_store(store_url, read_only=True)
    config = uvicorn.Config(
        create_app(reader, review=review(reader) if review else None),
        host="127.0.0.1",
        port=0,
        log_level="warning",
        lifespan="off",
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    for _ in range(200):
        if server.started:
            break
        time.sleep(0.02)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        reader.close()
