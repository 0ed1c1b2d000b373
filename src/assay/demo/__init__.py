"""The fictional policy assistant: a small instrumented RAG and agent app to evaluate.

``DemoTarget("v1")`` runs it as a target; ``CONFIGURATIONS`` lists its versions.
"""

from assay.demo._bm25 import BM25, tokenize
from assay.demo._config import CONFIGURATIONS, configuration
from assay.demo._target import DEMO_TARGET, DemoSettings, DemoTarget

__all__ = [
    "BM25",
    "CONFIGURATIONS",
    "DEMO_TARGET",
    "DemoSettings",
    "DemoTarget",
    "configuration",
    "tokenize",
]
