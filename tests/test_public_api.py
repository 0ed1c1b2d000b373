"""The public namespace: ``assay.__all__`` is exactly this list, and every name imports.

Adding a public name is a decision: add it to ``assay/__init__.py`` and to ``PUBLIC`` here.
"""

from __future__ import annotations

import importlib
import inspect

import assay

PUBLIC = [
    "Abstain",
    "Answer",
    "AssayConfigError",
    "AssayError",
    "AssayInputError",
    "Case",
    "CaseResult",
    "Check",
    "CheckInput",
    "CheckResult",
    "CompositeResult",
    "CompositeScorer",
    "Dataset",
    "DuplicateCaseIdError",
    "DuplicateResultError",
    "Error",
    "BaseTarget",
    "CallingGrader",
    "Grader",
    "GraderType",
    "InputFormatError",
    "IntervalSetting",
    "Judgment",
    "Outcome",
    "Profile",
    "Rate",
    "Record",
    "Reply",
    "Report",
    "Results",
    "RunSide",
    "Status",
    "StructuredGrader",
    "Summary",
    "Target",
    "TargetContext",
    "TargetType",
    "TrialNumberError",
    "UnknownResultIdError",
    "__version__",
    "Comparison",
    "build_report",
    "compare_runs",
    "evaluate_gates",
    "grade",
    "load_dataset",
    "load_profile",
    "load_results",
    "load_suite",
    "open_store",
    "plan",
    "rate",
    "report_for_run",
    "run_suite",
    "run_suite_async",
    "runs_frame",
    "score_files",
    "summarize",
]


def test_all_is_exactly_the_public_list() -> None:
    assert sorted(assay.__all__) == sorted(PUBLIC)
    assert len(set(assay.__all__)) == len(assay.__all__)


def test_every_public_name_is_importable() -> None:
    module = importlib.import_module("assay")
    for name in PUBLIC:
        assert getattr(module, name) is not None, name


def test_input_errors_share_one_base() -> None:
    for error in (
        assay.DuplicateCaseIdError,
        assay.UnknownResultIdError,
        assay.DuplicateResultError,
        assay.TrialNumberError,
        assay.InputFormatError,
    ):
        assert issubclass(error, assay.AssayInputError)
    assert issubclass(assay.AssayInputError, assay.AssayError)
    assert issubclass(assay.AssayConfigError, assay.AssayError)


def test_public_classes_say_what_they_are() -> None:
    for name in PUBLIC:
        value = getattr(assay, name)
        if inspect.isclass(value) or inspect.isfunction(value):
            assert (getattr(value, "__doc__", None) or "").strip(), f"{name} has no docstring"


def test_the_names_imported_for_type_checkers_are_the_exported_ones() -> None:
    import ast
    from pathlib import Path

    source = Path(assay.__file__).read_text(encoding="utf-8")
    typed: dict[str, str] = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING":
            for imp in node.body:
                assert isinstance(imp, ast.ImportFrom) and imp.module is not None
                typed.update({alias.name: imp.module for alias in imp.names})
    assert typed == assay._EXPORTS
