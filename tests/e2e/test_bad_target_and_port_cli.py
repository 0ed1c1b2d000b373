"""Bad input at start-up is one message and exit 2, never a traceback: a function target
whose module does not compile or raises while imported, a dotted callable path, and
``assay view`` on a port already in use."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from tests.inprocess import run_inprocess
from tests.run_stores import fill_store

POLICY = Path(__file__).resolve().parents[2] / "examples" / "policy"


def _suite(tmp_path: Path, module: str, source: str, spec: str) -> Path:
    (tmp_path / f"{module}.py").write_text(source, encoding="utf-8")
    (tmp_path / "policy.jsonl").write_bytes((POLICY / "policy.jsonl").read_bytes())
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        f"dataset: policy.jsonl\ntarget: {{type: function, callable: '{spec}'}}\n",
        encoding="utf-8",
    )
    return suite


@pytest.mark.parametrize(
    ("module", "source", "spec", "message"),
    [
        (
            "broken_syntax",
            "def answer(case:\n",
            "broken_syntax:answer",
            "broken_syntax has a syntax error (at {dir}/broken_syntax.py:1): '(' was never closed",
        ),
        (
            "raises_on_import",
            "import os\nraise RuntimeError('no API key set')\n",
            "raises_on_import:answer",
            "importing raises_on_import raised RuntimeError: no API key set "
            "(at {dir}/raises_on_import.py:2)",
        ),
        (
            "exits_on_import",
            "import sys\nsys.exit(3)\n",
            "exits_on_import:answer",
            "importing exits_on_import raised SystemExit: 3",
        ),
        (
            "dotted",
            "def answer(case):\n    return None\n",
            "dotted.answer",
            "target.callable: 'dotted.answer' is not module:function (a module path, a colon, "
            "then the function's name, e.g. my_app.eval:answer); did you mean 'dotted:answer'?",
        ),
    ],
)
def test_a_bad_function_target_is_one_message(
    module: str,
    source: str,
    spec: str,
    message: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    suite = _suite(tmp_path, module, source, spec)
    done = run_inprocess(capsys, "run", suite, "--store", tmp_path / "assay.db")
    assert done.returncode == 2
    assert message.format(dir=tmp_path) in done.stderr
    assert "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) <= 2


def test_view_on_a_busy_port_is_one_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = fill_store(f"sqlite:///{tmp_path / 'assay.db'}")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        done = run_inprocess(capsys, "view", "--store", store, "--port", str(port))
    assert done.returncode == 2
    assert done.stderr == (
        f"assay: assay view cannot listen on 127.0.0.1:{port}: Address already in use; "
        "choose another port with --port\n"
    )
