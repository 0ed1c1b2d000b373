"""Interoperation with other evaluation tools: importing their logs, exporting runs.

>>> runs = import_promptfoo(Path("export.json"))  # doctest: +SKIP
"""

from assay.interop._export import (
    COLUMNS,
    read_stored,
    to_csv,
    to_inspect,
    to_jsonl,
    to_parquet,
)
from assay.interop._imported import ImportedRun
from assay.interop._inspect import import_inspect
from assay.interop._promptfoo import import_promptfoo
from assay.interop._save import store_import, store_imports
from assay.interop._scores import ScoreRule, map_score, parse_threshold
from assay.interop._summary import side_by_side

__all__ = [
    "COLUMNS",
    "ImportedRun",
    "ScoreRule",
    "import_inspect",
    "import_promptfoo",
    "map_score",
    "parse_threshold",
    "read_stored",
    "side_by_side",
    "store_import",
    "store_imports",
    "to_csv",
    "to_inspect",
    "to_jsonl",
    "to_parquet",
]
