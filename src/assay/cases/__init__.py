"""Cases and datasets: the labelled questions a system under test is evaluated on."""

from __future__ import annotations

from typing import TYPE_CHECKING

from assay._lazy import lazy_exports

if TYPE_CHECKING:
    from assay.cases._canonical import (
        canonical_json,
        canonical_record,
        case_hash,
        content_hash,
        dataset_version,
        plain_case_text,
    )
    from assay.cases._case import Case
    from assay.cases._coverage import (
        Coverage,
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
        DatasetDiff,
        diff_datasets,
        diff_json,
        diff_lines,
    )
    from assay.cases._expect import (
        CallsInOrder,
        Expectation,
        MaxCalls,
        MaxSteps,
        NoCallAfterRefusal,
        StateEquals,
        SuccessClaims,
        ToolCalled,
        ToolNotCalled,
    )
    from assay.cases._layout import LAYOUT, RUBRIC_FIELDS, Layout
    from assay.cases._lint import Finding, lint_cases
    from assay.cases._near import (
        Cluster,
        NearSettings,
        find_clusters,
        jaccard,
        normalize_input,
        shingles,
    )
    from assay.cases._parse import parse_case, parse_dataset
    from assay.cases._plain import SPLITS, PlainCase, plain_canonical_text, plain_case
    from assay.cases._rubric import DisallowedClaim, Provenance, RequiredFact
    from assay.cases._sources import EMPTY_SOURCES, Snapshot, SourceLibrary
    from assay.cases._split import assign_splits, find_leaks, units_of

# Each name is imported from its module on first use: a command that only reads cases
# does not load the coverage, diff, lint, near-duplicate and split modules.
_WHERE: dict[str, str] = {
    "canonical_json": "assay.cases._canonical",
    "canonical_record": "assay.cases._canonical",
    "case_hash": "assay.cases._canonical",
    "content_hash": "assay.cases._canonical",
    "dataset_version": "assay.cases._canonical",
    "plain_case_text": "assay.cases._canonical",
    "Case": "assay.cases._case",
    "Coverage": "assay.cases._coverage",
    "cell_count": "assay.cases._coverage",
    "coverage_columns": "assay.cases._coverage",
    "coverage_html": "assay.cases._coverage",
    "coverage_json": "assay.cases._coverage",
    "coverage_matrix": "assay.cases._coverage",
    "Dataset": "assay.cases._dataset",
    "check_unique_ids": "assay.cases._dataset",
    "FIELD_KINDS": "assay.cases._diff",
    "KINDS": "assay.cases._diff",
    "DatasetDiff": "assay.cases._diff",
    "diff_datasets": "assay.cases._diff",
    "diff_json": "assay.cases._diff",
    "diff_lines": "assay.cases._diff",
    "CallsInOrder": "assay.cases._expect",
    "Expectation": "assay.cases._expect",
    "MaxCalls": "assay.cases._expect",
    "MaxSteps": "assay.cases._expect",
    "NoCallAfterRefusal": "assay.cases._expect",
    "StateEquals": "assay.cases._expect",
    "SuccessClaims": "assay.cases._expect",
    "ToolCalled": "assay.cases._expect",
    "ToolNotCalled": "assay.cases._expect",
    "Finding": "assay.cases._lint",
    "lint_cases": "assay.cases._lint",
    "Cluster": "assay.cases._near",
    "NearSettings": "assay.cases._near",
    "find_clusters": "assay.cases._near",
    "jaccard": "assay.cases._near",
    "normalize_input": "assay.cases._near",
    "shingles": "assay.cases._near",
    "parse_case": "assay.cases._parse",
    "parse_dataset": "assay.cases._parse",
    "LAYOUT": "assay.cases._layout",
    "RUBRIC_FIELDS": "assay.cases._layout",
    "Layout": "assay.cases._layout",
    "DisallowedClaim": "assay.cases._rubric",
    "Provenance": "assay.cases._rubric",
    "RequiredFact": "assay.cases._rubric",
    "EMPTY_SOURCES": "assay.cases._sources",
    "Snapshot": "assay.cases._sources",
    "SourceLibrary": "assay.cases._sources",
    "assign_splits": "assay.cases._split",
    "find_leaks": "assay.cases._split",
    "units_of": "assay.cases._split",
    "SPLITS": "assay.cases._plain",
    "PlainCase": "assay.cases._plain",
    "plain_canonical_text": "assay.cases._plain",
    "plain_case": "assay.cases._plain",
}

__getattr__, __dir__ = lazy_exports(globals(), _WHERE)


__all__ = [
    "EMPTY_SOURCES",
    "FIELD_KINDS",
    "KINDS",
    "LAYOUT",
    "RUBRIC_FIELDS",
    "SPLITS",
    "CallsInOrder",
    "Case",
    "Cluster",
    "Coverage",
    "Dataset",
    "DatasetDiff",
    "DisallowedClaim",
    "Expectation",
    "Finding",
    "Layout",
    "MaxCalls",
    "MaxSteps",
    "NearSettings",
    "NoCallAfterRefusal",
    "PlainCase",
    "Provenance",
    "RequiredFact",
    "Snapshot",
    "SourceLibrary",
    "StateEquals",
    "SuccessClaims",
    "ToolCalled",
    "ToolNotCalled",
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
    "plain_canonical_text",
    "plain_case",
    "plain_case_text",
    "shingles",
    "units_of",
]
