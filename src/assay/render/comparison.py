"""A comparison as text (terminal), Markdown or JSON; strings only."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from assay.compare import ChangedCase, Comparison, Delta, SideOutcome, divergence_text, p_text
from assay.formats import formats
from assay.metrics import Rate, interval_text, percent
from assay.render._lists import LIST_ROWS, capped
from assay.render._model_json import model_json
from assay.render.document import (
    Block,
    BulletList,
    Document,
    Gap,
    Heading,
    Paragraph,
    Span,
    table,
)
from assay.render.markdown_writer import write_markdown
from assay.render.text_writer import write_text

FORMATS: tuple[str, ...] = formats("comparison")


def rate_text(r: Rate) -> str:
    """'5/6 = 83.3% [35.9%, 99.6%]', or 'n/a (no substantive answers)'."""
    if r.value is None:
        return f"n/a ({r.na_reason})"
    ci = f" {interval_text(r.ci)}" if r.ci else ""
    return f"{r.numerator}/{r.denominator} = {percent(r.value)}{ci}"


def _pp(v: float) -> str:
    return f"{v * 100:+.1f} pp"


def delta_text(d: Delta) -> str:
    """'+16.7 pp [-20.1 pp, +50.3 pp]', or 'n/a (no paired cases)'."""
    if d.value is None:
        return "n/a (no paired cases)"
    ci = f" [{_pp(d.ci[0])}, {_pp(d.ci[1])}]" if d.ci else " (interval n/a)"
    return f"{_pp(d.value)}{ci}"


def _value(v: Any) -> str:
    if v is None:
        return "(absent)"
    return str(v) if isinstance(v, str) else json.dumps(v, sort_keys=True)


def _label(case_id: str, trial: int, trials: int) -> str:
    return case_id if trials == 1 else f"{case_id} #{trial}"


def _outcome(side: SideOutcome) -> str:
    what = side.status
    if side.fact:
        what += f" ({side.fact})"
    elif side.outcome and side.outcome != "answer":
        what += f" ({side.outcome})"
    return str(what)


def _parted(x: ChangedCase) -> str:
    """Where the two runs' trajectories part, or '—' (the same calls, or no trajectory)."""
    return divergence_text(x.divergence) if x.divergence is not None else "—"


def _paired_trials(c: Comparison) -> str:
    """'mean of 3 trials' when every trial of both runs was paired, else which trials were
    ('mean over the paired trial 1 of each case')."""
    k = max(c.baseline.trials, c.candidate.trials)
    trials = c.paired_trials
    if trials == list(range(1, k + 1)) and c.baseline.trials == c.candidate.trials:
        return f"mean of {k} trials"
    if not trials:
        return "no trial paired"
    if trials == list(range(trials[0], trials[-1] + 1)) and len(trials) > 1:
        which = f"trials {trials[0]}–{trials[-1]}"
    else:
        which = ("trial " if len(trials) == 1 else "trials ") + ", ".join(map(str, trials))
    return f"mean over the paired {which} of each case"


def _lines(c: Comparison) -> list[tuple[str, list[str], Sequence[Sequence[str]]]]:
    """Sections shared by text and Markdown: (title, header, rows)."""
    k = max(c.baseline.trials, c.candidate.trials)
    level = f"{c.task_success_delta.confidence * 100:g}%"
    sections: list[tuple[str, list[str], Sequence[Sequence[str]]]] = []
    rates = [
        ["Baseline", c.baseline.ref, rate_text(c.baseline.task_success)],
        ["Candidate", c.candidate.ref, rate_text(c.candidate.task_success)],
        ["Delta", "candidate − baseline", delta_text(c.task_success_delta)],
    ]
    sections.append(
        (
            f"Task success over the paired set ({level} intervals"
            + (f"; per trial, {_paired_trials(c)}, clustered by case)" if k > 1 else ")"),
            ["", "Run", "Value"],
            rates,
        )
    )

    # Only the rows a capped list shows are made: a million-case comparison lists
    # hundreds of thousands of changes.
    def changed(title: str, items: Sequence[ChangedCase]) -> None:
        shown = items[:LIST_ROWS]
        parted = any(x.divergence is not None for x in shown)
        rows = [
            [
                _label(x.id, x.trial, k),
                x.slice,
                _outcome(x.baseline),
                _outcome(x.candidate),
                x.candidate.reason,
                *([_parted(x)] if parted else []),
            ]
            for x in shown
        ]
        head = ["Case", "Slice", "Baseline", "Candidate", "Reason (candidate)"]
        if parted:
            head.append("Trajectories part at")
        sections.append((f"{title} ({len(items)})", head, capped(rows, len(items))))

    changed("Newly fixed", c.fixed)
    changed("Newly broken", c.broken)
    moved = [[_label(m.id, m.trial, k), m.slice, m.from_, m.to] for m in c.moved[:LIST_ROWS]]
    sections.append(
        (
            f"Moved ({len(c.moved)})",
            ["Case", "Slice", "From", "To"],
            capped(moved, len(c.moved)),
        )
    )
    slices = [
        [
            s.slice,
            str(s.paired),
            rate_text(s.baseline),
            rate_text(s.candidate),
            delta_text(s.delta),
            str(s.fixed),
            str(s.broken),
        ]
        for s in c.slices
    ]
    head = ["Slice", "Paired", "Baseline", "Candidate", "Delta", "Fixed", "Broken"]
    sections.append(("Slices", head, slices))
    diff = [[d.key, _value(d.baseline), _value(d.candidate)] for d in c.config_diff]
    sections.append(
        (f"Configuration changes ({len(diff)})", ["Key", "Baseline", "Candidate"], diff)
    )
    if c.usage is not None:
        sections.append(("Usage (whole runs)", USAGE_HEAD, usage_rows(c)))
    excluded = [  # a whole case left out has no trial
        [e.id if e.trial is None else _label(e.id, e.trial, k), e.reason] for e in c.excluded
    ]
    sections.append((f"Excluded ({len(excluded)})", ["Case", "Reason"], capped(excluded)))
    return sections


