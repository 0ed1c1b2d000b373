"""Every command's ``--format`` says and accepts exactly the formats ``assay.formats`` lists
for the thing the command renders: its help is generated from that list, and a format
outside it is refused naming the same choices, before anything is read or created."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import typer
from tests.inprocess import run_inprocess

from assay.cli._app import app
from assay.cli._flags import FORMAT_FROM_OUTPUT
from assay.formats import format_list, formats

# Each command with --format: what it renders (a key of assay.formats.FORMATS), and the
# arguments it needs to get as far as checking the format.
COMMANDS: dict[str, tuple[str, tuple[str, ...]]] = {
    "validate": ("validation", ("d.jsonl",)),
    "dedupe": ("duplicates", ("d.jsonl",)),
    "coverage": ("coverage", ("d.jsonl",)),
    "diff-dataset": ("dataset-diff", ("a.jsonl", "b.jsonl")),
    "run": ("report", ("s.yaml",)),
    "report": ("report", ("r1",)),
    "score": ("report", ("d.jsonl", "r.jsonl")),
    "composite": ("composite", ("d.jsonl",)),
    "regrade": ("report", ("r1", "--grader", "structured")),
    "calibrate": ("calibration", ("l.jsonl", "j.json")),
    "compare": ("comparison", ("a", "b")),
    "matrix": ("matrix", ("m",)),
    "trace": ("trace", ("r", "c")),
    "diagnose": ("diagnosis", ("r", "--all")),
    "trend": ("trend", ("s",)),
    "plan": ("plan", ("rate",)),
    "export": ("export", ("r",)),
    "runs": ("runs", ()),
    "cache stats": ("cache-stats", ()),
}
# The commands whose HTML page draws the run's traces say so.
NOTES = {"run": {"html": "with traces"}, "report": {"html": "with traces"}}


def _format_options() -> dict[str, Any]:
    found: dict[str, Any] = {}

    def walk(cmd: Any, path: str) -> None:
        for param in cmd.params:
            if "--format" in getattr(param, "opts", ()):
                found[path] = param
        for name, sub in getattr(cmd, "commands", {}).items():
            walk(sub, f"{path} {name}".strip())

    walk(typer.main.get_command(app), "")
    return found


def test_every_command_with_a_format_option_is_known_here() -> None:
    assert sorted(_format_options()) == sorted(COMMANDS)


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_the_help_lists_exactly_the_formats_of_what_the_command_renders(command: str) -> None:
    kind = COMMANDS[command][0]
    option = _format_options()[command]
    said = format_list(kind, notes=NOTES.get(command))
    if option.default is None:  # the format the output file's extension names
        assert option.help == f"{said} {FORMAT_FROM_OUTPUT}."
    else:
        assert option.default == formats(kind)[0]
        assert option.help == f"{said}."


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_format_outside_the_list_is_refused_naming_the_list(
    command: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    kind, args = COMMANDS[command]
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ASSAY_STORE", f"sqlite:///{tmp_path / 'none.db'}")
    done = run_inprocess(capsys, *command.split(), *args, "-f", "nosuch")
    assert done.returncode == 2
    assert done.stderr == (
        f"assay: --format nosuch: unknown format; choose one of {', '.join(formats(kind))}\n"
    )
    assert list(tmp_path.iterdir()) == []
