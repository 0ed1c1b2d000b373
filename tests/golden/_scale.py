"""A generated dataset and results file of a few thousand cases, deterministic, with every
kind of row a large report holds: trials, synthetic and held-out cases, abstentions, errors,
missing trials, free text, rubric fields and metadata."""

from __future__ import annotations

import json
import random
from pathlib import Path


def write_scale_inputs(directory: Path, n: int = 5_000, seed: int = 11) -> tuple[Path, Path]:
    """``cases.jsonl`` and ``results.jsonl`` (two trials per case) in ``directory``."""
    rng = random.Random(seed)
    cases, results = directory / "cases.jsonl", directory / "results.jsonl"
    with cases.open("w", encoding="utf-8") as c, results.open("w", encoding="utf-8") as r:
        for i in range(n):
            case_id = f"C{i:05d}"
            abstain = i % 5 == 0
            case: dict[str, object] = {
                "id": case_id,
                "slice": f"slice-{i % 7}",
                "question": f"What is the return window for order {i}? — «{i % 13}»",
                "expected_behavior": "abstain" if abstain else "answer",
                "expected_fact": None if abstain else f"fact_{i % 11}",
                "rationale": f"policy section {i % 3}",
                "split": "heldout" if i % 10 == 3 else "dev",
                "metadata": {"batch": i // 1000},
            }
            if i % 17 == 0:
                case["synthetic"] = True
                case["provenance"] = {"source_case": "C00001", "method": "paraphrase"}
            if not abstain and i % 9 == 0:
                case["accepted_facts"] = [f"fact_{(i + 1) % 11}"]
            c.write(json.dumps(case, ensure_ascii=False) + "\n")
            for trial in (1, 2):
                roll = rng.random()
                line: dict[str, object] = {"id": case_id, "trial": trial}
                if roll < 0.55:
                    line |= {"kind": "answer", "fact": f"fact_{rng.randrange(11)}"}
                elif roll < 0.7:
                    line |= {"kind": "answer", "fact": f"fact_{i % 11}", "text": f"It is {i}."}
                elif roll < 0.82:
                    line |= {"kind": "abstain", "reason": "not in the policy"}
                elif roll < 0.92:
                    line |= {"kind": "error", "class": "timeout", "message": "after 30 s"}
                else:
                    continue  # missing
                line["latency_ms"] = round(rng.uniform(5, 900), 3)
                r.write(json.dumps(line, ensure_ascii=False) + "\n")
    return cases, results
