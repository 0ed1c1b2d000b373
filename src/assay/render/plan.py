"""A plan as a document (terminal text, Markdown) or JSON: the cases each question needs,
the exact method behind each number, the assumptions and the forecast."""

from __future__ import annotations

import json

from assay._version import __version__
from assay.planning import Answer, BudgetFit, Forecast, LimitCheck, Plan
from assay.render.document import (
    Block,
    BulletList,
    Cell,
    Document,
    Gap,
    Heading,
    Only,
    Paragraph,
    Span,
    table,
)
from assay.render.markdown_writer import write_markdown
from assay.render.text_writer import write_text

SCHEMA_VERSION = 1

_TITLES = {
    "rate": "how many cases to estimate a rate",
    "drop": "how many cases to detect a drop",
    "noninferiority": "how many cases to show non-inferiority",
    "detectable": "what this many cases can detect",
}


def _pct(x: float, digits: int = 1) -> str:
    return f"{x * 100:.{digits}f}%"


def _effect(answer: Answer) -> str:
    if answer.effect is None:
        return "none within reach"
    if answer.question == "rate":
        return f"±{_pct(answer.effect, 2)}"
    return _pct(answer.effect, 2)


def _achieved(answer: Answer) -> str:
    if answer.achieved is None:
        return "n/a"
    if answer.question == "rate":
        return f"half-width {_pct(answer.achieved, 2)}"
    return f"power {_pct(answer.achieved, 1)}"


def _cases(answer: Answer) -> str:
    if answer.cases is None:
        return "out of reach"
    if answer.trials > 1:
        return f"{answer.cases:,} cases × {answer.trials} trials"
    return f"{answer.cases:,} cases"


def _effective(answer: Answer) -> str | None:
    if answer.effective_cases is None:
        return None
    counted = f"{answer.effective_cases:,.1f}"
    return f"{counted} effective observations as the clustered interval counts them"


def _duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def forecast_lines(fc: Forecast) -> tuple[str, ...]:
    """The forecast in words, one figure a line."""
    each = "trial" if fc.trials == 1 else "trials"
    lines = [f"{fc.calls:,} calls ({fc.cases:,} cases × {fc.trials} {each})"]
    if fc.input_tokens is not None or fc.output_tokens is not None:
        said = [
            f"{n:,} {what} tokens"
            for n, what in ((fc.input_tokens, "input"), (fc.output_tokens, "output"))
            if n is not None
        ]
        lines.append(", ".join(said))
    lines.append(
        "cost unknown (the run has no priced usage)"
        if fc.cost_usd is None
        else f"cost ${fc.cost_usd:,.4f}"
    )
    if fc.wall_s is not None:
        lines.append(f"about {_duration(fc.wall_s)} at concurrency {fc.concurrency}")
    else:
        lines.append("wall time unknown (needs the run's latency and a concurrency)")
    return tuple(lines)


def _limit_figure(limit: str, value: float, unit: bool) -> str:
    if limit == "max_cost":
        return f"${value:,.2f}" if value >= 1 else f"${value:.4f}"
    said = f"{round(value):,}"
    return f"{said} {'calls' if limit == 'max_calls' else 'tokens'}" if unit else said


def _check_line(check: LimitCheck, case_trials: int) -> str:
    allowed = f"{check.limit} {_limit_figure(check.limit, check.allowed, False)}"
    if check.forecast is None:
        what = "priced usage" if check.limit == "max_cost" else "token usage"
        return f"{allowed}: cannot tell whether the run fits it (the stored run has no {what})"
    figure = _limit_figure(check.limit, check.forecast, True)
    if not check.exceeded:
        return f"forecast {figure} fits {allowed}"
    return (
        f"forecast {figure} exceeds {allowed}: about {check.runs:,} of {case_trials:,} "
        "case-trials would run"
    )


