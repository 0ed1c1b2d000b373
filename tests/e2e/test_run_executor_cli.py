"""``assay run --executor/--address``: wrong combinations are refused before anything runs
(exit 2, one line naming the option, no traceback)."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import RunAssay


def _suite(tmp_path: Path, policy_dir: Path) -> Path:
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        f"dataset: {policy_dir / 'policy.jsonl'}\n"
        "target:\n  type: scripted\n  default: {kind: abstain}\ntrace: false\n"
    )
    return suite


def test_an_unknown_executor_is_refused(
    run_assay: RunAssay, tmp_path: Path, policy_dir: Path
) -> None:
    store = f"sqlite:///{tmp_path / 'a.db'}"
    done = run_assay("run", _suite(tmp_path, policy_dir), "--executor", "dask", "--store", store)
    assert done.returncode == 2
    assert "--executor dask: must be local or ray" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "a.db").exists()


def test_an_address_needs_the_ray_executor(
    run_assay: RunAssay, tmp_path: Path, policy_dir: Path
) -> None:
    done = run_assay("run", _suite(tmp_path, policy_dir), "--address", "auto")
    assert done.returncode == 2
    assert "--address joins a Ray cluster: give --executor ray too" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_matrix_is_not_run_on_ray(run_assay: RunAssay, tmp_path: Path, policy_dir: Path) -> None:
    store = f"sqlite:///{tmp_path / 'a.db'}"
    suite = _suite(tmp_path, policy_dir)
    done = run_assay(
        "run", suite, "--executor", "ray", "--set", "grader=structured", "--store", store
    )
    assert done.returncode == 2
    assert "--executor ray runs one suite at a time, not a matrix" in done.stderr
    assert "Traceback" not in done.stderr
