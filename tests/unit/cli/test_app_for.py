"""A command runs through an app holding only that command, with the whole app's output."""

from __future__ import annotations

import pytest
import typer

from assay.cli._app import app, app_for

NAMES = [c.name for c in app.registered_commands] + [g.name for g in app.registered_groups]


def _outcome(
    runner: typer.Typer, args: list[str], capsys: pytest.CaptureFixture[str]
) -> tuple[object, str, str]:
    try:
        runner(args=args, prog_name="assay")
        code: object = 0
    except SystemExit as done:
        code = done.code
    got = capsys.readouterr()
    return code, got.out, got.err


def test_every_command_is_registered_with_a_name() -> None:
    assert len(NAMES) > 20
    assert all(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_a_command_alone_prints_what_the_whole_app_prints(
    name: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "100")
    alone = app_for([name])
    assert alone is not app
    assert [c.name for c in alone.registered_commands] + [
        g.name for g in alone.registered_groups
    ] == [name]
    for args in ([name, "--help"], [name, "--no-such-option"]):
        assert _outcome(alone, args, capsys) == _outcome(app, args, capsys)


@pytest.mark.parametrize("args", [[], ["--help"], ["--version"], ["rnu"], ["--help", "run"]])
def test_arguments_naming_no_command_get_the_whole_app(args: list[str]) -> None:
    assert app_for(args) is app


def test_choosing_a_command_leaves_the_whole_app_unchanged() -> None:
    before = (list(app.registered_commands), list(app.registered_groups))
    app_for(["score"])
    assert (app.registered_commands, app.registered_groups) == before
