"""Every command block in README.md, docs/*.md and examples/agent/README.md runs, in a
temporary copy of the project.

A command block is a fenced block tagged ``bash``, ``console`` or ``sh``, or an untagged
one that starts with a command: in a block with ``$ `` prompts the lines starting with
``$ `` (the others are output), else every line that is not a comment. Each page's blocks run in
order in one copy of examples/ (a block may use the files an earlier one wrote), through
the real CLI in this process. A block exits 0 unless it shows a failed gate (``GATE
FAILED``) or a comment right before it states the code: ``<!-- docs-test: exit 1 (why) -->``.

A block that must not run (an install, a server, a synopsis with placeholders in
brackets) has ``<!-- docs-test: skip (reason) -->`` right before it; the skips are
counted so that they stay few. The placeholders ``RUN``, ``RUN_ID`` and ``CASE`` stand
for the latest stored run and case E2: a page that uses them gets one demo run (two
trials) first.
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
from tests.inprocess import run_cli

ROOT = Path(__file__).resolve().parents[2]
PAGES = [
    ROOT / "README.md",
    *sorted((ROOT / "docs").glob("*.md")),
    ROOT / "examples" / "agent" / "README.md",
]
GENERATED = {"cli.md"}  # the --help of every command, checked by tests/test_docs.py
MAX_SKIPS = 35

_FENCE = re.compile(r"^```(\w*)\s*$")
_DIRECTIVE = re.compile(r"^<!-- docs-test: (skip \(.+\)|exit \d+(?: \(.+\))?) -->$")
_PLACEHOLDERS = {"RUN": "latest", "RUN_ID": "latest", "CASE": "E2"}


@dataclass(frozen=True)
class Block:
    """One command block: where it is, its commands, and what it should do."""

    page: str
    line: int
    commands: tuple[str, ...]
    exit_code: int
    skip: str | None


def blocks_of(page: Path) -> list[Block]:
    """The command blocks of ``page``, in order."""
    lines = page.read_text(encoding="utf-8").splitlines()
    found: list[Block] = []
    i = 0
    while i < len(lines):
        fence = _FENCE.match(lines[i])
        if fence is None:
            i += 1
            continue
        end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
        tag, body_lines = fence.group(1), lines[i + 1 : end]
        console = tag == "console" or any(line.startswith("$ ") for line in body_lines)
        if tag in ("bash", "console", "sh") or (tag == "" and _looks_like_commands(body_lines)):
            commands = _commands(body_lines, console=console)
            if commands:
                directive = _directive(lines, i)
                body = "\n".join(body_lines)
                code = 1 if "gate failed" in body.lower() else 0
                skip = None
                if directive.startswith("exit "):
                    code = int(directive.split()[1])
                elif directive.startswith("skip "):
                    skip = directive.removeprefix("skip ")
                found.append(Block(_name(page), i + 1, commands, code, skip))
        i = end + 1
    return found


def _name(page: Path) -> str:
    """How the page is named in the results: an example's README by its path."""
    return page.relative_to(ROOT).as_posix() if page.parent.parent.name == "examples" else page.name


def _looks_like_commands(body: list[str]) -> bool:
    first = next((line for line in body if line.strip()), "")
    return first.startswith(("$ ", "assay ", "make ", "pip ", "pytest ", ".venv/bin/"))


def _directive(lines: list[str], fence: int) -> str:
    above = fence - 1
    while above >= 0 and not lines[above].strip():
        above -= 1
    match = _DIRECTIVE.match(lines[above].strip()) if above >= 0 else None
    return match.group(1) if match else ""


def _commands(body: list[str], *, console: bool) -> tuple[str, ...]:
    commands: list[str] = []
    pending = ""
    for raw in body:
        line = raw.rstrip()
        if pending:
            pending += " " + line.strip()
        elif console:
            if not line.startswith("$ "):
                continue
            pending = line[2:].strip()
        else:
            if not line.strip() or line.lstrip().startswith(("#", "...")):
                continue
            pending = line.strip()
        if pending.endswith("\\"):
            pending = pending[:-1].rstrip()
            continue
        commands.append(pending)
        pending = ""
    return tuple(commands) if any(_words(c) for c in commands) else ()


def _words(command: str) -> list[str]:
    return shlex.split(command, comments=True)


BLOCKS = [block for page in PAGES if page.name not in GENERATED for block in blocks_of(page)]


def test_the_skipped_blocks_stay_few() -> None:
    skipped = [f"{b.page}:{b.line} {b.skip}" for b in BLOCKS if b.skip]
    assert len(skipped) <= MAX_SKIPS, "\n".join(skipped)
    assert len(BLOCKS) - len(skipped) >= 20, "the doc test should run most command blocks"


@pytest.mark.parametrize(
    "page", sorted({b.page for b in BLOCKS if not b.skip}), ids=lambda name: name
)
def test_every_command_block_of_the_page_runs(page: str, tmp_path: Path) -> None:
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    shutil.copytree(ROOT / "tests" / "data", tmp_path / "tests" / "data")
    blocks = [b for b in BLOCKS if b.page == page and not b.skip]
    if any(_uses_placeholders(c) for b in blocks for c in b.commands):
        demo = run_cli("run", "examples/demo/v1.yaml", "--trials", "2", cwd=tmp_path)
        assert demo.returncode in (0, 1), demo.stderr
    for block in blocks:
        codes = [_run(block, command, tmp_path) for command in block.commands]
        # A block states the exit code of its last command; the ones before it set up.
        assert codes[-1].returncode == block.exit_code, _failure(block, codes[-1])
        for before in codes[:-1]:
            assert before.returncode == 0, _failure(block, before)


def _uses_placeholders(command: str) -> bool:
    return any(word in _PLACEHOLDERS for word in _words(command))


def _run(block: Block, command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    words = [_PLACEHOLDERS.get(w, w) for w in _words(command)]
    assert words and words[0] == "assay", (
        f"{block.page}:{block.line}: {command!r} is not an assay command: run it here, "
        "or put <!-- docs-test: skip (reason) --> right before the block"
    )
    return run_cli(*words[1:], cwd=cwd)


def _failure(block: Block, done: subprocess.CompletedProcess[str]) -> str:
    return (
        f"{block.page}:{block.line}: `assay {' '.join(done.args[1:])}` exited "
        f"{done.returncode}, the page implies {block.exit_code}\n"
        f"stdout:\n{done.stdout[-2000:]}\nstderr:\n{done.stderr[-2000:]}"
    )
