"""The fictional policy assistant: a small instrumented RAG and agent app to evaluate.

``DemoTarget("v1")`` runs it as a target; ``CONFIGURATIONS`` lists its versions.
"""

from assay.demo._assistant import ask
from assay.demo._bm25 import BM25, tokenize
from assay.demo._config import CONFIGURATIONS, DemoConfig, configuration
from assay.demo._policy import CORPORA, CURRENT_REVISION, Section, corpus
from assay.demo._target import DEMO_TARGET, DemoSettings, DemoTarget

__all__ = [
    "BM25",
    "CONFIGURATIONS",
    "CORPORA",
    "CURRENT_REVISION",
    "DEMO_TARGET",
    "DemoConfig",
    "DemoSettings",
    "DemoTarget",
    "Section",
    "ask",
    "configuration",
    "corpus",
    "tokenize",
]
