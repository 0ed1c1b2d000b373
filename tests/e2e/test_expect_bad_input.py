"""A case's ``expect`` list is checked when the dataset loads: a bad expectation is exit
code 2 and one message naming file, line and field, with the closest kind."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

RunAssay = Callable[..., subprocess.CompletedProcess[str]]


def test_bad_expectations_name_file_line_and_field(
    tmp_path: Path, policy_dir: Path, run_assay: RunAssay
) -> None:
    shutil.copy(policy_dir / "results.jsonl", tmp_path / "results.jsonl")
    (tmp_path / "d.yaml").write_text(
        "name: agent\n"
        "cases:\n"
        "  - id: E1\n"
        "    slice: tool\n"
        "    question: Start a return for A1001.\n"
        "    expected_behavior: abstain\n"
        "    expect:\n"
        "      - tool_caled: start_return\n"
        "  - id: E3\n"
        "    slice: tool\n"
        "    question: Start a return for A1002.\n"
        "    expected_behavior: abstain\n"
        "    expect:\n"
        "      - tool_called: start_return\n"
        "        args_match: {order: 'A(1'}\n"
        "      - max_steps: -1\n"
    )
    done = run_assay("score", "d.yaml", "results.jsonl", cwd=tmp_path)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert done.stdout == "" and "Traceback" not in done.stderr
    for needle in (
        'd.yaml:3: expect: [0] unknown expectation kind "tool_caled" (did you mean "tool_called"?)',
        "d.yaml:9: expect[0].tool_called.args_match: 'A(1' is not a regular expression",
        "d.yaml:9: expect[1].max_steps.max_steps: input should be greater than or equal to 0",
    ):
        assert needle in done.stderr, done.stderr
