"""Shared wording for rates and counts, so every format says the same thing."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from assay.grading import STATUSES
from assay.metrics import Rate, StatusCounts, TrialRate, decimal, interval_text, percent
from assay.report import (
    AgentCounts,
    AgentTotals,
    Brief,
    CaseRow,
    JudgeUsage,
    Report,
    SplitBlock,
    UnknownBounds,
    UsageSummary,
    sequence_text,
)


def pct(value: float) -> str:
    """'33.3%'; never '0.0%' or '100.0%' for a rate that is neither 0 nor 1 ('99.999%')."""
    return percent(value)


Figure = Rate | TrialRate


def score_sum(r: TrialRate) -> str:
    """The sum of per-case scores: whole when it is whole ('2'), else two decimals or as
    many as it takes not to read as whole."""
    return decimal(r.score_sum)


def fraction(r: Figure) -> str:
    if isinstance(r, TrialRate):
        return f"{score_sum(r)}/{r.cases}"
    return f"{r.numerator}/{r.denominator}"


def value(r: Figure) -> str:
    """'33.3%', or 'n/a (no substantive answers)' when the denominator is 0."""
    return pct(r.value) if r.value is not None else f"n/a ({r.na_reason})"


def ci(r: Figure) -> str:
    """'[0.8%, 90.6%]', or '—' when the rate is unavailable."""
    return interval_text(r.ci)


def ci_label(r: Figure, clustered: bool = False) -> str:
    level = f"{r.confidence * 100:g}%"
    method = "exact" if r.method == "clopper-pearson" else r.method.title()
    return f"{level} CI ({method}{', clustered by case' if clustered else ''})"


def named(r: Figure) -> str:
    """'passing answers / substantive answers'; for a trial policy, 'case scores
    (pass^2 of 4 trials) / cases in the dataset'."""
    if isinstance(r, TrialRate):
        return f"case scores ({r.label}) / {r.denominator_name}"
    return (
        f"{r.numerator_name} / {r.denominator_name}"
        if r.numerator_name
        else (f"/ {r.denominator_name}")
    )


def headline(report: Report) -> list[tuple[str, Figure]]:
    """(label, figure) of the headline rates (see ``headline_keyed``)."""
    return [(label, r) for label, _, r in headline_keyed(report)]


def headline_keyed(report: Report) -> list[tuple[str, str, Figure]]:
    """(label, gate field, figure) of the headline rates. When a trial policy was declared,
    task success under it comes first and the per-trial rates follow, labelled."""
    t = report.trial_summary
    per = " (per trial)" if t is not None else ""
    rows: list[tuple[str, str, Figure]] = []
    if t is not None and t.declared:
        rows.append((f"Task success ({t.policy})", "task_success", t.task_success))
        rows.append(("Task success (per trial)", "task_success_per_trial", report.task_success))
    else:
        rows.append(("Task success" + per, "task_success", report.task_success))
    return [
        *rows,
        ("Answer coverage" + per, "answer_coverage", report.answer_coverage),
        ("Answered accuracy" + per, "answered_accuracy", report.answered_accuracy),
    ]


DIMENSION_LABELS = {"grounded": "Grounded (judge)", "citations_supported": "Citations (judge)"}


def dimensions(report: Report) -> list[tuple[str, Figure]]:
    """The judge's optional dimensions, each its own rate (empty without them)."""
    return [(DIMENSION_LABELS.get(k, k), r) for k, r in report.judge_dimensions.items()]


def status_terms(counts: StatusCounts) -> str:
    """'passed 2 + failed 3 + error 1 + missing 0 + ungraded 0 = 6'."""
    parts = " + ".join(f"{name} {getattr(counts, name)}" for name in STATUSES)
    return f"{parts} = {counts.total}"


def status_sum(counts: StatusCounts, total: int, unit: str = "cases") -> str:
    """'passed 2 + failed 3 + error 1 + missing 0 + ungraded 0 = 6 cases (adds up)'."""
    verdict = "adds up" if counts.total == total else f"DOES NOT ADD UP to {total}"
    return f"{status_terms(counts)} {unit} ({verdict})"


def unit(report: Report) -> str:
    return "case-trials" if report.trials > 1 else "cases"


