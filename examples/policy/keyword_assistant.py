"""A deliberately naive returns-policy assistant for the example suite.

It matches keywords instead of reading the policy, so it misses the personalised-item
exception (E6): a realistic failure for the report to show.
"""

from __future__ import annotations

from typing import Any

from assay.cases import Case


def answer(case: Case) -> dict[str, Any]:
    """The outcome for one case, as a flat outcome mapping."""
    question = case.prompt.lower()
    if "defect" in question:
        return {"kind": "answer", "fact": "defect_window_7_days", "text": "Within 7 days."}
    if "custom" in question:
        return {"kind": "answer", "fact": "custom_excluded", "text": "Custom items are excluded."}
    if "return" in question and ("days" in question or "how long" in question):
        return {"kind": "answer", "fact": "return_window_30_days", "text": "Within 30 days."}
    return {"kind": "abstain", "reason": "the policy does not say"}
