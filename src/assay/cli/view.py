"""``assay view``: a local, read-only web viewer over the run store."""

from __future__ import annotations

import typer

from assay.cli._flags import CONFIDENCE, INTERVAL


def view(
    store: str | None = typer.Option(
        None, "--store", help="Run store URL (default: $ASSAY_STORE or .assay/assay.db)."
    ),
    host: str = typer.Option(
        "127.0.0.1", "--host", help="Interface to bind; anything but loopback prints a warning."
    ),
    port: int = typer.Option(8765, "--port", help="Port to listen on."),
    allow_host: list[str] = typer.Option(
        [],
        "--allow-host",
        help="A Host name the viewer answers besides the loopback names and the --host "
        "address (repeatable), e.g. the machine's DNS name when binding elsewhere. Requests "
        "naming any other host get 421 (this stops DNS-rebinding pages).",
    ),
    confidence: float = CONFIDENCE,
    interval: str = INTERVAL,
) -> None:
    """Browse stored runs in a web browser: headline rates, run pages, comparisons, a case
    across runs. Read-only: the viewer never changes the store."""
    from assay.cli._options import interval_setting
    from assay.errors import AssayConfigError
    from assay.store import open_store
    from assay.view import allowed_hosts, create_app, serve

    if not 0 < port < 65536:
        raise AssayConfigError(f"--port {port}: must be between 1 and 65535")
    setting = interval_setting(confidence, interval)
    hosts = allowed_hosts(host, allow_host)
    reader = open_store(store, read_only=True)
    try:
        app = create_app(reader, interval=setting, hosts=hosts)
        serve(app, host=host, port=port, hosts=hosts)
    finally:
        reader.close()