def _num(v: float | None, unit: str = "") -> str:
    if v is None:
        return "n/a"
    if unit == "$":
        return f"${v:.6g}"
    return f"{v:,.3g} s" if unit == "s" else f"{v:,.0f}"


def _signed(v: float | None, unit: str = "") -> str:
    if v is None:
        return "n/a"
    sign = "+" if v > 0 else ("−" if v < 0 else "±")
    magnitude = _num(abs(v), unit)
    return f"{sign}{magnitude}"


USAGE_HEAD = ["", "Baseline", "Candidate", "Delta"]


def usage_rows(c: Comparison) -> list[list[str]]:
    """Both runs' usage, cost and latency, and the candidate's delta (text, Markdown and
    HTML show these same rows). Cost is what each run paid; with the response cache, the
    case-trials served from it and the cost they avoided are rows of their own."""
    u = c.usage
    assert u is not None
    b, d = u.baseline, u.candidate
    cached: list[list[str]] = []
    if b.cached or d.cached:
        cached = [
            ["served from the cache", str(b.cached), str(d.cached), _signed(d.cached - b.cached)],
            [
                "cost avoided by the cache",
                _num(b.cost_avoided_usd, "$"),
                _num(d.cost_avoided_usd, "$"),
                _signed(u.cost_avoided_usd_delta, "$"),
            ],
        ]
    return [
        [
            "usage reported",
            f"{b.usage_reported} of {b.case_trials}",
            f"{d.usage_reported} of {d.case_trials}",
            "",
        ],
        ["input tokens", _num(b.input_tokens), _num(d.input_tokens), _signed(u.input_tokens_delta)],
        [
            "output tokens",
            _num(b.output_tokens),
            _num(d.output_tokens),
            _signed(u.output_tokens_delta),
        ],
        [
            "cost paid" if cached else "cost",
            _num(b.cost_usd, "$"),
            _num(d.cost_usd, "$"),
            _signed(u.cost_usd_delta, "$"),
        ],
        *cached,
        [
            "latency p95",
            _num(b.latency_p95_s, "s"),
            _num(d.latency_p95_s, "s"),
            _signed(u.latency_p95_s_delta, "s"),
        ],
    ]


def _head(c: Comparison) -> list[str]:
    k = max(c.baseline.trials, c.candidate.trials)
    unit = "case-trials" if k > 1 else "cases"
    unchanged = ", ".join(f"{n} {s}" for s, n in sorted(c.unchanged.items())) or "none"
    m = c.mcnemar
    return [
        f"assay compare · baseline {c.baseline.ref} → candidate {c.candidate.ref}",
        f"dataset {c.baseline.dataset_name} · {c.paired} paired {unit}"
        + (f" × trials up to {k}" if k > 1 else "")
        + f" · {len(c.excluded)} excluded",
        "",
        f"Result: {c.summary}",
        *_verdicts(c),
        f"Exact McNemar on {m.unit}: {m.fixed} not-passing → passing, {m.broken} passing → "
        f"not-passing, p = {p_text(m.p_value, 1 - c.task_success_delta.confidence)}",
        f"Delta interval: {c.task_success_delta.method}",
        f"Unchanged: {unchanged}",
    ]


def _verdicts(c: Comparison) -> list[str]:
    """Whether the verdict survives the worst case, and the non-inferiority verdict when a
    margin was given."""
    lines = []
    if c.worst_case is not None:
        lines.append(f"Worst case: {c.worst_case.summary}")
    if c.non_inferiority is not None:
        lines.append(f"Non-inferiority: {c.non_inferiority.summary}")
    return lines


def comparison_document(c: Comparison) -> Document:
    """The comparison's head (result, McNemar, what stayed unchanged) and its sections."""
    head = _head(c)
    blocks: list[Block] = [
        Heading(head[0]),
        Paragraph.of(head[1], layout="clauses"),
        Gap(),
        Paragraph.of(Span(head[3], "strong"), layout="clauses"),
        BulletList(tuple(head[4:]), layout="clauses"),
    ]
    for title, cols, rows in _lines(c):
        if rows:
            blocks += [Gap(), table(cols, rows, title=title, title_level=3, pad_edge=True)]
    return Document(tuple(blocks))


def render_text(c: Comparison) -> str:
    """The comparison for a terminal."""

    return write_text(comparison_document(c), width=130)


def render_markdown(c: Comparison) -> str:
    """The comparison as GitHub-flavoured Markdown."""

    return write_markdown(comparison_document(c))


def render_json(c: Comparison) -> str:
    """The comparison as JSON (schema: docs/compare.schema.json)."""
    return model_json(c, by_alias=True) + "\n"


def render_comparison(c: Comparison, fmt: str) -> str:
    """``c`` in format ``fmt``: text, json or markdown (html: ``compare_html``)."""
    if fmt == "json":
        return render_json(c)
    if fmt == "markdown":
        return render_markdown(c)
    if fmt == "text":
        return render_text(c)
    raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
