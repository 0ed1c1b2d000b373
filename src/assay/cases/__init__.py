"""Cases and datasets: the labelled questions a system under test is evaluated on."""

from assay.cases._canonical import (
    canonical_json,
    canonical_record,
    case_hash,
    content_hash,
    dataset_version,
)
from assay.cases._case import Case, ExpectedBehavior, Message, Split
from assay.cases._dataset import Dataset, check_unique_ids
from assay.cases._parse import RawRecord, parse_case, parse_dataset
from assay.cases._rubric import RUBRIC_FIELDS, DisallowedClaim, Provenance, RequiredFact
from assay.cases._sources import EMPTY_SOURCES, Snapshot, SourceLibrary

__all__ = [
    "EMPTY_SOURCES",
    "RUBRIC_FIELDS",
    "Case",
    "Dataset",
    "DisallowedClaim",
    "ExpectedBehavior",
    "Message",
    "Provenance",
    "RawRecord",
    "RequiredFact",
    "Snapshot",
    "SourceLibrary",
    "Split",
    "canonical_json",
    "canonical_record",
    "case_hash",
    "check_unique_ids",
    "content_hash",
    "dataset_version",
    "parse_case",
    "parse_dataset",
]
