"""Scoring a results file against a dataset file (``assay score``): ``score_files`` makes
the report the quickest way the files allow, the same report every way."""

from assay.scoring._files import score_files

__all__ = ["score_files"]
