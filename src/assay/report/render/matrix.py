"""A matrix report as text (terminal), Markdown or JSON; strings only."""

from __future__ import annotations

from assay.compare import MatrixReport, PairRow, VariantRow
from assay.formats import formats
from assay.report.render.comparison import delta_text, rate_text

MATRIX_FORMATS: tuple[str, ...] = formats("matrix")


def p_text(p: float) -> str:
    return f"{p:.3g}"


def statuses_text(v: VariantRow) -> str:
    s = v.statuses
    return (
        f"passed {s.passed} + failed {s.failed} + error {s.error} + missing {s.missing} "
        f"+ ungraded {s.ungraded} = {s.total}"
    )


def usage_text(v: VariantRow) -> str:
    u = v.usage
    if u is None:
        return "n/a (no usage reported)"
    text = (
        "n/a (no usage reported)"
        if u.case_trials_with_usage == 0
        else f"{u.input_tokens} in / {u.output_tokens} out"
    )
    if u.cost_usd is not None:
        text += f" · ${u.cost_usd:.4g} paid"
    if u.cached:
        avoided = f"${u.cost_avoided_usd:.4g}" if u.cost_avoided_usd is not None else "n/a"
        text += f" · {u.cached} cached ({avoided} avoided)"
    return text


def cache_text(v: VariantRow) -> str:
    c = v.cache
    if c is None:
        return "off"
    return f"{c.served}/{c.case_trials} served (key v{c.key_version})"


def overrides_text(v: VariantRow) -> str:
    if not v.overrides:
        return "(the suite's own settings)"
    return ", ".join(f"{k}={val}" for k, val in v.overrides.items())


def pair_cells(p: PairRow) -> list[str]:
    return [
        f"{p.b} vs {p.a}",
        str(p.paired),
        str(p.newly_fixed),
        str(p.newly_broken),
        p_text(p.mcnemar.p_value),
        p_text(p.mcnemar.p_holm),
        delta_text(p.delta),
    ]


PAIR_HEAD = ["Pair (b vs a)", "Paired", "Fixed", "Broken", "p (McNemar)", "p (Holm)", "Delta b - a"]


def notes(m: MatrixReport) -> list[str]:
    """What a reader must know to read the rates and the pairs table, in sentences."""
    out = []
    if m.trials > 1:
        out.append(
            "Rates count case-trials; their intervals are clustered by case (a case's trials "
            "are not independent)."
        )
    if m.pairs:
        unit = m.pairs[0].mcnemar.unit
        if unit == "cases":
            out.append(
                "Fixed and broken count cases: a case is fixed when more of its trials pass "
                "in b than in a, broken when fewer (the exact sign test)."
            )
        else:
            out.append(
                "Fixed and broken count case-trials: not passed in a and passed in b, "
                "and the reverse."
            )
    return out


