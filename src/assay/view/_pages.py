"""The viewer's own pages (the run list, a case across runs, errors), rendered with Jinja."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from pathlib import PurePath
from typing import Any
from urllib.parse import quote

import jinja2

import assay.render as f
from assay.outcomes import Trajectory
from assay.render import ended_text, shown, step_views
from assay.render.html import rate_view, status_view
from assay.report import CaseRow, Report


@functools.cache
def _environment() -> jinja2.Environment:
    loader = jinja2.ChoiceLoader(
        [
            jinja2.PackageLoader("assay.view", "templates"),
            jinja2.PackageLoader("assay.render", "templates"),
        ]
    )
    env = jinja2.Environment(
        loader=loader,
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
    )
    env.filters["q"] = lambda value: quote(str(value), safe="")
    return env


def _when(info: Any) -> str:
    started = getattr(info, "started_at", None)
    return started.strftime("%Y-%m-%d %H:%M UTC") if started is not None else "—"


def _target(info: Any) -> str:
    target = getattr(info, "target", None) or {}
    kind = str(target.get("type", "—"))
    detail = target.get("model") or target.get("callable") or target.get("url")
    return f"{kind} · {detail}" if detail else kind


def _config(info: Any) -> str:
    """Which configuration ran: the suite file's name and the target's configuration hash."""
    suite = getattr(info, "suite_path", None)
    target_hash = getattr(info, "target_hash", "") or ""
    parts = [PurePath(suite).name if suite else "", f.short_version(target_hash)]
    return " · ".join(part for part in parts if part)


def _usage(report: Report) -> str:
    """'in 12,345 / out 1,210 tokens (38 of 40 reported) · $0.0026', or '—'."""
    u = report.usage
    if u is None:
        return "—"
    if not u.usage_reported:
        text = f"n/a (0 of {u.called} reported)"
    else:
        text = (
            f"in {f.tokens(u.input_tokens)} / out {f.tokens(u.output_tokens)} tokens "
            f"({u.usage_reported} of {u.called} reported)"
        )
    text += f" · ${u.cost_usd:.4g}" if u.cost_usd is not None else ""
    if u.cached:  # served from the response cache: paid once, by an earlier run
        avoided = f"; ${u.cost_avoided_usd:.4g} avoided" if u.cost_avoided_usd is not None else ""
        text += f" · {u.cached} cached{avoided}"
    return text


def runs_page(rows: Sequence[tuple[Any, Report | None, str | None]]) -> str:
    """Every stored run with its headline rates; a form to compare two; a case finder."""
    items = []
    for info, report, problem in rows:
        item: dict[str, Any] = {
            "id": info.id,
            "when": _when(info),
            "status": info.status,
            "dataset": f"{info.dataset_name} · {f.short_version(info.dataset_version)}",
            "target": _target(info),
            "config": _config(info),
            "trials": info.trials,
            "split": f.run_split(getattr(info, "metadata", None) or {}),
            "problem": problem,
        }
        if report is not None:
            item["rates"] = [
                rate_view(label, key, rate)
                for label, key, rate in f.headline_keyed(report)
                if key != "task_success_per_trial"  # one column per figure; the run page has it
            ]
            item["segments"] = status_view(report.statuses, report.total)
            item["total"] = report.total
            item["usage"] = _usage(report)
        items.append(item)
    return _environment().get_template("runs.html.j2").render(title="assay runs", runs=items)


def _transcript_view(transcript: dict[str, Any] | None) -> dict[str, Any] | None:
    """A stored transcript as the case page shows it: each message sent (role, content)
    and the raw reply, with the finish reason and response model when the server said.
    Stored transcripts were masked by the runner: no secret reaches the page."""
    if not transcript:
        return None
    messages = [
        {"role": str(m.get("role", "")), "content": str(m.get("content", ""))}
        for m in transcript.get("messages") or []
        if isinstance(m, dict)
    ]
    said = [
        f"finish reason {transcript['finish_reason']}" if transcript.get("finish_reason") else "",
        str(transcript.get("response_model") or ""),
    ]
    return {
        "messages": messages,
        "reply": str(transcript.get("reply") or ""),
        "said": ", ".join(p for p in said if p),
    }


def _trajectory_view(row: CaseRow) -> dict[str, Any] | None:
    """An agent's trajectory as the case page shows it: its counts, the state before,
    each step (arguments, result, error) and the state after; None without one."""
    trajectory: Trajectory | None = row.trajectory
    if trajectory is None:
        return None
    state = (trajectory.state_before, trajectory.state_after)
    return {
        "counts": f.agent_counts_text(row.agent) if row.agent is not None else "",
        "ended": ended_text(trajectory),
        "before": shown(state[0]) if state[0] is not None else None,
        "after": shown(state[1]) if state[1] is not None else None,
        "steps": step_views(trajectory),
    }


def case_page(case_id: str, found: Sequence[tuple[Any, CaseRow]]) -> str:
    """One case in every stored run that has it, newest run first."""
    rows = [
        {
            "run": info.id,
            "when": _when(info),
            "trial": row.trial,
            "status": row.status,
            "outcome": (row.outcome or "none recorded") + (f" {row.fact}" if row.fact else ""),
            "reason": row.reason,
            "definition": (row.case_hash or "")[7:19] or "—",
            "grader": row.grader,
            "transcript": _transcript_view(row.transcript),
            "traceback": row.traceback,
            "cached_from": row.cached_from,
            "trajectory": _trajectory_view(row),
        }
        for info, row in found
    ]
    first = found[0][1] if found else None
    return (
        _environment()
        .get_template("case.html.j2")
        .render(title=f"assay case {case_id}", case_id=case_id, case=first, rows=rows)
    )


def suites_page(rows: Sequence[tuple[str, Sequence[Any]]]) -> str:
    """Every suite with stored runs: how many, the latest, and its tags; each links to its
    trend page."""
    items = [
        {
            "name": name,
            "runs": len(runs),
            "latest": runs[-1].id if runs else "—",
            "when": _when(runs[-1]) if runs else "—",
            "tags": sorted({f"{tag}: {info.id}" for info in runs for tag in info.tags}),
        }
        for name, runs in rows
    ]
    return _environment().get_template("suites.html.j2").render(title="assay suites", suites=items)


def error_page(
    message: str, heading: str = "Not found", actions: Sequence[tuple[str, str]] = ()
) -> str:
    """A page saying what went wrong, with a way back (and ``actions``: label, URL)."""
    return (
        _environment()
        .get_template("error.html.j2")
        .render(title=f"assay · {heading}", heading=heading, message=message, actions=actions)
    )


def review_page(
    *,
    run_id: str,
    answer: Any,
    position: int,
    count: int,
    labelled: int,
    label: Any,
    reveal: bool,
    reviewer: str,
    seed: int,
    token: str,
    pass_minimum: int,
    problem: str = "",
    strata: Sequence[dict[str, Any]] = (),
) -> str:
    """The review page: one judged answer to label (``answer``, at ``position`` of
    ``count``), or the progress per judge verdict (``strata``) when ``answer`` is None.
    The judge's verdict, score and rationale are in the page only when ``reveal``."""
    return (
        _environment()
        .get_template("review.html.j2")
        .render(
            title=f"assay review {run_id}",
            run_id=run_id,
            answer=answer,
            position=position,
            count=count,
            labelled=labelled,
            label=label,
            reveal=reveal,
            reviewer=reviewer,
            seed=seed,
            token=token,
            pass_minimum=pass_minimum,
            problem=problem,
            strata=strata,
        )
    )
