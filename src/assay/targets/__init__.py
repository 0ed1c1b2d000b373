"""Targets: the systems under test, one small protocol and one module per kind.

>>> target = build_target({"type": "scripted", "outcomes": {"E1": {"kind": "abstain"}}})
>>> target.name
'scripted'
"""

from assay.targets._base import BaseTarget, Reply, Target, TargetContext, TargetType
from assay.targets._registry import (
    build_target,
    register_target,
    target_types,
)
from assay.targets._replies import (
    ENV_NAME,
    RETRYABLE,
    as_reply,
    error_reply,
    exception_reply,
    outcome_from_mapping,
    refuse_non_text,
    retry_after_seconds,
    scrub,
    usage_from,
    with_traceback,
)
from assay.targets._session import HttpClient

__all__ = [
    "ENV_NAME",
    "RETRYABLE",
    "BaseTarget",
    "HttpClient",
    "Reply",
    "Target",
    "TargetContext",
    "TargetType",
    "as_reply",
    "build_target",
    "error_reply",
    "exception_reply",
    "outcome_from_mapping",
    "refuse_non_text",
    "register_target",
    "retry_after_seconds",
    "scrub",
    "target_types",
    "usage_from",
    "with_traceback",
]