def cell(text: object) -> str:
    """``text`` as inert Markdown, safe inside a table cell (see ``_markdown.text``)."""
    # deferred: Markdown's escaping loads rich, which the HTML and JUnit writers never need
    from assay.render._markdown import text as markdown_text

    return markdown_text(text)


def code(text: object) -> str:
    """``text`` as an inline Markdown code span no backtick in it can close."""
    # deferred: as in ``cell``
    from assay.render._markdown import code as markdown_code

    return markdown_code(text)


def rates_table(rows: Sequence[tuple[str, Figure]], ci_heading: str) -> list[str]:
    """A Markdown table of rates: fraction, value, interval and the named denominator."""
    lines = [
        f"| Metric | Fraction | Value | {ci_heading} | Denominator |",
        "|---|---:|---:|---|---|",
    ]
    for label, r in rows:
        lines.append(f"| {label} | {fraction(r)} | {value(r)} | {ci(r)} | {cell(named(r))} |")
    return lines


def cache_line(report: Report) -> str | None:
    """'Cache: 12 of 12 case-trials served from the cache (key version 1) …', or None when
    the run used no cache."""
    c = report.cache
    if c is None:
        return None
    version = f"key version {c.key_version}" if c.key_version is not None else "key version n/a"
    line = (
        f"Cache: {c.served} of {c.case_trials} recorded case-trials served from the cache "
        f"({version}); {c.called} called the target"
    )
    if c.input_tokens_avoided or c.output_tokens_avoided:
        line += (
            f"; tokens avoided: {c.input_tokens_avoided} input, "
            f"{c.output_tokens_avoided} output (not counted again)"
        )
    if c.judge_served:
        line += f"; judge replies from cache: {c.judge_served}"
    u = report.usage
    if u is not None and u.cost_avoided_usd is not None:
        line += f"; cost avoided: ${u.cost_avoided_usd:.6g}"
    return line


def short_version(version: str) -> str:
    return version[:19] if version.startswith("sha256:") else version


def heldout_line(report: Report) -> str | None:
    """'HELD-OUT RESULT: 4 held-out case(s) included; held-out run #3 of this dataset…'."""
    note = report.heldout
    if note is None:
        return None
    runs = (
        f"; held-out run #{note.runs} of this dataset in the store" if note.runs is not None else ""
    )
    return f"{note.banner}: {note.cases} held-out case(s) included{runs}"


def sequential_lines(report: Report) -> list[str]:
    """What a sequential run says: its verdict and guarantee, each rule's confidence
    sequence, and what its figures are over (empty for a fixed run)."""
    s = report.sequential
    if s is None:
        return []
    error = f"{s.alpha * 100:g}%"
    if s.stopped_early:
        verdict = (s.verdict or "undecided").upper()
        first = (
            f"Decided after {s.decided_at or s.drawn:,} of {s.cases:,} cases: {verdict}. The "
            f"probability that this verdict is wrong is at most {error}, whenever the run "
            f"had stopped."
        )
    elif s.drawn < s.cases:
        first = (
            f"Not decided yet: {s.drawn:,} of {s.cases:,} cases drawn before the run stopped; "
            "resume it to go on drawing."
        )
    else:
        first = (
            f"Not decided early: all {s.cases:,} cases were run, and the figures are exactly "
            "those of the fixed run."
        )
    lines = [first]
    for r in s.rules:
        bounds = sequence_text(r)
        score = f"{r.score:.4g}" if r.score is not None else "n/a"
        state = (
            f"{r.verdict.upper()}, decided after {r.decided_at:,} of its {r.cases:,} cases"
            if r.verdict is not None and r.decided_at is not None
            else "undecided"
        )
        what = r.path
        if r.baseline is not None:  # a paired rule: a difference, signed
            what, score = "run minus baseline", f"{r.score:+.4g}" if r.score is not None else "n/a"
        lines.append(
            f"{r.rule}: {state}; {what} = {score} over {r.drawn:,} cases drawn, confidence "
            f"sequence {bounds} (error at most {r.alpha * 100:g}%)"
        )
    if s.stopped_early:
        lines.append(
            f"The figures below are over the cases drawn (passing cases / cases drawn, a "
            f"seeded random sample of {s.drawn:,} of {s.cases:,}); the "
            f"{len(s.not_drawn):,} cases never drawn are not missing: they were not drawn."
        )
    lines.append(f"Method: {s.method}; cases drawn in a random order with seed {s.seed}.")
    return lines


