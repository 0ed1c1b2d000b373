"""One ``render(obj, fmt)`` for everything assay draws, checked against one list of
formats; every command's ``--format`` help is generated from that list."""

from __future__ import annotations

from typing import Any

import pytest
import typer
from tests.golden._inputs import golden_report
from tests.unit.compare.helpers import case, side
from tests.unit.report.test_composite_report import GOLDEN, report_for

from assay.cli._app import app
from assay.compare import compare_runs
from assay.formats import FORMATS, format_list, formats
from assay.render import kind_of, render

CASES = [case(f"E{i}", "s") for i in range(1, 5)]


def _objects() -> list[object]:
    comparison = compare_runs(
        side(CASES, {"E1": "failed", "E2": "passed", "E3": "passed", "E4": "failed"}),
        side(CASES, {"E1": "passed", "E2": "passed", "E3": "failed", "E4": "failed"}),
    )
    composite = report_for(GOLDEN / "golden17.jsonl", GOLDEN / "checks.jsonl")
    return [golden_report("policy"), comparison, composite]


@pytest.mark.parametrize("index", range(3))
def test_every_listed_format_of_each_kind_renders(index: int) -> None:
    obj = _objects()[index]
    for fmt in formats(kind_of(obj)):  # type: ignore[arg-type]
        assert render(obj, fmt).strip(), fmt  # type: ignore[arg-type]


def test_a_format_a_kind_lacks_is_refused_naming_the_choices() -> None:
    comparison = _objects()[1]
    with pytest.raises(ValueError, match=r"choose one of text, json, markdown, html$"):
        render(comparison, "junit")  # type: ignore[arg-type]


def test_text_and_markdown_say_the_same_figures() -> None:
    report = golden_report("policy")
    text, markdown = render(report, "text"), render(report, "markdown")
    for figure in ("2/6", "33.3%", "4.3%, 77.7%", "passed 2 + failed 3 + error 1"):
        assert figure in text and figure in markdown.replace("\\", "")


def _format_options() -> list[tuple[str, Any]]:
    root = typer.main.get_command(app)
    found: list[tuple[str, Any]] = []

    def walk(cmd: Any, path: str) -> None:
        for param in cmd.params:
            if "--format" in getattr(param, "opts", ()):
                found.append((path, param))
        if hasattr(cmd, "commands"):
            for name, sub in cmd.commands.items():
                walk(sub, f"{path} {name}".strip())

    walk(root, "")
    return found


def test_every_format_option_lists_its_kinds_formats() -> None:
    options = _format_options()
    assert len(options) >= 18
    sentences = {format_list(kind) for kind in FORMATS}
    sentences.add(format_list("report", notes={"html": "with traces"}))
    for path, option in options:
        assert any((option.help or "").startswith(s) for s in sentences), (path, option.help)


def test_a_coverage_matrix_renders_through_the_one_dispatch() -> None:
    from assay.cases import coverage_matrix

    cov = coverage_matrix(CASES, required=["absent"], dataset="demo")
    assert kind_of(cov) == "coverage"
    for fmt in formats("coverage"):
        assert "demo" in render(cov, fmt) or fmt == "json", fmt
    with pytest.raises(ValueError, match=r"choose one of text, json, markdown, html$"):
        render(cov, "junit")


def test_every_listed_format_has_one_writer_and_no_writer_is_unlisted() -> None:
    from assay.render._writers import WRITERS

    drawn = {kind: tuple(fmts) for kind, fmts in FORMATS.items() if kind != "export"}
    assert {kind: tuple(by_format) for kind, by_format in WRITERS.items()} == drawn


def test_each_writer_names_a_function_of_its_module() -> None:
    import importlib

    from assay.render._writers import WRITERS

    for kind, by_format in WRITERS.items():
        for fmt, writer in by_format.items():
            module = importlib.import_module(f"assay.render.{writer.module}")
            for name in filter(None, (writer.function, writer.written)):
                assert callable(getattr(module, name, None)), (kind, fmt, name)


def test_an_object_of_no_drawn_kind_is_refused_by_name() -> None:
    with pytest.raises(TypeError, match="cannot render a dict"):
        render({}, "text")  # type: ignore[arg-type]
