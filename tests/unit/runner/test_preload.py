"""The report's imports start in a thread while a run waits on its target."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from assay.runner._preload import preload, report_needs_special


def test_preload_imports_the_modules_in_a_daemon_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "assay_preload_probe.py").write_text("LOADED = True\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "assay_preload_probe", raising=False)
    thread = preload(("assay_preload_probe",))
    assert thread.daemon
    thread.join(timeout=30)
    assert sys.modules["assay_preload_probe"].LOADED is True


def test_a_module_that_fails_to_import_is_left_to_the_caller() -> None:
    thread = preload(("assay_no_such_module_anywhere", "json"))
    thread.join(timeout=30)
    assert not thread.is_alive()
    assert "assay_no_such_module_anywhere" not in sys.modules
    assert "json" in sys.modules


def test_a_named_function_is_called_after_the_import(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "assay_preload_call.py").write_text(
        "CALLED = []\ndef warm():\n    CALLED.append(1)\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "assay_preload_call", raising=False)
    thread = preload(("assay_preload_call:warm",))
    thread.join(timeout=30)
    assert sys.modules["assay_preload_call"].CALLED == [1]


def test_only_a_big_or_repeated_run_needs_scipy_for_its_report() -> None:
    from assay.metrics import _beta_table

    largest = _beta_table.LARGEST_N
    assert not report_needs_special(1, 1)
    assert not report_needs_special(largest, 1)
    assert report_needs_special(largest + 1, 1)
    assert report_needs_special(1, 2)  # intervals clustered by case: Student's t
