"""The line a report of an imported run shows: the source tool, its log and its figure."""

from __future__ import annotations


def imported_line(metadata: dict[str, object]) -> str | None:
    """``imported from inspect_ai 0.3.95 (file, sha256:…): inspect reported …`` for a
    report whose run was imported, else None."""
    run = metadata.get("run")
    extra = run.get("metadata") if isinstance(run, dict) else None
    found = extra.get("imported") if isinstance(extra, dict) else None
    if not isinstance(found, dict):
        return None
    version = f" {found['tool_version']}" if found.get("tool_version") else ""
    digest = str(found.get("sha256", "")).removeprefix("sha256:")[:12]
    return (
        f"imported from {found.get('tool')}{version} log {found.get('file')} "
        f"(sha256 {digest}…): {found.get('reported')}"
    )
