"""Escaping data for terminals and Markdown: visible, complete, and lossless for JSON."""

from __future__ import annotations

import io
import json

import pytest

from assay.cli._terminal import EscapingStream
from assay.render._markdown import code, text
from assay.render._terminal import SafeConsole, escape_controls


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("\x1b[2J", "\\u001b[2J"),
        ("a\rb", "a\\u000db"),
        ("\x07\x08\x7f", "\\u0007\\u0008\\u007f"),
        ("\x9b2J", "\\u009b2J"),
        ("\u202eabc\u202c", "\\u202eabc\\u202c"),
        ("\u2066x\u2069", "\\u2066x\\u2069"),
        ("tab\tand\nnewline", "tab\tand\nnewline"),
        ("plain ünïcode ✓", "plain ünïcode ✓"),
    ],
)
def test_controls_become_visible_escapes(raw: str, shown: str) -> None:
    assert escape_controls(raw) == shown


def test_colours_are_kept_only_when_asked() -> None:
    data = "\x1b[32mok\x1b[0m \x1b]8;;x\x1b\\"
    assert escape_controls(data, keep_colors=True) == "\x1b[32mok\x1b[0m \\u001b]8;;x\\u001b\\"
    assert "\x1b" not in escape_controls(data)


def test_escaped_json_decodes_to_the_same_data() -> None:
    value = {"answer": "\x9b\u202e\u2028 ok"}
    dumped = json.dumps(value, ensure_ascii=False)
    assert json.loads(escape_controls(dumped)) == value


def test_the_stream_escapes_everything_written_to_it() -> None:
    raw = io.StringIO()
    stream = EscapingStream(raw)
    stream.write("id \x1b[31mE1\x1b[0m\n")
    assert raw.getvalue() == "id \\u001b[31mE1\\u001b[0m\n"


def test_the_console_reads_no_markup_and_escapes_before_colouring() -> None:
    buffer = io.StringIO()
    console = SafeConsole(file=buffer, force_terminal=True, width=80)
    console.print("[green]PASSED[/] :warning: \x1b[2J", style="bold")
    out = buffer.getvalue()
    assert "[green]PASSED[/]" in out and ":warning:" in out
    assert "\\u001b[2J" in out
    assert out.count("\x1b[") == out.count("\x1b[1m") + out.count("\x1b[0m")  # bold only


@pytest.mark.parametrize(
    "raw",
    [
        "<script>alert(1)</script>",
        "[x](javascript:alert(1))",
        "![i](http://x/y.png)",
        "a | b\nc",
        "&lt;b&gt;",
        "**bold**",
        "back\\slash",
    ],
)
def test_markdown_text_is_inert(raw: str) -> None:
    from markdown_it import MarkdownIt

    html = MarkdownIt("commonmark").render(text(raw)).strip()
    assert "<script" not in html and "<a " not in html and "<img" not in html
    assert (
        "<strong>" not in html and "\n" not in text(raw) and "|" not in text(raw).replace("\\|", "")
    )


def test_a_code_span_cannot_be_closed_by_its_data() -> None:
    from markdown_it import MarkdownIt

    html = MarkdownIt("commonmark").render(code("a``b` <i>x</i>")).strip()
    assert html == "<p><code>a``b` &lt;i&gt;x&lt;/i&gt;</code></p>"
