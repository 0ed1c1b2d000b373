"""Injection payloads: terminal escapes, bidi overrides, rich markup, HTML and Markdown.

Shared by the tests that render them through every output (tests/e2e) and by the bench
script that counts them (bench/injection.py).
"""

from __future__ import annotations

import re

TERMINAL = [
    "\x1b[2J\x1b[H",  # clear the screen, cursor home
    "\x1b[32mall checks passed\x1b[0m",  # a fake green verdict
    "\x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\",  # OSC 8 hyperlink
    "\x1b]0;owned\x07",  # window title
    "\x9b2J",  # C1 CSI
    "line\rPASS",  # carriage return overwrite
    "\u202eevil\u202c",  # right-to-left override
    "\u2066isolate\u2069",
    "[green]ALL PASSED[/green]",  # rich markup
    "[/]",  # rich markup that would not even parse
    ":warning:",  # rich emoji code
]
MARKDOWN = [
    "<script>alert(1)</script>",
    '<img src=x onerror="alert(1)">',
    '<iframe src="javascript:alert(1)"></iframe>',
    '<base href="https://evil.example/">',
    '<meta http-equiv="refresh" content="0;url=https://evil.example/">',
    "[click](javascript:alert(1))",
    "![x](https://evil.example/x.png)",
    "<javascript:alert(1)>",
    "a | b\n| c | d |",
    "`code` ``break",
    "&lt;script&gt;",
    "**bold** <b>bold</b>",
]
ALL = TERMINAL + MARKDOWN

# What no terminal output may hold: C0 controls but tab and newline, DEL, C1, bidi.
LIVE_TERMINAL = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]"
)


def broken_table_rows(markdown: str) -> list[str]:
    """Table rows of ``markdown`` whose cell count differs from their table's header row."""
    bad: list[str] = []
    expected = None
    for line in markdown.splitlines():
        if not line.startswith("|"):
            expected = None
            continue
        cells = len(re.split(r"(?<!\\)\|", line.strip())) - 2
        if expected is None:
            expected = cells
        elif cells != expected:
            bad.append(line)
    return bad


def live_html(markdown: str) -> list[str]:
    """The elements a Markdown renderer (CommonMark with raw HTML on, plus tables) makes
    of ``markdown`` that could run or load anything: tags, links, images."""
    from markdown_it import MarkdownIt

    html = MarkdownIt("commonmark").enable("table").render(markdown)
    return re.findall(r"<(?:script|img|iframe|base|meta|a|b)\b[^>]*>", html)
