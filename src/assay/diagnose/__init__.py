"""Diagnosis: a failed case-trial and its spans to the stage that caused the failure.

Pure: spans, records and judgments in, a ``Finding`` out (rules in docs/diagnose.md).

>>> finding = diagnose(case, record, judgment, spans)   # doctest: +SKIP
>>> finding.stage                                       # doctest: +SKIP
'context_assembly'
"""

from assay.diagnose._evidence import Verdict, got
from assay.diagnose._finding import STAGES, Finding, Stage, group_by_stage
from assay.diagnose._rules import RULES, diagnose
from assay.diagnose._spans import stage_of
from assay.diagnose._tree import TreeRow, span_tree

__all__ = [
    "RULES",
    "STAGES",
    "Finding",
    "Stage",
    "TreeRow",
    "Verdict",
    "diagnose",
    "got",
    "group_by_stage",
    "span_tree",
    "stage_of",
]
