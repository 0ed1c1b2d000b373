"""Loading: files to the core's values, with every problem located by file and line."""

from __future__ import annotations

from typing import TYPE_CHECKING

from assay._lazy import lazy_exports

if TYPE_CHECKING:
    from assay.load._aside import ResultsAside
    from assay.load._changelog import append_change, changelog_path, read_changelog
    from assay.load._checks import (
        check_registry,
        load_composite_results,
        load_profile,
        registry_from,
    )
    from assay.load._files import NotStreamable, csv_case, load_dataset, load_results, plain_records
    from assay.load._grader import (
        PluginNotInstalled,
        grader_from_provenance,
        grader_provenance,
        plugin_grader,
    )
    from assay.load._grader_types import register_grader
    from assay.load._import import ImportSettings, csv_rows, hf_rows, import_rows, parse_mapping
    from assay.load._json import quick_line_decoder, text_lines
    from assay.load._judge import (
        CalibrationCheck,
        CalibrationRequirement,
        check_calibration,
        judge_calibration,
        load_judge,
        read_calibration,
    )
    from assay.load._labels import (
        judged_identity,
        load_labels,
        read_labels,
        rows_from_report,
    )
    from assay.load._limits import names_a_file
    from assay.load._lint import lint_file
    from assay.load._paths import file_refusal, named_path, path_exists
    from assay.load._prices import PriceTable, load_prices
    from assay.load._records import read_records, read_text
    from assay.load._report_file import composite_report_file, load_report_file
    from assay.load._sources import load_sources, merge_sources
    from assay.load._suite import Suite, SuiteSettings, load_suite
    from assay.load._variants import Variant, variants_of

# Each name is imported from its module on first use: scoring a results file does not load
# the suite, judge and price loaders.
_WHERE: dict[str, str] = {
    "csv_case": "assay.load._files",
    "judged_identity": "assay.load._labels",
    "load_labels": "assay.load._labels",
    "load_report_file": "assay.load._report_file",
    "composite_report_file": "assay.load._report_file",
    "rows_from_report": "assay.load._labels",
    "ImportSettings": "assay.load._import",
    "csv_rows": "assay.load._import",
    "hf_rows": "assay.load._import",
    "import_rows": "assay.load._import",
    "parse_mapping": "assay.load._import",
    "append_change": "assay.load._changelog",
    "read_changelog": "assay.load._changelog",
    "lint_file": "assay.load._lint",
    "Variant": "assay.load._variants",
    "variants_of": "assay.load._variants",
    "PluginNotInstalled": "assay.load._grader",
    "plugin_grader": "assay.load._grader",
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
    "ImportSettings",
    "NotStreamable",
    "PluginNotInstalled",
    "PriceTable",
    "ResultsAside",
    "Suite",
    "SuiteSettings",
    "Variant",
    "append_change",
    "changelog_path",
    "check_calibration",
    "check_registry",
    "composite_report_file",
    "csv_case",
    "csv_rows",
    "file_refusal",
    "grader_from_provenance",
    "grader_provenance",
    "hf_rows",
    "import_rows",
    "judge_calibration",
    "judged_identity",
    "lint_file",
    "load_composite_results",
    "load_dataset",
    "load_judge",
    "load_labels",
    "load_prices",
    "load_profile",
    "load_report_file",
    "load_results",
    "load_sources",
    "load_suite",
    "merge_sources",
    "named_path",
    "names_a_file",
    "parse_mapping",
    "path_exists",
    "plain_records",
    "plugin_grader",
    "quick_line_decoder",
    "read_calibration",
    "read_changelog",
    "read_labels",
    "read_records",
    "read_text",
    "register_grader",
    "registry_from",
    "rows_from_report",
    "text_lines",
    "variants_of",
]
