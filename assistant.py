"""The system under test for the starter suite: replace ``answer`` with a call to your app.

``answer`` receives an ``assay.Case`` and returns an outcome: ``{"kind": "answer",
"fact": ..., "text": ...}`` or ``{"kind": "abstain"}``. It may be ``async``.
"""

from __future__ import annotations

from typing import Any


def answer(case: Any) -> dict[str, Any]:
    question = case.prompt.lower()
    if "custom" in question:
        return {"kind": "answer", "fact": "custom_excluded", "text": "Custom items are final sale."}
    if "return" in question:
        return {"kind": "answer", "fact": "return_window_30_days", "text": "Within 30 days."}
    return {"kind": "abstain", "reason": "the policy does not say"}