def run_split(metadata: Mapping[str, Any]) -> str | None:
    """The split a stored run recorded it ran: 'dev', 'HELD-OUT (run #2)' or
    'all · HELD-OUT (run #3)'; None when it recorded none (an imported run, or one stored
    before runs recorded their split)."""
    split, count = metadata.get("split"), metadata.get("heldout_runs")
    if split is None:
        return None
    if count is None:
        return str(split)
    held = f"HELD-OUT (run #{count})"
    return held if split == "heldout" else f"{split} · {held}"


def split_rows(report: Report) -> list[tuple[str, Rate]]:
    """Each split's rates, labelled 'dev · Task success', when the report has both splits."""
    rows: list[tuple[str, Rate]] = []
    for block in report.splits or []:
        rows += [
            (f"{block.split} · Task success", block.task_success),
            (f"{block.split} · Answer coverage", block.answer_coverage),
            (f"{block.split} · Answered accuracy", block.answered_accuracy),
        ]
    return rows


def change_line(report: Report) -> str | None:
    """'dataset change (2026-12-01, alice): relabelled E2 after review', when recorded."""
    change = report.dataset.change
    if change is None:
        return None
    when = ", ".join(x for x in (change.date, change.who) if x)
    return f"dataset change ({when}): {change.why}"


RAW_SHOWN = 300  # characters of an error's raw reply shown beside its reason


def case_label(row: CaseRow | Brief, trials: int) -> str:
    """'E2', 'E2 #3' with several trials, followed by '(cached)' for a reply served from
    the response cache."""
    label = row.id if trials == 1 else f"{row.id} #{row.trial}"
    return f"{label} (cached)" if row.cached_from is not None else label


def reason_with_raw(row: CaseRow) -> str:
    """The row's reason, followed by the raw reply of an error (its first ``RAW_SHOWN``
    characters, and how many there are in all when that is not all of it)."""
    if row.abstain_reason and row.outcome == "abstain":
        return f"{row.reason} · abstained: {row.abstain_reason}"
    if not row.raw:
        return row.reason
    raw = " ".join(row.raw.split())
    if len(raw) > RAW_SHOWN:
        raw = f"{raw[:RAW_SHOWN]}… [{len(row.raw)} characters; all of it in the JSON report]"
    return f"{row.reason} · raw reply: {raw}"


def tokens(n: int | None) -> str:
    return "n/a" if n is None else f"{n:,}"


def cost_avoided_line(usage: UsageSummary) -> str:
    """'Cost avoided by the cache: $0.012 over 6 of 6 cached case-trials', or why it is
    not known."""
    if usage.cost_avoided_usd is None:
        why = "no price table" if usage.prices is None else "their cost is unknown"
        return f"Cost avoided by the cache: n/a ({why})"
    return (
        f"Cost avoided by the cache: ${usage.cost_avoided_usd:.6g} over "
        f"{usage.cost_avoided_reported} of {usage.cached} cached case-trials (not paid again)"
    )


def usage_lines(usage: UsageSummary | None, judge: JudgeUsage | None = None) -> list[str]:
    """The usage section in words: tokens, latency and cost, each with how many
    case-trials it covers, then the model judge's own calls and tokens apart; empty when
    the report has neither."""
    if usage is None:
        return judge_usage_lines(judge)
    return _target_usage_lines(usage) + judge_usage_lines(judge)


def judge_usage_lines(judge: JudgeUsage | None) -> list[str]:
    """The model judge's calls and tokens, apart from the target's (empty without a judge)."""
    if judge is None:
        return []
    sent = judge.sent
    calls = f"{sent} of {judge.asked} case-trials put to it"
    if judge.cached:
        calls += f" ({judge.cached} served from the cache)"
    line = f"Judge (apart from the target's usage): calls {calls}"
    if sent:
        line += (
            f" · attempts {judge.attempts} · failed {judge.failed} · "
            f"input {tokens(judge.input_tokens)} ({judge.input_reported} reported) · "
            f"output {tokens(judge.output_tokens)} ({judge.output_reported} reported)"
        )
    return [line]


