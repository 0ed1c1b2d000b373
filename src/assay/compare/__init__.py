"""Comparing two runs over the same cases: pairing, McNemar, newly fixed and newly broken."""

from assay.compare._compare import classify, compare_runs, config_diff, plain_words
from assay.compare._gates import NO_NEW_FAILURES, CompareGate, check_gate
from assay.compare._matrix import (
    MATRIX_SCHEMA_VERSION,
    GridRow,
    MatrixReport,
    MatrixTest,
    PairRow,
    UsageTotals,
    VariantInput,
    VariantRow,
    build_matrix,
    matrix_schema,
)
from assay.compare._matrix_render import MATRIX_FORMATS, render_matrix
from assay.compare._model import (
    COMPARE_SCHEMA_VERSION,
    ChangedCase,
    Comparison,
    ConfigChange,
    Delta,
    Excluded,
    McNemar,
    Moved,
    RunRef,
    SideOutcome,
    SliceDelta,
    comparison_schema,
)
from assay.compare._pairing import ComparisonRefusedError, Pairing, RunSide, pair_runs
from assay.compare._render import FORMATS, delta_text, render_comparison

__all__ = [
    "COMPARE_SCHEMA_VERSION",
    "FORMATS",
    "MATRIX_FORMATS",
    "MATRIX_SCHEMA_VERSION",
    "NO_NEW_FAILURES",
    "ChangedCase",
    "CompareGate",
    "Comparison",
    "ComparisonRefusedError",
    "ConfigChange",
    "Delta",
    "Excluded",
    "GridRow",
    "MatrixReport",
    "MatrixTest",
    "McNemar",
    "Moved",
    "PairRow",
    "Pairing",
    "RunRef",
    "RunSide",
    "SideOutcome",
    "SliceDelta",
    "UsageTotals",
    "VariantInput",
    "VariantRow",
    "build_matrix",
    "check_gate",
    "classify",
    "compare_runs",
    "comparison_schema",
    "config_diff",
    "delta_text",
    "matrix_schema",
    "pair_runs",
    "plain_words",
    "render_comparison",
    "render_matrix",
]