def budget_fit_lines(fit: BudgetFit) -> tuple[str, ...]:
    """The forecast against each limit of a budget, one limit a line."""
    return tuple(_check_line(c, fit.case_trials) for c in fit.checks)


def _level(plan: Plan) -> str:
    method = "exact" if plan.interval_method == "clopper-pearson" else plan.interval_method
    said = f"{plan.confidence * 100:g}% level ({method} intervals)"
    return said if plan.question == "rate" else f"{said}, power {_pct(plan.power, 0)}"


def _answer_lines(answer: Answer, given: bool) -> tuple[str, ...]:
    lines = [f"reached: {_effect(answer)}" if given else f"needs: {_cases(answer)}"]
    if answer.achieved is not None and answer.achieved_se is not None:
        lines.append(
            f"simulated {_achieved(answer)} ± {_pct(answer.achieved_se, 1)} (Monte Carlo "
            f"s.e.) at {_cases(answer)}"
        )
    elif answer.achieved is not None:
        lines.append(f"exact {_achieved(answer)} at {_cases(answer)}")
    effective = _effective(answer)
    if effective:
        lines.append(effective)
    return (*lines, f"method: {answer.method}", f"reference: {answer.reference}")


def _text_blocks(plan: Plan) -> list[Block]:
    blocks: list[Block] = [
        Paragraph.of(f"assay plan · {_TITLES[plan.question]} · {_level(plan)}", layout="whole")
    ]
    for answer in plan.answers:
        blocks += [
            Gap(),
            Paragraph.of(answer.asked, layout="whole"),
            BulletList(
                _answer_lines(answer, plan.question == "detectable"), marker="  ", layout="whole"
            ),
        ]
    if plan.assumptions:
        blocks += [Gap(), Paragraph.of("assumptions:", layout="whole")]
        blocks.append(BulletList(tuple(plan.assumptions), marker="  - ", layout="whole"))
    if plan.forecast is not None:
        blocks += [
            Gap(),
            Paragraph.of(f"forecast from run {plan.forecast.from_run}:", layout="whole"),
            BulletList(forecast_lines(plan.forecast), marker="  ", layout="whole"),
        ]
    return blocks


def _markdown_blocks(plan: Plan) -> list[Block]:
    blocks: list[Block] = [
        Heading(f"assay plan: {_TITLES[plan.question]}"),
        Paragraph.of(f"At the {_level(plan)}."),
    ]
    rows: list[list[Cell]] = [
        [
            a.asked,
            Span(_cases(a), "figure"),
            Span(_effect(a), "figure"),
            Span(_achieved(a), "figure"),
            a.method,
        ]
        for a in plan.answers
    ]
    blocks.append(table(["Question", "Cases", "Effect", "Exact at these cases", "Method"], rows))
    blocks.append(BulletList(tuple(f"{a.question}: {a.reference}" for a in plan.answers)))
    if plan.assumptions:
        blocks += [Paragraph.of(Span("Assumptions", "strong")), BulletList(tuple(plan.assumptions))]
    if plan.forecast is not None:
        blocks += [
            Paragraph.of(Span(f"Forecast from run {plan.forecast.from_run}", "strong")),
            BulletList(forecast_lines(plan.forecast)),
        ]
    return blocks


def plan_document(plan: Plan) -> Document:
    """The plan: what terminal text and Markdown each show of it."""
    return Document(
        (Only("text", tuple(_text_blocks(plan))), Only("markdown", tuple(_markdown_blocks(plan))))
    )


def render_plan(plan: Plan, fmt: str) -> str:
    """``plan`` as ``text``, ``json`` or ``markdown``."""
    if fmt == "json":
        body = {
            "schema_version": SCHEMA_VERSION,
            "assay_version": __version__,
            **plan.model_dump(mode="json"),
            "cases": plan.cases,
        }
        return json.dumps(body, indent=2, ensure_ascii=False) + "\n"
    if fmt == "markdown":
        return write_markdown(plan_document(plan))
    return write_text(plan_document(plan))