def _target_usage_lines(usage: UsageSummary) -> list[str]:
    n = usage.case_trials
    called = usage.called
    whom = f"{called} case-trials" if not usage.cached else f"{called} case-trials that called"
    lines = [
        f"Tokens: usage reported by {usage.usage_reported} of {whom} · "
        f"input {tokens(usage.input_tokens)} ({usage.input_reported} reported) · "
        f"output {tokens(usage.output_tokens)} ({usage.output_reported} reported)"
    ]
    if usage.cached:
        lines.append(
            f"Served from the cache: {usage.cached} of {n} case-trials (their tokens and cost "
            "were paid by the run that made the reply and are not counted again)"
        )
    if usage.input_tokens is not None and usage.input_reported:
        per_in = usage.input_tokens / usage.input_reported
        per_out = (
            usage.output_tokens / usage.output_reported
            if usage.output_tokens is not None and usage.output_reported
            else None
        )
        out_text = f"{per_out:,.1f}" if per_out is not None else "n/a"
        lines.append(f"Tokens per case-trial (mean): input {per_in:,.1f} · output {out_text}")
    lat = usage.latency
    if lat is None:
        lines.append(f"Latency: n/a (no latency recorded for any of {n} case-trials)")
    else:
        lines.append(
            f"Latency: p50 {lat.p50_s:.3g} s · p95 {lat.p95_s:.3g} s · max {lat.max_s:.3g} s "
            f"({lat.count} of {n} case-trials)"
        )
    if usage.cost_usd is None:
        lines.append(f"Cost: n/a ({usage.cost_note or 'unknown'})")
    elif not called:
        lines.append(f"Cost paid: $0 (no call was made: all {n} case-trials served from the cache)")
    else:
        paid = "Cost paid" if usage.cached else "Cost"
        lines.append(
            f"{paid}: ${usage.cost_usd:.6g} over {usage.cost_reported} of {whom} "
            "(those that reported both token counts)"
        )
    if usage.cached:
        lines.append(cost_avoided_line(usage))
    p = usage.prices
    if p is not None:
        price = (
            f"${p.price.input:g} input / ${p.price.output:g} output per million tokens"
            if p.price is not None
            else "no price"
        )
        where = f" from {p.source}" if p.source else ""
        lines.append(f"Price table {short_version(p.hash)}…{where}: {p.model}: {price}")
    return lines


def title_name(report: Report) -> str:
    """What a report is titled: the suite's ``name:`` (and the run's name) for a stored run
    started from a suite, else the dataset's name."""
    run = report.metadata.get("run")
    run = run if isinstance(run, dict) else {}
    suite = run.get("suite_name")
    named = (
        (run.get("metadata") or {}).get("assay.name")
        if isinstance(run.get("metadata"), dict)
        else None
    )
    title = str(suite) if isinstance(suite, str) and suite else report.dataset.name
    return f"{title} ({named})" if isinstance(named, str) and named else title


def correction_line(report: Report) -> str | None:
    """Task success as the judge gave it beside the rate corrected for the judge's measured
    errors (or why no correction is made); None when the report has no such figure."""
    c = report.judge_correction
    if c is None:
        return None
    judge = f"Judge: {value(c.judge)} {ci(c.judge)}"
    fixed = c.corrected
    if fixed is None or c.calibration is None:
        return f"{judge}; not corrected for the judge's measured errors: {c.reason}"
    cal = c.calibration
    about = [f"{cal.labels} labels"]
    if cal.prompt_version is not None:
        about.append(f"prompt {cal.prompt_version}")
    if cal.judge_model is not None:
        about.append(f"model {cal.judge_model}")
    errors = (
        f"false accepts {cal.false_accepts}/{cal.human_fail}, "
        f"false rejects {cal.false_rejects}/{cal.human_pass}"
    )
    return (
        f"{judge}; corrected for the judge's measured errors: {pct(fixed.value)} "
        f"{interval_text(fixed.ci)} (calibration: {', '.join(about)}; {errors})"
    )


def bounds_lines(report: Report) -> list[str]:
    """Each headline rate's and slice's worst and best case over its unknown case-trials,
    task success's first; empty when it has none."""
    return _bounds_lines(report.unknown_bounds, report, "Unknowns")


