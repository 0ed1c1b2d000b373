"""Serving the viewer with uvicorn, on the loopback interface unless told otherwise."""

from __future__ import annotations

import sys
from typing import Any

LOOPBACK = "127.0.0.1"


def host_warning(host: str) -> str | None:
    """A warning when ``host`` exposes the viewer beyond this machine, else None."""
    if host in (LOOPBACK, "localhost", "::1"):
        return None
    return (
        f"warning: serving on {host}: anyone who can reach this address can read every "
        "stored run (questions, answers, configurations). The viewer has no login."
    )


def serve(app: Any, host: str = LOOPBACK, port: int = 8765) -> None:
    """Run ``app`` until interrupted."""
    import uvicorn

    warning = host_warning(host)
    if warning:
        sys.stderr.write(warning + "\n")
    shown = f"[{host}]" if ":" in host else host
    sys.stderr.write(f"assay view: http://{shown}:{port}/  (Ctrl-C to stop)\n")
    uvicorn.run(app, host=host, port=port, log_level="warning", access_log=False)
