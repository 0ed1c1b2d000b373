"""Cases and datasets: the labelled questions a system under test is evaluated on."""

from assay.cases._canonical import (
    canonical_json,
    canonical_record,
    case_hash,
    content_hash,
    dataset_version,
)
from assay.cases._case import Case, Split
from assay.cases._coverage import (
    Cell,
    Coverage,
    CoverageProblem,
    cell_count,
    coverage_columns,
    coverage_html,
    coverage_json,
    coverage_matrix,
)
from assay.cases._dataset import Dataset, check_unique_ids
from assay.cases._diff import (
    FIELD_KINDS,
    KINDS,
    CaseChange,
    DatasetDiff,
    FieldChange,
    diff_datasets,
    diff_json,
    diff_lines,
)
from assay.cases._lint import Finding, lint_cases
from assay.cases._near import (
    Cluster,
    Member,
    NearSettings,
    find_clusters,
    jaccard,
    normalize_input,
    shingles,
)
from assay.cases._parse import RawRecord, parse_case, parse_dataset
from assay.cases._rubric import RUBRIC_FIELDS, DisallowedClaim, Provenance, RequiredFact
from assay.cases._sources import EMPTY_SOURCES, Snapshot, SourceLibrary
from assay.cases._split import Leak, Unit, assign_splits, find_leaks, units_of

__all__ = [
    "EMPTY_SOURCES",
    "FIELD_KINDS",
    "KINDS",
    "RUBRIC_FIELDS",
    "Case",
    "CaseChange",
    "Cell",
    "Cluster",
    "Coverage",
    "CoverageProblem",
    "Dataset",
    "DatasetDiff",
    "DisallowedClaim",
    "FieldChange",
    "Finding",
    "Leak",
    "Member",
    "NearSettings",
    "Provenance",
    "RawRecord",
    "RequiredFact",
    "Snapshot",
    "SourceLibrary",
    "Split",
    "Unit",
    "assign_splits",
    "canonical_json",
    "canonical_record",
    "case_hash",
    "cell_count",
    "check_unique_ids",
    "content_hash",
    "coverage_columns",
    "coverage_html",
    "coverage_json",
    "coverage_matrix",
    "dataset_version",
    "diff_datasets",
    "diff_json",
    "diff_lines",
    "find_clusters",
    "find_leaks",
    "jaccard",
    "lint_cases",
    "normalize_input",
    "parse_case",
    "parse_dataset",
    "shingles",
    "units_of",
]
