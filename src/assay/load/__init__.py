"""Loading: files to the core's values, with every problem located by file and line."""

from assay.load._checks import (
    check_registry,
    load_composite_results,
    load_profile,
    registry_from,
)
from assay.load._files import load_dataset, load_results
from assay.load._grader import (
    grader_from_provenance,
    grader_provenance,
)
from assay.load._grader_types import register_grader
from assay.load._judge import (
    CalibrationCheck,
    CalibrationRequirement,
    JudgeSettings,
    check_calibration,
    load_judge,
)
from assay.load._limits import names_a_file
from assay.load._prices import PriceTable, load_prices
from assay.load._records import read_records, read_text
from assay.load._sources import load_sources, merge_sources
from assay.load._suite import Suite, SuiteSettings, load_suite

__all__ = [
    "CalibrationCheck",
    "CalibrationRequirement",
    "JudgeSettings",
    "PriceTable",
    "Suite",
    "SuiteSettings",
    "check_calibration",
    "check_registry",
    "grader_from_provenance",
    "grader_provenance",
    "load_composite_results",
    "load_dataset",
    "load_judge",
    "load_prices",
    "load_profile",
    "load_results",
    "load_sources",
    "load_suite",
    "merge_sources",
    "names_a_file",
    "read_records",
    "read_text",
    "register_grader",
    "registry_from",
]