def _table(head: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(head)]
    line = "  ".join(h.ljust(w) for h, w in zip(head, widths, strict=True))
    out = [line.rstrip()]
    for r in rows:
        out.append("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip())
    return out


def render_matrix_text(m: MatrixReport) -> str:
    """Variants side by side, slices, the pairwise table and the grid's disagreements."""
    unit = "case-trials" if m.trials > 1 else "cases"
    first = m.variants[0]
    level = f"{first.task_success.confidence * 100:g}%"
    lines = [
        f"assay matrix · {m.matrix_id} · dataset {m.dataset_name} ({m.dataset_version[:19]}…) "
        f"· {m.cases} cases" + (f" × {m.trials} trials" if m.trials > 1 else ""),
        f"{len(m.variants)} variants, one run each on this dataset version; intervals "
        f"{level} ({first.task_success.method})",
        "",
    ]
    if m.heldout_line is not None:
        lines[2:2] = [m.heldout_line]
    rows = [
        [
            v.name,
            v.run_id,
            v.status,
            rate_text(v.task_success),
            rate_text(v.answer_coverage),
            rate_text(v.answered_accuracy),
            usage_text(v),
            cache_text(v),
        ]
        for v in m.variants
    ]
    head = [
        "Variant",
        "Run",
        "Status",
        "Task success",
        "Answer coverage",
        "Answered accuracy",
        "Usage (tokens)",
        "Cache",
    ]
    lines += _table(head, rows)
    lines += [
        "",
        "Denominators: task success = passing / "
        + first.task_success.denominator_name
        + "; answer coverage = substantive answers / "
        + first.answer_coverage.denominator_name
        + "; answered accuracy = passing answers / "
        + first.answered_accuracy.denominator_name,
        "",
        "Statuses:",
        *(f"  {v.name}: {statuses_text(v)} {unit}" for v in m.variants),
        "",
        "Overrides:",
        *(f"  {v.name}: {overrides_text(v)}" for v in m.variants),
    ]
    slices = list(dict.fromkeys(s for v in m.variants for s in v.slices))
    if slices:
        lines += ["", "Task success per slice:"]
        srows = [
            [s, *(rate_text(v.slices[s]) if s in v.slices else "—" for v in m.variants)]
            for s in slices
        ]
        lines += _table(["Slice", *(v.name for v in m.variants)], srows)
    lines += ["", *notes(m)]
    lines += ["", f"Pairs ({m.multiple_comparisons}):"]
    if m.pairs:
        lines += _table(PAIR_HEAD, [pair_cells(p) for p in m.pairs])
    else:
        lines.append("  none: one variant")
    disagree = [g for g in m.grid if g.disagree]
    lines += [
        "",
        f"Case-trials where variants disagree (passed in some, not others): "
        f"{len(disagree)} of {len(m.grid)}",
    ]
    if disagree:
        grows = [
            [g.id if m.trials == 1 else f"{g.id} #{g.trial}", g.slice]
            + [g.statuses.get(v.name, "—") for v in m.variants]
            for g in disagree
        ]
        lines += _table(["Case", "Slice", *(v.name for v in m.variants)], grows)
    return "\n".join(lines) + "\n"


def _cell(text: object) -> str:
    """``text`` (a variant, slice or case name) as inert Markdown: no HTML, link, ``|`` or
    newline in it acts."""
    from assay.report.render._markdown import text as markdown_text

    return markdown_text(text)


def _code(text: object) -> str:
    from assay.report.render._markdown import code

    return code(text)


def render_matrix_markdown(m: MatrixReport) -> str:
    """The matrix as GitHub-flavoured Markdown."""
    unit = "case-trials" if m.trials > 1 else "cases"
    lines = [
        f"## assay matrix: {_cell(m.matrix_id)}",
        "",
        f"Dataset {_code(m.dataset_name)} version {_code(m.dataset_version)}, {m.cases} cases"
        + (f" × {m.trials} trials" if m.trials > 1 else "")
        + f"; {len(m.variants)} variants, one run each; assay {m.assay_version}.",
        "",
        *([f"**{m.heldout_line}**", ""] if m.heldout_line is not None else []),
        "| Variant | Run | Task success | Answer coverage | Answered accuracy | Statuses "
        "| Usage (tokens) | Cache |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for v in m.variants:
        lines.append(
            f"| {_cell(v.name)} | {_code(v.run_id)} ({v.status}) | {rate_text(v.task_success)} "
            f"| {rate_text(v.answer_coverage)} | {rate_text(v.answered_accuracy)} "
            f"| {statuses_text(v)} {unit} | {usage_text(v)} | {cache_text(v)} |"
        )
    first = m.variants[0]
    lines += [
        "",
        f"Denominators: {first.task_success.denominator_name} (task success), "
        f"{first.answer_coverage.denominator_name} (answer coverage), "
        f"{first.answered_accuracy.denominator_name} (answered accuracy).",
        "",
        "**Overrides**",
        "",
        *(f"- {_cell(v.name)}: {_cell(overrides_text(v))}" for v in m.variants),
    ]
    slices = list(dict.fromkeys(s for v in m.variants for s in v.slices))
    if slices:
        lines += [
            "",
            "| Slice | " + " | ".join(_cell(v.name) for v in m.variants) + " |",
            "|---|" + "---|" * len(m.variants),
        ]
        for s in slices:
            cells = [rate_text(v.slices[s]) if s in v.slices else "—" for v in m.variants]
            lines.append(f"| {_cell(s)} | " + " | ".join(cells) + " |")
    lines += ["", *notes(m)]
    lines += [
        "",
        f"**Pairs** ({_cell(m.multiple_comparisons)})",
        "",
        "| " + " | ".join(PAIR_HEAD) + " |",
        "|---|---:|---:|---:|---:|---:|---|",
    ]
    lines += ["| " + " | ".join(_cell(c) for c in pair_cells(p)) + " |" for p in m.pairs]
    disagree = [g for g in m.grid if g.disagree]
    lines += ["", f"**Case-trials where variants disagree:** {len(disagree)} of {len(m.grid)}"]
    if disagree:
        lines += [
            "",
            "| Case | Slice | " + " | ".join(_cell(v.name) for v in m.variants) + " |",
            "|---|---|" + "---|" * len(m.variants),
        ]
        for g in disagree:
            case = g.id if m.trials == 1 else f"{g.id} #{g.trial}"
            cells = [g.statuses.get(v.name, "—") for v in m.variants]
            lines.append(f"| {_cell(case)} | {_cell(g.slice)} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def render_matrix(m: MatrixReport, fmt: str) -> str:
    """``m`` in format ``fmt`` (text, json, markdown or html)."""
    if fmt == "json":
        return m.model_dump_json(indent=2) + "\n"
    if fmt == "markdown":
        return render_matrix_markdown(m)
    if fmt == "text":
        return render_matrix_text(m)
    if fmt == "html":
        from assay.report.render.matrix_html import render_matrix_html

        return render_matrix_html(m)
    raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(MATRIX_FORMATS)}")
