"""One document, two writers: terminal text and Markdown say the same things, each making
the data inert in its own way."""

from __future__ import annotations

import re

from assay.render.document import (
    Banner,
    BulletList,
    Column,
    Document,
    Gap,
    Groups,
    Heading,
    Lines,
    Only,
    Paragraph,
    Preformatted,
    Span,
    table,
)
from assay.render.markdown_writer import write_markdown
from assay.render.text_writer import write_text

DOC = Document(
    (
        Heading("assay report"),
        Paragraph.of("Dataset ", Span("policy", "code"), " of 6 cases."),
        Gap(),
        table(
            ["Case", Column("Passed", "right", whole=True)],
            [["E1", "1/2"], ["E2", Span("0/2", color="red")]],
            title="Slices",
        ),
        BulletList(("first", "second"), title="Usage"),
        Banner("SYNTHETIC — NOT A REAL RUN"),
        Only("text", (Paragraph.of("only on a terminal"),)),
        Only("markdown", (Paragraph.of("only in Markdown"),)),
    )
)


def test_text_draws_every_block_in_order() -> None:
    text = write_text(DOC)
    assert text.splitlines() == [
        "assay report",
        "Dataset policy of 6 cases.",
        "",
        "Slices",
        "Case  Passed",
        "E1       1/2",
        "E2       0/2",
        "Usage",
        "first",
        "second",
        "SYNTHETIC — NOT A REAL RUN",
        "only on a terminal",
    ]


def test_markdown_draws_every_block_separated_by_one_empty_line() -> None:
    assert write_markdown(DOC) == (
        "## assay report\n\n"
        "Dataset `policy` of 6 cases.\n\n"
        "**Slices**\n\n| Case | Passed |\n|---|---:|\n| E1 | 1/2 |\n| E2 | 0/2 |\n\n"
        "**Usage**\n\n- first\n- second\n\n"
        "### SYNTHETIC — NOT A REAL RUN\n\n"
        "only in Markdown\n"
    )


def test_colour_reaches_the_terminal_only_when_asked() -> None:
    assert "\x1b[" not in write_text(DOC)
    coloured = write_text(DOC, color=True)
    assert "\x1b[31m0/2" in coloured and "\x1b[1;33mSYNTHETIC" in coloured


HOSTILE = "<script>alert(1)</script> [x](javascript:alert(1)) a|b\nnext \x1b[2J"


def test_data_is_inert_in_both_formats() -> None:
    doc = Document(
        (
            Heading(HOSTILE),
            Paragraph.of(HOSTILE, Span(HOSTILE, "strong"), Span(HOSTILE, "code")),
            table(["Reason"], [[HOSTILE]], title=HOSTILE),
            BulletList((HOSTILE,), title=HOSTILE),
            Groups(HOSTILE, ((HOSTILE, (HOSTILE,)),)),
        )
    )
    markdown = write_markdown(doc)
    assert "`<script>alert(1)</script> [x](javascript:alert(1)) a\\|b next \\u001b[2J`" in markdown
    markdown = re.sub(r"`[^`]*`", "", markdown)  # a code span shows its text as it is
    assert "<script>" not in markdown and "\\<script\\>" in markdown
    assert re.search(r"(?<!\\)\]\(javascript:", markdown) is None
    assert "\x1b" not in markdown and "\\u001b" in markdown
    for line in markdown.splitlines():
        if line.startswith("| ") and "Reason" not in line:
            assert line.count(" | ") == 0, line  # the '|' in the data cannot add a cell
    text = write_text(doc)
    assert "\x1b" not in text and "\\u001b" in text


def test_a_long_line_breaks_between_clauses_on_a_terminal() -> None:
    line = "Result: " + "; ".join(f"clause {i} " + "x" * 30 for i in range(4))
    doc = Document((Paragraph.of(line, layout="clauses"),))
    lines = write_text(doc, width=60).splitlines()
    assert len(lines) == 4 and lines[0].endswith(";") and lines[1].startswith("        clause 1")
    assert write_markdown(doc) == line + "\n"


def test_groups_name_every_label_once_within_the_width() -> None:
    labels = tuple(f"C{i:04d}" for i in range(200))
    doc = Document((Groups("Cases not passed: 200", (("failed (200): wrong", labels),)),))
    text = write_text(doc, width=50)
    assert all(len(line) <= 50 for line in text.splitlines())
    assert all(text.count(label) == 1 for label in labels)
    assert write_markdown(doc).count("`C0199`") == 1


def test_preformatted_lines_keep_their_layout_and_no_backtick_closes_the_fence() -> None:
    tree = ("  0.00 ms  root", "  1.00 ms  └─ child ```x``` \x1b[2J")
    doc = Document((Preformatted(tree),))
    assert write_text(doc).splitlines() == [tree[0], "  1.00 ms  └─ child ```x``` \\u001b[2J"]
    markdown = write_markdown(doc).splitlines()
    assert markdown[0] == markdown[-1] == "````" and markdown[1:3] == [
        tree[0],
        "  1.00 ms  └─ child ```x``` \\u001b[2J",
    ]


def test_a_figure_is_written_as_assay_formatted_it_and_data_stays_inert() -> None:
    doc = Document(
        (
            table(
                ["Metric", Column("Interval", "right")],
                [
                    [("[x](y) ", Span("E1", "code")), Span("[4.3%, 77.7%]", "figure")],
                    ["<b>", "[1.0%, 2.0%]"],
                ],
            ),
        )
    )
    markdown = write_markdown(doc)
    assert "| Metric | Interval |\n|---|---:|\n" in markdown
    assert "| \\[x\\](y) `E1` | [4.3%, 77.7%] |" in markdown
    assert "| \\<b\\> | \\[1.0%, 2.0%\\] |" in markdown
    assert "E1" in write_text(doc) and "[4.3%, 77.7%]" in write_text(doc)


def test_a_plain_table_is_aligned_columns_on_a_terminal_and_a_table_in_markdown() -> None:
    t = table(
        ["Name", Column("N", "right"), "Note"],
        [["a", "1", "x\x1b[31m"], ["longer", "100", ""]],
        title="Counts:",
        plain=True,
    )
    assert write_text(Document((t,))) == (
        "Counts:\nName      N  Note\na         1  x\\u001b[31m\nlonger  100\n"
    )
    assert "| Name | N | Note |\n|---|---:|---|\n| a | 1 | x" in write_markdown(Document((t,)))


def test_lines_are_one_paragraph_in_markdown_and_one_line_each_on_a_terminal() -> None:
    doc = Document((Paragraph.of("before"), Lines(("one *a*", "two")), Paragraph.of("after")))
    assert write_markdown(doc) == "before\n\none \\*a\\*\ntwo\n\nafter\n"
    assert write_text(doc) == "before\none *a*\ntwo\nafter\n"
    assert write_markdown(Document((Lines(()), Paragraph.of("x")))) == "x\n"
