"""Diagnosis: a failed case-trial and its spans to the stage that caused the failure.

Pure: spans, records and judgments in, a ``Finding`` out (rules in docs/diagnose.md).

>>> finding = diagnose(case, record, judgment, spans)   # doctest: +SKIP
>>> finding.stage                                       # doctest: +SKIP
'context_assembly'
"""

from assay.diagnose._finding import Finding, Stage, group_by_stage
from assay.diagnose._rules import diagnose
from assay.diagnose._tree import TreeRow, span_tree
from assay.diagnose._views import Diagnosis, TraceView

__all__ = [
    "Diagnosis",
    "Finding",
    "Stage",
    "TraceView",
    "TreeRow",
    "diagnose",
    "group_by_stage",
    "span_tree",
]
