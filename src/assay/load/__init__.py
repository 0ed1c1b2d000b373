"""Loading: files to the core's values, with every problem located by file and line."""

from __future__ import annotations

from typing import TYPE_CHECKING

from assay._lazy import lazy_exports

if TYPE_CHECKING:
    from assay.load._aside import ResultsAside
    from assay.load._changelog import changelog_path
    from assay.load._checks import (
        check_registry,
        load_composite_results,
        load_profile,
        registry_from,
    )
    from assay.load._files import NotStreamable, load_dataset, load_results, plain_records
    from assay.load._grader import (
        grader_from_provenance,
        grader_provenance,
    )
    from assay.load._grader_types import register_grader
    from assay.load._json import quick_line_decoder, text_lines
    from assay.load._judge import (
        CalibrationCheck,
        CalibrationRequirement,
        check_calibration,
        judge_calibration,
        load_judge,
        read_calibration,
    )
    from assay.load._labels import read_labels
    from assay.load._limits import names_a_file
    from assay.load._paths import file_refusal, named_path, path_exists
    from assay.load._prices import PriceTable, load_prices
    from assay.load._records import read_records, read_text
    from assay.load._sources import load_sources, merge_sources
    from assay.load._suite import Suite, SuiteSettings, load_suite

# Each name is imported from its module on first use: scoring a results file does not load
# the suite, judge and price loaders.
_WHERE: dict[str, str] = {
    "check_registry": "assay.load._checks",
    "load_composite_results": "assay.load._checks",
    "load_profile": "assay.load._checks",
    "registry_from": "assay.load._checks",
    "load_dataset": "assay.load._files",
    "load_results": "assay.load._files",
    "NotStreamable": "assay.load._files",
    "plain_records": "assay.load._files",
    "grader_from_provenance": "assay.load._grader",
    "grader_provenance": "assay.load._grader",
    "register_grader": "assay.load._grader_types",
    "CalibrationCheck": "assay.load._judge",
    "CalibrationRequirement": "assay.load._judge",
    "check_calibration": "assay.load._judge",
    "judge_calibration": "assay.load._judge",
    "read_calibration": "assay.load._judge",
    "load_judge": "assay.load._judge",
    "read_labels": "assay.load._labels",
    "names_a_file": "assay.load._limits",
    "file_refusal": "assay.load._paths",
    "named_path": "assay.load._paths",
    "path_exists": "assay.load._paths",
    "PriceTable": "assay.load._prices",
    "load_prices": "assay.load._prices",
    "read_records": "assay.load._records",
    "read_text": "assay.load._records",
    "load_sources": "assay.load._sources",
    "merge_sources": "assay.load._sources",
    "Suite": "assay.load._suite",
    "SuiteSettings": "assay.load._suite",
    "load_suite": "assay.load._suite",
    "changelog_path": "assay.load._changelog",
    "ResultsAside": "assay.load._aside",
    "quick_line_decoder": "assay.load._json",
    "text_lines": "assay.load._json",
}

__getattr__, __dir__ = lazy_exports(globals(), _WHERE)


__all__ = [
    "CalibrationCheck",
    "CalibrationRequirement",
    "NotStreamable",
    "PriceTable",
    "ResultsAside",
    "Suite",
    "SuiteSettings",
    "changelog_path",
    "check_calibration",
    "check_registry",
    "file_refusal",
    "grader_from_provenance",
    "grader_provenance",
    "judge_calibration",
    "load_composite_results",
    "load_dataset",
    "load_judge",
    "load_prices",
    "load_profile",
    "load_results",
    "load_sources",
    "load_suite",
    "merge_sources",
    "named_path",
    "names_a_file",
    "path_exists",
    "plain_records",
    "quick_line_decoder",
    "read_calibration",
    "read_labels",
    "read_records",
    "read_text",
    "register_grader",
    "registry_from",
    "text_lines",
]
