"""Sections of ``bench/RESULTS.md`` written by the benchmarks that run on their own.

Each such benchmark owns one section between ``<!-- begin NAME -->`` and
``<!-- end NAME -->``; writing it replaces only that section (or appends it), so the
figures of the other benchmarks stay as they were measured.
"""

from __future__ import annotations

import re
from pathlib import Path


def write_section(path: Path, name: str, text: str) -> None:
    """Put ``text`` in ``path`` as the section ``name``, replacing an earlier one."""
    begin, end = f"<!-- begin {name} -->", f"<!-- end {name} -->"
    block = f"{begin}\n{text.rstrip()}\n{end}\n"
    current = path.read_text(encoding="utf-8") if path.exists() else ""
    pattern = re.compile(re.escape(begin) + r".*?" + re.escape(end) + r"\n?", re.DOTALL)
    if pattern.search(current):
        updated = pattern.sub(lambda _: block, current, count=1)
    else:
        updated = current.rstrip() + ("\n\n" if current.strip() else "") + block
    path.write_text(updated, encoding="utf-8")


def sections(text: str) -> list[str]:
    """Every section block in ``text`` (to carry over when the whole file is rewritten)."""
    block = re.compile(r"<!-- begin ([\w-]+) -->.*?<!-- end \1 -->", re.DOTALL)
    return [match.group(0) for match in block.finditer(text)]
