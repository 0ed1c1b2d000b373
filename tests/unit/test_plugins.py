"""A third-party target and grader, installed as a package declaring ``assay.targets`` and
``assay.graders`` entry points, are named in a suite file by type and run like built-ins."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.conftest import RunAssay

from assay.errors import AssayConfigError, InputFormatError
from assay.load import load_suite
from assay.runner import run_suite
from assay.store import open_store

PLUGIN = Path(__file__).resolve().parent.parent / "data" / "plugin" / "assay_echo.py"
POLICY = Path(__file__).resolve().parents[2] / "examples" / "policy" / "policy.jsonl"
ENTRY_POINTS = """\
[assay.targets]
echo = assay_echo:ECHO
broken = assay_echo:NOT_THERE

[assay.graders]
fact_length = assay_echo:FACT_LENGTH
"""


def install(site: Path) -> Path:
    """The plugin installed into ``site`` as pip would: the module plus its dist-info."""
    site.mkdir(parents=True, exist_ok=True)
    shutil.copy(PLUGIN, site / "assay_echo.py")
    info = site / "assay_echo-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: assay-echo\nVersion: 0.1\n", encoding="utf-8"
    )
    (info / "entry_points.txt").write_text(ENTRY_POINTS, encoding="utf-8")
    return site


def suite(tmp_path: Path, target: str, grader: str) -> Path:
    shutil.copy(POLICY, tmp_path / "policy.jsonl")
    path = tmp_path / "suite.yaml"
    path.write_text(
        f"name: plugins\ndataset: policy.jsonl\ntarget: {target}\ngrader: {grader}\n",
        encoding="utf-8",
    )
    return path


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    path = install(tmp_path / "site")
    monkeypatch.syspath_prepend(str(path))
    yield path
    sys.modules.pop("assay_echo", None)


def test_a_plugin_target_and_grader_run_a_suite(site: Path, tmp_path: Path) -> None:
    path = suite(tmp_path, "{type: echo, wrong: [E2]}", "{type: fact_length, max_chars: 21}")
    store = open_store(f"sqlite:///{tmp_path / 'runs.db'}")
    try:
        result = run_suite(path, store)
    finally:
        store.close()
    assert result.status == "completed"
    rows = {row.id: row for row in result.report.cases}
    # E1's fact "return_window_30_days" has 21 chars; E2 answers "wrong"; abstentions fail.
    assert rows["E1"].status == "passed"
    assert rows["E2"].status == "passed"
    assert rows["E3"].status == "failed"
    assert {row.grader for row in rows.values()} == {"fact_length v1"}


def test_a_plugin_s_settings_are_checked_where_the_suite_names_them(
    site: Path, tmp_path: Path
) -> None:
    path = suite(tmp_path, "{type: echo, wrng: [E2]}", "structured")
    with pytest.raises(InputFormatError) as target_err:
        load_suite(path).build_target()
    assert "target.wrng" in str(target_err.value)
    path = suite(tmp_path, "{type: echo}", "{type: fact_length, max_chars: many}")
    with pytest.raises(InputFormatError) as grader_err:
        load_suite(path)
    assert "max_chars" in str(grader_err.value)
    assert "suite.yaml" in str(grader_err.value)


def test_a_plugin_that_cannot_be_loaded_is_named(site: Path, tmp_path: Path) -> None:
    path = suite(tmp_path, "{type: broken}", "structured")
    with pytest.raises(AssayConfigError, match=r"broken.*assay_echo:NOT_THERE"):
        load_suite(path).build_target()


def test_without_the_plugin_the_type_is_unknown(tmp_path: Path) -> None:
    path = suite(tmp_path, "{type: echo}", "structured")
    with pytest.raises(InputFormatError, match="unknown target type"):
        load_suite(path).build_target()


def test_the_cli_runs_a_suite_naming_installed_plugins(tmp_path: Path) -> None:
    site = install(tmp_path / "site")
    path = suite(tmp_path, "{type: echo, wrong: [E2]}", "{type: fact_length, max_chars: 21}")
    env = {**os.environ, "PYTHONPATH": str(site), "NO_COLOR": "1", "COLUMNS": "120"}
    out = tmp_path / "report.json"
    store = tmp_path / "r.db"
    args = ["run", str(path), "--store", str(store), "-f", "json", "-o", str(out)]
    done = subprocess.run(
        [sys.executable, "-m", "assay", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode in (0, 1), done.stderr
    report = json.loads(out.read_text(encoding="utf-8"))
    statuses = {row["id"]: row["status"] for row in report["cases"]}
    assert statuses["E1"] == "passed" and statuses["E3"] == "failed"
    assert {row["grader"] for row in report["cases"]} == {"fact_length v1"}


def test_the_built_in_target_types_are_declared_as_entry_points() -> None:
    import tomllib

    from assay.targets import target_types
    from assay.targets._registry import BUILTIN_TARGETS

    root = Path(__file__).resolve().parents[2]
    project = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    assert project["project"]["entry-points"]["assay.targets"] == BUILTIN_TARGETS
    assert sorted(target_types()) == sorted(BUILTIN_TARGETS)


def test_the_built_in_graders_are_declared_as_entry_points_and_resolved_through_them() -> None:
    import tomllib

    from assay.load._grader import SuiteGraderType
    from assay.load._grader_types import BUILTIN_GRADERS, grader_type, grader_type_names

    root = Path(__file__).resolve().parents[2]
    project = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    assert project["project"]["entry-points"]["assay.graders"] == BUILTIN_GRADERS
    assert grader_type_names()[:3] == ["structured", "composite", "judge"]
    for name in BUILTIN_GRADERS:
        assert isinstance(grader_type(name), SuiteGraderType)


def test_a_plugin_cannot_take_a_built_in_grader_name(tmp_path: Path, site: Path) -> None:
    from assay.grading import StructuredGrader

    info = site / "assay_echo-0.1.dist-info" / "entry_points.txt"
    info.write_text(ENTRY_POINTS + "structured = assay_echo:FACT_LENGTH\n", encoding="utf-8")
    path = suite(tmp_path, "{type: echo}", "structured")
    assert isinstance(load_suite(path).grader(), StructuredGrader)


def test_an_unknown_grader_is_refused_naming_its_place_and_the_known_names(
    site: Path, tmp_path: Path, run_assay: RunAssay
) -> None:
    path = suite(tmp_path, "{type: echo}", "{type: fact_lenght, max_chars: 21}")
    done = run_assay("run", path, "--store", tmp_path / "r.db")
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert f'{path}:4: grader "fact_lenght": unknown grader (did you mean "fact_length"?)' in (
        done.stderr
    )
    assert "choose one of structured, composite, judge, fact_length" in done.stderr
    assert not (tmp_path / "r.db").exists()


def _documented_plugin(site: Path) -> str:
    """The worked example of docs/extending.md installed into ``site`` as pip would; returns
    the suite the page shows."""
    import tomllib

    page = (Path(__file__).resolve().parents[2] / "docs" / "extending.md").read_text(
        encoding="utf-8"
    )
    blocks = re.findall(r"```(\w+)\n(.*?)```", page, flags=re.DOTALL)
    module = next(text for lang, text in blocks if lang == "python" and "# assay_echo.py" in text)
    toml = next(text for lang, text in blocks if lang == "toml" and "assay.graders" in text)
    yaml_suite = next(text for lang, text in blocks if lang == "yaml" and "fact_length" in text)
    site.mkdir(parents=True)
    (site / "assay_echo.py").write_text(module, encoding="utf-8")
    info = site / "assay_echo-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: assay-echo\nVersion: 0.1\n", encoding="utf-8"
    )
    groups = tomllib.loads(toml)["project"]["entry-points"]
    (info / "entry_points.txt").write_text(
        "".join(
            f"[{group}]\n" + "".join(f"{name} = {value}\n" for name, value in points.items())
            for group, points in groups.items()
        ),
        encoding="utf-8",
    )
    return str(yaml_suite)


def test_the_documented_plugin_runs_a_suite_through_the_cli(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run_assay: RunAssay
) -> None:
    site = tmp_path / "site"
    suite_text = _documented_plugin(site)
    monkeypatch.syspath_prepend(str(site))
    shutil.copy(POLICY, tmp_path / "policy.jsonl")
    (tmp_path / "suite.yaml").write_text(suite_text, encoding="utf-8")
    out = tmp_path / "report.json"
    try:
        done = run_assay(
            "run", "suite.yaml", "--store", "r.db", "-f", "json", "-o", out, cwd=tmp_path
        )
    finally:
        sys.modules.pop("assay_echo", None)
    assert done.returncode in (0, 1), done.stderr
    report = json.loads(out.read_text(encoding="utf-8"))
    statuses = {row["id"]: row["status"] for row in report["cases"]}
    # E1's fact has 21 chars and is echoed; E2 is answered "wrong" (5 chars); E3 abstains.
    assert (statuses["E1"], statuses["E2"], statuses["E3"]) == ("passed", "passed", "failed")
    assert {row["grader"] for row in report["cases"]} == {"fact_length v1"}


def test_register_grader_names_a_grader_for_this_process_but_never_a_built_in(
    tmp_path: Path,
) -> None:
    from assay.grading import GraderType
    from assay.load import register_grader
    from assay.load._grader_types import GRADER_TYPES

    sys.path.insert(0, str(PLUGIN.parent))
    try:
        import assay_echo

        with pytest.raises(ValueError, match="built in"):
            register_grader("judge", assay_echo.FACT_LENGTH)
        register_grader("short_fact", assay_echo.FACT_LENGTH)
        path = suite(tmp_path, "{type: scripted}", "{type: short_fact, max_chars: 21}")
        grader = load_suite(path).grader()
        assert grader.name == "fact_length"
        assert isinstance(assay_echo.FACT_LENGTH, GraderType)
    finally:
        GRADER_TYPES.pop("short_fact", None)
        sys.path.remove(str(PLUGIN.parent))
        sys.modules.pop("assay_echo", None)
