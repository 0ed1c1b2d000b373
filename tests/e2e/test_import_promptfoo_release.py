"""The current promptfoo release, run offline, then `assay import promptfoo` of its file:
each imported run holds its column's rows, no more, with the column's passes and errors.

``scripts/setup-promptfoo.sh`` installs the pinned release into ``.promptfoo/`` when it is
not there yet (a few minutes, once). The tests are skipped, with the script's reason, only
when that install is impossible; an installed promptfoo that fails is a failure.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from tests.conftest import ROOT, RunAssay
from tests.interop_logs import DATA, promptfoo_columns

SETUP = ROOT / "scripts" / "setup-promptfoo.sh"
CONFIG = DATA / "promptfoo" / "offline"
IMPOSSIBLE = 3  # setup-promptfoo.sh's exit code when the install cannot be done here
FAILED_TESTS = 100  # promptfoo eval's exit code when some test failed
EVAL_TIMEOUT_S = 300

pytestmark = pytest.mark.promptfoo

ANNOUNCED = re.compile(
    r"\((?P<name>[^;\n]+); sha256:\S+\) as run \S+: (?P<total>\d+) case-trials\n"
    r"  .*assay: task success (?P<passed>\d+)/(?P<of>\d+) .*?, (?P<errors>\d+) errors, "
    r"(?P<missing>\d+) missing, (?P<ungraded>\d+) ungraded"
)


def promptfoo_binary() -> Path:
    """The installed promptfoo wrapper, installing it first when needed; skips the calling
    test when the install is impossible on this machine."""
    got = subprocess.run(
        ["bash", str(SETUP)], capture_output=True, text=True, cwd=ROOT, check=False
    )
    if got.returncode == IMPOSSIBLE:
        pytest.skip(f"no promptfoo: {got.stderr.strip().splitlines()[-1]}")
    if got.returncode != 0:
        pytest.fail(f"scripts/setup-promptfoo.sh failed ({got.returncode}):\n{got.stderr[-3000:]}")
    return Path(got.stdout.strip().splitlines()[-1])


def _offline(home: Path) -> dict[str, str]:
    """promptfoo's environment: no telemetry, update check or sharing, and a home of its
    own (two evals at once must not share promptfoo's database)."""
    home.mkdir()
    return {
        **os.environ,
        "HOME": str(home),
        "PROMPTFOO_CONFIG_DIR": str(home / ".promptfoo"),
        "PROMPTFOO_DISABLE_TELEMETRY": "1",
        "PROMPTFOO_DISABLE_UPDATE": "1",
        "PROMPTFOO_DISABLE_SHARING": "1",
        "NO_COLOR": "1",
    }


@pytest.fixture(scope="module")
def outputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """``promptfoo eval`` of the offline config, once plainly and once with ``--repeat 2``
    (the two at once: promptfoo takes seconds to start), fully offline."""
    binary = promptfoo_binary()
    folder = tmp_path_factory.mktemp("promptfoo")
    for name in ("promptfooconfig.yaml", "provider.js"):
        shutil.copy(CONFIG / name, folder / name)
    runs = {"plain": [], "repeat": ["--repeat", "2"]}
    started = {
        name: subprocess.Popen(
            [
                str(binary),
                "eval",
                "-c",
                "promptfooconfig.yaml",
                "--no-cache",
                "--no-progress-bar",
                "--no-write",
                "-o",
                f"{name}.json",
                *extra,
            ],
            cwd=folder,
            env=_offline(folder / f"home-{name}"),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for name, extra in runs.items()
    }
    written = {}
    for name, process in started.items():
        log, _ = process.communicate(timeout=EVAL_TIMEOUT_S)
        output = folder / f"{name}.json"
        if process.returncode not in (0, FAILED_TESTS) or not output.exists():
            pytest.fail(f"promptfoo eval ({name}) exited {process.returncode}:\n{log[-3000:]}")
        written[name] = output
    return written


@pytest.mark.parametrize("name", ["plain", "repeat"])
def test_each_imported_run_holds_its_columns_rows(
    outputs: dict[str, Path], name: str, run_assay: RunAssay, tmp_path: Path
) -> None:
    path = outputs[name]
    columns = promptfoo_columns(path)
    # 2 prompts x 2 providers, and a third provider given the long prompt only
    assert len(columns) == 5
    assert {c["rows"] for c in columns.values()} == {4 if name == "plain" else 8}
    done = run_assay("import", "promptfoo", path, "--store", f"sqlite:///{tmp_path / 'a.db'}")
    assert done.returncode == 0, done.stderr
    assert "5 prompt × provider columns as variants" in done.stdout
    announced = {m["name"]: m for m in ANNOUNCED.finditer(done.stdout)}
    assert set(announced) == set(columns)
    for head, counts in columns.items():
        shown = announced[head]
        figures = {k: int(shown[k]) for k in ("total", "of", "passed", "errors", "missing")}
        assert figures == {
            "total": counts["rows"],
            "of": counts["rows"],
            "passed": counts["passed"],
            "errors": counts["errors"],
            "missing": 0,
        }, head
    # the config makes every kind of row: passes, assertion failures and provider errors
    assert sum(c["passed"] for c in columns.values()) > 0
    assert sum(c["failed"] for c in columns.values()) > 0
    assert columns["[flaky] long"]["errors"] == (1 if name == "plain" else 2)
