"""The benchmark workload, shared by every driver: cases and the chat request they become.

Standard library only: the inspect_ai driver imports it from a separate virtualenv.
Each question names its fact as ``[fact:fN]`` so the mock answers it correctly and every
case passes grading.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

MODEL = "mock-model"
SYSTEM_PROMPT = "Answer the policy question. Reply with the JSON outcome only."
OUTCOME_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "kind": {"type": "string", "enum": ["answer", "abstain"]},
        "fact": {"type": ["string", "null"]},
        "text": {"type": ["string", "null"]},
        "citations": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["kind", "fact", "text", "citations"],
    "additionalProperties": False,
}


def cases(n: int) -> list[dict[str, Any]]:
    """``n`` dataset records in assay's canonical shape, each expecting its own fact."""
    return [
        {
            "id": f"case-{i:05d}",
            "slice": f"slice-{i % 4}",
            "question": f"Which rule applies to request {i}? [fact:f{i}]",
            "expected_behavior": "answer",
            "expected_fact": f"f{i}",
        }
        for i in range(n)
    ]


def chat_request(question: str) -> dict[str, Any]:
    """The chat-completions body a client sends for one question."""
    return {
        "model": MODEL,
        "messages": [
            {"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": question},
        ],
        "temperature": 0.0,
        "seed": 1,
        "response_format": {
            "type": "json_schema",
            "json_schema": {"name": "outcome", "schema": OUTCOME_SCHEMA, "strict": True},
        },
    }


def write_dataset(path: Path, n: int) -> Path:
    """Write ``n`` cases as JSONL to ``path``."""
    path.write_text("".join(json.dumps(record) + "\n" for record in cases(n)))
    return path
