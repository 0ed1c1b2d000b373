"""The user documentation is generated where it can be, and checked where it cannot.

- docs/cli.md is the ``--help`` of every registered command (scripts/gen_cli_docs.py).
- docs/api.md is the ``assay`` namespace, each name's signature and docstring
  (scripts/gen_api_docs.py, ``make api-doc``).
- docs/index.md links every page in docs/.
- docs/report.md documents every field of the JSON report.
- examples/policy/README.md shows the figures and the output the CLI really prints
  (``ASSAY_UPDATE_GOLDEN=1`` rewrites its output blocks).
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from assay.report import report_schema

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
POLICY = ROOT / "examples" / "policy"
UPDATE = os.environ.get("ASSAY_UPDATE_GOLDEN") == "1"


def _script(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_cli_reference_is_fresh() -> None:
    expected = _script("gen_cli_docs").cli_docs()
    assert (DOCS / "cli.md").read_text(encoding="utf-8") == expected, (
        "docs/cli.md is stale: run .venv/bin/python scripts/gen_cli_docs.py and commit it"
    )


def test_api_reference_is_fresh() -> None:
    expected = _script("gen_api_docs").api_docs()
    assert (DOCS / "api.md").read_text(encoding="utf-8") == expected, (
        "docs/api.md is stale: run `make api-doc` (.venv/bin/python scripts/gen_api_docs.py) "
        "and commit it"
    )


def test_api_reference_lists_every_public_name() -> None:
    import assay

    text = (DOCS / "api.md").read_text(encoding="utf-8")
    for name in set(assay.__all__) - {"__version__"}:
        assert f"### `{name}`\n" in text, f"assay.{name} is missing from docs/api.md"


def test_cli_reference_covers_every_registered_command() -> None:
    import typer

    from assay.cli._app import app

    group = typer.main.get_command(app)
    text = (DOCS / "cli.md").read_text(encoding="utf-8")
    for name in group.list_commands(group.context_class(group)):  # type: ignore[attr-defined]
        assert f"## assay {name}\n" in text, f"assay {name} is missing from docs/cli.md"


def test_index_links_every_page() -> None:
    index = (DOCS / "index.md").read_text(encoding="utf-8")
    linked = set(re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", index))
    pages = {p.name for p in DOCS.glob("*.md")} - {"index.md"}
    missing = sorted(pages - linked)
    assert not missing, f"docs/index.md does not link {missing}: add a row to its page table"


@pytest.mark.parametrize("page", sorted(p.name for p in DOCS.glob("*.md")))
def test_relative_links_resolve(page: str) -> None:
    text = (DOCS / page).read_text(encoding="utf-8")
    for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", text):
        assert (DOCS / target).exists(), f"{page} links {target}, which does not exist"


def test_report_page_documents_every_field() -> None:
    text = (DOCS / "report.md").read_text(encoding="utf-8")
    schema = report_schema()
    documented = {
        "Report": schema,
        **{
            name: schema["$defs"][name]
            for name in (
                "DatasetInfo",
                "StatusCounts",
                "Rate",
                "SliceSummary",
                "CaseRow",
                "SyntheticSection",
                "GraderInfo",
            )
        },
    }
    missing = [
        f"{model}.{field}"
        for model, sub in documented.items()
        for field in sub["properties"]
        if f"`{field}`" not in text
    ]
    assert not missing, f"docs/report.md does not document {missing}"


def test_running_page_documents_every_suite_and_target_key() -> None:
    from assay.load import SuiteSettings
    from assay.targets import target_types

    text = (DOCS / "running.md").read_text(encoding="utf-8")
    missing = [f"suite.{key}" for key in SuiteSettings.model_fields if f"| `{key}` |" not in text]
    for name in ("function", "http", "openai", "scripted"):
        settings = target_types()[name].settings
        missing += [f"{name}.{key}" for key in settings.model_fields if f"{key}:" not in text]
    assert not missing, f"docs/running.md does not document {missing}"


# --- examples/policy/README.md --------------------------------------------------------

README = POLICY / "README.md"
ROWS = {
    "Task success": "task_success",
    "Answer coverage": "answer_coverage",
    "Answered accuracy": "answered_accuracy",
    "Execution errors": "errors",
    "Missing outputs": "missing",
    "Standard slice": "slice standard",
    "Exception slice": "slice exception",
    "Missing-evidence slice": "slice missing",
}
BLOCK = re.compile(
    r"(<!-- cli-output: (?P<args>[^>]*?) -->\n```text\n)(?P<body>.*?)(```\n<!-- /cli-output -->)",
    re.S,
)


def _assay(*args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "assay", *args],
        capture_output=True,
        text=True,
        cwd=POLICY,
        env={**os.environ, "NO_COLOR": "1"},
        check=True,
    )
    return done.stdout


def _figures(report: dict[str, object]) -> dict[str, str]:
    def frac(rate: object) -> str:
        assert isinstance(rate, dict)
        return f"{rate['numerator']}/{rate['denominator']}"

    slices = report["slices"]
    assert isinstance(slices, dict)
    out = {
        key: frac(report[key]) for key in ("task_success", "answer_coverage", "answered_accuracy")
    }
    out |= {"errors": str(report["errors"]), "missing": str(report["missing"])}
    out |= {f"slice {name}": frac(sl["task_success"]) for name, sl in slices.items()}
    return out


def test_readme_table_matches_the_cli() -> None:
    table: dict[str, tuple[str, str]] = {}
    for line in README.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[0] in ROWS:
            table[ROWS[cells[0]]] = (cells[1], cells[2])
    assert set(table) == set(ROWS.values())
    for column, dataset in enumerate(("policy.jsonl", "policy-e7.jsonl")):
        report = json.loads(_assay("score", dataset, "results.jsonl", "--format", "json"))
        figures = _figures(report)
        assert {key: pair[column] for key, pair in table.items()} == {k: figures[k] for k in table}


def test_readme_shows_what_the_cli_prints() -> None:
    text = README.read_text(encoding="utf-8")
    blocks = list(BLOCK.finditer(text))
    assert len(blocks) == 2

    def actual(match: re.Match[str]) -> str:
        return _assay("score", *match["args"].split())

    if UPDATE:
        README.write_text(
            BLOCK.sub(lambda m: m.group(1) + actual(m) + m.group(4), text), encoding="utf-8"
        )
        text = README.read_text(encoding="utf-8")
        blocks = list(BLOCK.finditer(text))
    for match in blocks:
        assert match["body"] == actual(match), (
            "examples/policy/README.md shows stale CLI output: run "
            "ASSAY_UPDATE_GOLDEN=1 .venv/bin/pytest tests/test_docs.py and review the diff"
        )
