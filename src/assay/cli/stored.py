"""``assay runs`` and ``assay report``: stored runs, listed and re-rendered without re-running."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer

from assay.cli._flags import CONFIDENCE, INTERVAL
from assay.cli._output import emit, wants_color

STORE_HELP = "Store URL (default $ASSAY_STORE or sqlite:///.assay/assay.db)."


def _target_label(target: dict[str, Any]) -> str:
    kind = str(target.get("type", "?"))
    detail = target.get("model") or target.get("callable") or target.get("url")
    return f"{kind}:{detail}" if detail else kind


def _row(info: Any) -> dict[str, Any]:
    summary = info.summary or {}
    value = summary.get("task_success")
    return {
        "id": info.id,
        "started_at": info.started_at.isoformat(timespec="seconds"),
        "suite": Path(info.suite_path).name if info.suite_path else None,
        "dataset": info.dataset_name,
        "dataset_version": info.dataset_version,
        "target": _target_label(info.target),
        "trials": info.trials,
        "status": info.status,
        "task_success": value,
        "task_success_fraction": summary.get("task_success_fraction"),
        "task_success_ci95": summary.get("task_success_ci95"),
        "task_success_confidence": summary.get("task_success_confidence"),
        "case_trials": summary.get("case_trials"),
        "usage_reported": summary.get("usage_reported"),
        "input_tokens": summary.get("input_tokens"),
        "output_tokens": summary.get("output_tokens"),
        "cost_usd": summary.get("cost_usd"),
        "latency_p95_s": summary.get("latency_p95_s"),
    }


def _usage(row: dict[str, Any]) -> str:
    """'in 12,345 / out 1,210 (38 of 40 reported) · $0.0026'; '–' for runs stored before
    usage was summarized, 'n/a' when no case-trial reported usage."""
    n = row["case_trials"]
    if n is None:
        return "–"
    if not row["usage_reported"]:
        text = f"n/a (0 of {n} reported)"
    else:
        tokens = [row["input_tokens"], row["output_tokens"]]
        shown = ["n/a" if t is None else f"{t:,}" for t in tokens]
        text = f"in {shown[0]} / out {shown[1]} ({row['usage_reported']} of {n} reported)"
    cost = row["cost_usd"]
    return text + (f" · ${cost:.4g}" if cost is not None else "")


def _success(row: dict[str, Any]) -> str:
    """'22/44 (50.0%) 95% CI [28.2%, 71.8%]'; runs stored before intervals were kept say
    where to find theirs."""
    value = row["task_success"]
    if value is None:
        return "–" if row["status"] == "running" else "n/a"
    text = f"{row['task_success_fraction']} ({value:.1%})"
    ci, level = row["task_success_ci95"], row["task_success_confidence"]
    if ci is None or level is None:
        return f"{text} (interval: assay report)"
    return f"{text} {level:.0%} CI [{ci[0]:.1%}, {ci[1]:.1%}]"


def runs(
    store: str | None = typer.Option(None, "--store", help=STORE_HELP),
    format: str = typer.Option("text", "--format", "-f", help="text or json."),
    limit: int = typer.Option(50, help="Show at most this many runs (newest first)."),
) -> None:
    """List stored runs, newest first: id, when, suite, dataset version, target, status,
    task success, tokens and cost."""
    from rich.console import Console
    from rich.table import Table

    from assay.cli._options import check_format
    from assay.store import open_store

    check_format(format, ("text", "json"))
    opened = open_store(store)
    try:
        rows = [_row(info) for info in opened.list_runs()[:limit]]
    finally:
        opened.close()
    if format == "json":
        emit(json.dumps(rows, indent=2) + "\n", None)
        return
    if not rows:
        typer.echo("no stored runs (run a suite with `assay run SUITE`)")
        return
    table = Table(box=None, header_style="bold", pad_edge=False)
    columns = ("Run", "Started (UTC)", "Suite", "Dataset", "Target", "Status", "Task success")
    for column in (*columns, "Tokens · cost"):
        table.add_column(column)
    for r in rows:
        table.add_row(
            r["id"],
            r["started_at"][:19].replace("T", " "),
            r["suite"] or "–",
            f"{r['dataset']} {r['dataset_version'].removeprefix('sha256:')[:12]}",
            r["target"],
            r["status"],
            _success(r),
            _usage(r),
        )
    Console(width=200).print(table)


def report(
    run_id: str = typer.Argument(..., help="Run id (or a unique prefix)."),
    store: str | None = typer.Option(None, "--store", help=STORE_HELP),
    format: str = typer.Option(
        "text", "--format", "-f", help="text, json, markdown, html (with traces) or junit."
    ),
    output: Path | None = typer.Option(None, "--output", "-o", help="Write to this file."),
    confidence: float = CONFIDENCE,
    interval: str = INTERVAL,
    prices: Path | None = typer.Option(
        None, "--prices", help="Price the run with this table (YAML) instead of its own."
    ),
) -> None:
    """Re-render the report of a stored run (nothing is re-run)."""
    from assay.cli._options import check_confidence, check_format, check_method
    from assay.load import load_prices
    from assay.report.render import render
    from assay.runner import report_for_run
    from assay.store import open_store

    check_format(format)
    method = check_method(interval)
    check_confidence(confidence)
    table = load_prices(prices) if prices is not None else None
    opened = open_store(store)
    try:
        built = report_for_run(opened, run_id, confidence=confidence, method=method, prices=table)
        spans = opened.spans(built.run_id or run_id) if format == "html" else []
    finally:
        opened.close()
    if format == "html":
        from assay.report.render.html import render_html

        emit(render_html(built, spans=spans), output)
        return
    emit(render(built, format, color=wants_color(output)), output)
