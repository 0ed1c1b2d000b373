"""Comparing two runs over the same cases: pairing, McNemar, newly fixed and newly broken.

The comparison renders through ``assay.render.comparison`` (and a matrix through
``assay.render.matrix``): this package computes, the render layer writes.
"""

from assay.compare._compare import check_same_judge, classify, compare_runs
from assay.compare._describe import p_text
from assay.compare._divergence import DivergedCall, Divergence, divergence, divergence_text
from assay.compare._margin import non_inferiority, shows_not_worse
from assay.compare._matrix import (
    GridRow,
    MatrixReport,
    PairRow,
    VariantInput,
    VariantRow,
    best_not_worse,
    build_matrix,
    matrix_schema,
)
from assay.compare._model import (
    COMPARE_SCHEMA_VERSION,
    ChangedCase,
    Comparison,
    Delta,
    Excluded,
    McNemar,
    NonInferiority,
    SideOutcome,
    SliceDelta,
    WorstCase,
    comparison_schema,
)
from assay.compare._pairing import (
    SYNTHETIC_EXCLUDED,
    ComparisonRefusedError,
    RunSide,
    pair_runs,
)
from assay.compare._tally import PairItem, SideFacts, UnknownStatus, tally_comparison

__all__ = [
    "COMPARE_SCHEMA_VERSION",
    "SYNTHETIC_EXCLUDED",
    "ChangedCase",
    "Comparison",
    "ComparisonRefusedError",
    "Delta",
    "DivergedCall",
    "Divergence",
    "Excluded",
    "GridRow",
    "MatrixReport",
    "McNemar",
    "NonInferiority",
    "PairItem",
    "PairRow",
    "RunSide",
    "SideFacts",
    "SideOutcome",
    "SliceDelta",
    "UnknownStatus",
    "VariantInput",
    "VariantRow",
    "WorstCase",
    "best_not_worse",
    "build_matrix",
    "check_same_judge",
    "classify",
    "compare_runs",
    "comparison_schema",
    "divergence",
    "divergence_text",
    "matrix_schema",
    "non_inferiority",
    "p_text",
    "pair_runs",
    "shows_not_worse",
    "tally_comparison",
]
