"""Building small cases for the dataset-discipline tests."""

from __future__ import annotations

from typing import Any

from assay.cases import Case


def case(case_id: str, question: str, **fields: Any) -> Case:
    """An answer case (or an abstention with ``expected_behavior="abstain"``) with defaults."""
    data: dict[str, Any] = {
        "id": case_id,
        "slice": "standard",
        "question": question,
        "expected_behavior": "answer",
        "expected_fact": "fact",
        "rationale": "because",
    }
    data.update(fields)
    if data["expected_behavior"] == "abstain":
        data.pop("expected_fact", None)
    return Case.model_validate(data)