def split_bounds_lines(report: Report) -> list[str]:
    """Each split's rates' worst and best case over its unknown case-trials, as
    ``bounds_lines`` words the report's ('dev · Unknowns: …'); empty when none has any."""
    return [line for block in report.splits or [] for line in block_bounds_lines(report, block)]


def block_bounds_lines(report: Report, block: SplitBlock) -> list[str]:
    """One split's lines of ``split_bounds_lines``."""
    return _bounds_lines(block.unknown_bounds, report, f"{block.split} · Unknowns")


def _bounds_lines(b: UnknownBounds | None, report: Report, head: str) -> list[str]:
    if b is None:
        return []
    t = b.task_success
    lines = [
        f"{head}: {t.unknown} of {t.worst.denominator} {unit(report)} are error, missing "
        f"or ungraded: task success is {value(t.worst)} {ci(t.worst)} if all failed "
        f"(worst case), {value(t.best)} {ci(t.best)} if all passed (best case)"
    ]
    if (c := b.answer_coverage) is not None:
        lines.append(
            f"{head} in answer coverage: {c.unknown} of {c.worst.denominator} "
            f"{unit(report)}: {value(c.worst)} {ci(c.worst)} if none of them answered (worst "
            f"case), {value(c.best)} {ci(c.best)} if all did (best case)"
        )
    if (a := b.answered_accuracy) is not None:
        lines.append(
            f"{head} in answered accuracy: {a.unknown} of {a.worst.denominator} substantive "
            f"answers are error, missing or ungraded: {value(a.worst)} {ci(a.worst)} if all "
            f"failed (worst case), {value(a.best)} {ci(a.best)} if all passed (best case)"
        )
    for name, s in b.slices.items():
        lines.append(
            f"{head} in slice {name}: {s.unknown} of {s.worst.denominator} {unit(report)}: "
            f"task success is {value(s.worst)} {ci(s.worst)} if all failed (worst case), "
            f"{value(s.best)} {ci(s.best)} if all passed (best case)"
        )
    return lines


def agent_counts_text(counts: AgentCounts | AgentTotals) -> str:
    """'5 steps · 2 tool calls · 1 tool error · 0 malformed calls': what an agent did, in
    one case-trial or added up."""
    return (
        f"{_n(counts.steps, 'step')} · {_n(counts.tool_calls, 'tool call')} · "
        f"{_n(counts.tool_errors, 'tool error')} · {_n(counts.malformed_calls, 'malformed call')}"
    )


def _n(count: int, what: str) -> str:
    return f"{count:,} {what}" + ("" if count == 1 else "s")


def agent_line(totals: AgentTotals) -> str:
    """The counts over ``totals.case_trials`` case-trials, and how many stopped at the
    step limit."""
    line = f"{agent_counts_text(totals)} over {_n(totals.case_trials, 'case-trial')}"
    if totals.step_limit:
        line += f" ({totals.step_limit:,} stopped at the step limit)"
    return line


def agent_rows(report: Report) -> list[list[str]]:
    """Each case-trial that recorded a trajectory: its label, slice, status and counts
    (steps, tool calls, tool errors, malformed calls) and why its loop ended (the rows of
    ``AGENT_COLUMNS``)."""
    return [
        [
            case_label(row, report.trials),
            row.slice,
            row.status,
            str(row.agent.steps),
            str(row.agent.tool_calls),
            str(row.agent.tool_errors),
            str(row.agent.malformed_calls),
            row.agent.ended,
        ]
        for row in report.cases
        if row.agent is not None
    ]


AGENT_COLUMNS = (
    "Case",
    "Slice",
    "Status",
    "Steps",
    "Tool calls",
    "Tool errors",
    "Malformed",
    "Ended",
)
"""The columns of ``agent_rows``."""


def agent_section_lines(report: Report) -> list[str]:
    """The agents' counts in total, then per slice when there are several; empty when no
    case-trial recorded a trajectory."""
    agent = report.agent
    if agent is None:
        return []
    lines = [f"Total: {agent_line(agent)}"]
    if len(agent.slices) > 1:
        lines += [f"{name}: {agent_line(part)}" for name, part in agent.slices.items()]
    return lines
