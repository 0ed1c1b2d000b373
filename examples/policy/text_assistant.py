"""A deliberately naive returns-policy assistant that answers in free text with citations.

Like ``keyword_assistant`` it matches keywords instead of reading the policy, so it tells
the photo-mug customer (E6) that the standard 30-day window applies, and it abstains on a
question it does not recognise (E7). It also cites a stale section id beside the right one
for defects (E5): a low-weight citation slip that the composite scorer forgives and the
strict all-checks verdict does not. Graded by ``suite-composite.yaml``.
"""

from __future__ import annotations

from typing import Any

from assay.cases import Case


def answer(case: Case) -> dict[str, Any]:
    """The free-text outcome for one case, as a flat outcome mapping."""
    question = case.prompt.lower()
    if "defect" in question:
        return {
            "kind": "answer",
            "text": "Report a defective item within 7 days of delivery.",
            "citations": ["defects", "defects-v2"],
        }
    if "custom" in question:
        return {
            "kind": "answer",
            "text": "Custom-printed products are excluded from returns.",
            "citations": ["custom-exception"],
        }
    if "return" in question and ("days" in question or "how long" in question):
        return {
            "kind": "answer",
            "text": "Items can be returned within 30 days of delivery for a full refund.",
            "citations": ["standard-window"],
        }
    return {"kind": "abstain", "reason": "The return policy does not cover this question."}
