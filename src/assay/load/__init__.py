"""Loading: files to the core's values, with every problem located by file and line."""

from assay.load._files import load_dataset, load_results
from assay.load._records import read_records, read_text

__all__ = ["load_dataset", "load_results", "read_records", "read_text"]
