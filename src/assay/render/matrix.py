"""A matrix report as a document (terminal text, Markdown), JSON or HTML."""

from __future__ import annotations

import assay.render._format as f
from assay.compare import GridRow, MatrixReport, PairRow, VariantRow, p_text
from assay.formats import formats
from assay.render._model_json import model_json
from assay.render.comparison import delta_text, rate_text
from assay.render.document import (
    Block,
    BulletList,
    Cell,
    Column,
    Document,
    Gap,
    Heading,
    Lines,
    Only,
    Paragraph,
    Span,
    table,
)
from assay.render.markdown_writer import write_markdown
from assay.render.text_writer import write_text

MATRIX_FORMATS: tuple[str, ...] = formats("matrix")


def statuses_text(v: VariantRow) -> str:
    return f.status_terms(v.statuses)


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
        p_text(p.mcnemar.p_value, 1 - p.delta.confidence),
        p_text(p.mcnemar.p_holm, 1 - p.delta.confidence),
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


def _text_blocks(m: MatrixReport) -> list[Block]:
    """Variants side by side, slices, the pairwise table and the grid's disagreements, as
    aligned terminal columns."""
    unit = "case-trials" if m.trials > 1 else "cases"
    first = m.variants[0]
    level = f"{first.task_success.confidence * 100:g}%"
    blocks: list[Block] = [
        _line(
            f"assay matrix · {m.matrix_id} · dataset {m.dataset_name} "
            f"({m.dataset_version[:19]}…) "
            f"· {m.cases} cases" + (f" × {m.trials} trials" if m.trials > 1 else "")
        ),
        _line(
            f"{len(m.variants)} variants, one run each on this dataset version; intervals "
            f"{level} ({first.task_success.method})"
        ),
    ]
    if m.heldout_line is not None:
        blocks.append(_line(m.heldout_line))
    rows: list[list[Cell]] = [
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
    blocks += [
        Gap(),
        table(head, rows, plain=True),
        Gap(),
        _line(
            "Denominators: task success = passing / "
            + first.task_success.denominator_name
            + "; answer coverage = substantive answers / "
            + first.answer_coverage.denominator_name
            + "; answered accuracy = passing answers / "
            + first.answered_accuracy.denominator_name
        ),
        Gap(),
        BulletList(
            tuple(f"{v.name}: {statuses_text(v)} {unit}" for v in m.variants),
            title="Statuses:",
            layout="whole",
            marker="  ",
        ),
        Gap(),
        BulletList(
            tuple(f"{v.name}: {overrides_text(v)}" for v in m.variants),
            title="Overrides:",
            layout="whole",
            marker="  ",
        ),
    ]
    slices = list(dict.fromkeys(s for v in m.variants for s in v.slices))
    if slices:
        srows: list[list[Cell]] = [
            [s, *(rate_text(v.slices[s]) if s in v.slices else "—" for v in m.variants)]
            for s in slices
        ]
        head = ["Slice", *(v.name for v in m.variants)]
        blocks += [Gap(), table(head, srows, title="Task success per slice:", plain=True)]
    blocks += [Gap(), Lines(tuple(notes(m))), Gap(), _line(f"Pairs ({m.multiple_comparisons}):")]
    if m.pairs:
        blocks.append(table(PAIR_HEAD, _pair_rows(m), plain=True))
    else:
        blocks.append(_line("  none: one variant"))
    disagree = [g for g in m.grid if g.disagree]
    blocks += [
        Gap(),
        _line(
            f"Case-trials where variants disagree (passed in some, not others): "
            f"{len(disagree)} of {len(m.grid)}"
        ),
    ]
    if disagree:
        grows = _disagreements(m, disagree)
        head = ["Case", "Slice", *(v.name for v in m.variants)]
        blocks.append(table(head, grows, plain=True))
    return blocks


def _disagreements(m: MatrixReport, disagree: list[GridRow]) -> list[list[Cell]]:
    rows: list[list[Cell]] = []
    for g in disagree:
        statuses = [g.statuses.get(v.name, "—") for v in m.variants]
        rows.append([g.id if m.trials == 1 else f"{g.id} #{g.trial}", g.slice, *statuses])
    return rows


def _pair_rows(m: MatrixReport) -> list[list[Cell]]:
    return [[*pair_cells(p)] for p in m.pairs]


def _line(text: str) -> Paragraph:
    return Paragraph.of(text, layout="whole")


def _figure(text: str) -> Span:
    return Span(text, "figure")


def _markdown_blocks(m: MatrixReport) -> list[Block]:
    """The matrix as GitHub-flavoured Markdown: the same figures, the statuses in the
    variants table."""
    unit = "case-trials" if m.trials > 1 else "cases"
    blocks: list[Block] = [
        Heading(f"assay matrix: {m.matrix_id}"),
        Paragraph.of(
            "Dataset ",
            Span(m.dataset_name, "code"),
            " version ",
            Span(m.dataset_version, "code"),
            f", {m.cases} cases"
            + (f" × {m.trials} trials" if m.trials > 1 else "")
            + f"; {len(m.variants)} variants, one run each; assay {m.assay_version}.",
        ),
    ]
    if m.heldout_line is not None:
        blocks.append(Paragraph.of(Span(m.heldout_line, "strong")))
    rows: list[list[Cell]] = [
        [
            v.name,
            (Span(v.run_id, "code"), f" ({v.status})"),
            _figure(rate_text(v.task_success)),
            _figure(rate_text(v.answer_coverage)),
            _figure(rate_text(v.answered_accuracy)),
            f"{statuses_text(v)} {unit}",
            usage_text(v),
            cache_text(v),
        ]
        for v in m.variants
    ]
    head = [
        "Variant",
        "Run",
        "Task success",
        "Answer coverage",
        "Answered accuracy",
        "Statuses",
        "Usage (tokens)",
        "Cache",
    ]
    first = m.variants[0]
    blocks += [
        table(head, rows),
        Paragraph.of(
            f"Denominators: {first.task_success.denominator_name} (task success), "
            f"{first.answer_coverage.denominator_name} (answer coverage), "
            f"{first.answered_accuracy.denominator_name} (answered accuracy)."
        ),
        BulletList(tuple(f"{v.name}: {overrides_text(v)}" for v in m.variants), title="Overrides"),
    ]
    slices = list(dict.fromkeys(s for v in m.variants for s in v.slices))
    if slices:
        srows: list[list[Cell]] = [
            [s, *(_figure(rate_text(v.slices[s])) if s in v.slices else "—" for v in m.variants)]
            for s in slices
        ]
        blocks.append(table(["Slice", *(v.name for v in m.variants)], srows))
    numbers = [Column(name, "right") for name in PAIR_HEAD[1:-1]]
    columns = [Column(PAIR_HEAD[0]), *numbers, Column(PAIR_HEAD[-1])]
    blocks += [
        Lines(tuple(notes(m))),
        Paragraph.of(Span("Pairs", "strong"), f" ({m.multiple_comparisons})"),
        table(columns, _pair_rows(m)),
    ]
    disagree = [g for g in m.grid if g.disagree]
    blocks.append(
        Paragraph.of(
            Span("Case-trials where variants disagree:", "strong"),
            f" {len(disagree)} of {len(m.grid)}",
        )
    )
    if disagree:
        grows = _disagreements(m, disagree)
        blocks.append(table(["Case", "Slice", *(v.name for v in m.variants)], grows))
    return blocks


def matrix_document(m: MatrixReport) -> Document:
    """The matrix: what terminal text and Markdown each show of it."""
    return Document(
        (Only("text", tuple(_text_blocks(m))), Only("markdown", tuple(_markdown_blocks(m))))
    )


def render_matrix_text(m: MatrixReport) -> str:
    """Variants side by side, slices, the pairwise table and the grid's disagreements."""

    return write_text(matrix_document(m))


def render_matrix_markdown(m: MatrixReport) -> str:
    """The matrix as GitHub-flavoured Markdown."""

    return write_markdown(matrix_document(m))


def render_matrix(m: MatrixReport, fmt: str) -> str:
    """``m`` in format ``fmt``: text, json or markdown (html: ``matrix_html``)."""
    if fmt == "json":
        return model_json(m) + "\n"
    if fmt == "markdown":
        return render_matrix_markdown(m)
    if fmt == "text":
        return render_matrix_text(m)
    raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(MATRIX_FORMATS)}")
