"""Hostile and odd input files for assay's loaders, generated from a random source.

One generator serves both the property tests (hypothesis drives the random source:
tests/property/test_loading_never_crashes.py) and the fuzz benchmark that tries many
more inputs (bench/fuzz_loaders.py). Every input is built from a valid file of its kind,
then mutated, spliced with a hostile fragment, or replaced by one.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

CASE = {
    "id": "E1",
    "slice": "standard",
    "question": "How long is the return window?",
    "expected_behavior": "answer",
    "expected_fact": "return_window_30_days",
    "rationale": "standard policy",
}
RESULT = {"id": "E1", "kind": "answer", "fact": "return_window_30_days", "text": "30 days"}

VALID = {
    "dataset.jsonl": json.dumps(CASE) + "\n" + json.dumps({**CASE, "id": "E2"}) + "\n",
    "dataset.json": json.dumps({"name": "d", "cases": [CASE, {**CASE, "id": "E2"}]}, indent=1),
    "dataset.yaml": "name: d\ncases:\n"
    + "".join(f"  - {json.dumps({**CASE, 'id': f'E{i}'})}\n" for i in (1, 2)),
    "dataset.csv": ",".join(CASE) + "\n" + ",".join(str(v) for v in CASE.values()) + "\n",
    "results.jsonl": json.dumps(RESULT) + "\n" + json.dumps({"id": "E2", "kind": "abstain"}),
    "results.json": json.dumps([RESULT]),
    "sources.yaml": "returns-v3:\n  standard-window: Items can be returned within 30 days.\n",
    "suite.yaml": "name: s\ndataset: dataset.jsonl\ntarget: {type: scripted}\ntrials: 2\n"
    "metadata: {owner: me}\n",
    "profile.yaml": "threshold: 0.85\ncritical: [content_present]\n"
    "weights: {content_present: 0.5, answer_not_empty: 0.5}\n",
    "composite.jsonl": json.dumps({"id": "E1", "checks": {"content_present": True}}) + "\n",
}
# A JSON report as assay writes it (the golden report of the seed fixture).
_GOLDEN = Path(__file__).resolve().parents[1] / "tests" / "golden" / "snapshots" / "policy.json"
VALID["report.json"] = _GOLDEN.read_text(encoding="utf-8")

LAUGHS = "\n".join(
    ["a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    + [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]" for i in range(1, 10)]
)


def _deep(rng: random.Random) -> str:
    depth = rng.choice([70, 1_000, 100_000])
    opener, closer = rng.choice([("[", "]"), ('{"a":', "}")])
    return opener * depth + "1" + closer * depth


FRAGMENTS = [
    lambda rng: _deep(rng),
    lambda rng: "9" * rng.choice([4_301, 10_000, 100_000]),
    lambda rng: "-" + "9" * 5_000,
    lambda rng: "1e" + "9" * 400,
    lambda rng: '"\\ud800"',
    lambda rng: '"\\udfff\\ud800"',
    lambda rng: '"\\U0000d800"',
    lambda rng: LAUGHS + "\nall: *a9\n",
    lambda rng: "!!binary aGVsbG8=",
    lambda rng: "!!set {a, b}",
    lambda rng: "!!python/object:os.system {}",
    lambda rng: "? [a, b]\n: 1\n",
    lambda rng: "? {a: 1}\n: 1\n",
    lambda rng: "&x [*x]",
    lambda rng: "\x00" * rng.randint(1, 64),
    lambda rng: "x" * rng.choice([131_073, 300_000]),
    lambda rng: '"' + "x" * 200_000,
    lambda rng: "\ufeff",
    lambda rng: "\x1b[2J\x1b]8;;javascript:alert(1)\x1b\\x\x1b]8;;\x1b\\",
    lambda rng: "\u202e<script>alert(1)</script>",
    lambda rng: "NaN",
    lambda rng: "Infinity",
    lambda rng: '{"trial": 100000}',
    lambda rng: '{"id": "E1", "id": "E2"}',
    lambda rng: "\r\n" * rng.randint(1, 5),
    lambda rng: "---\n---\n",
    lambda rng: "%YAML 9.9\n---\n",
    lambda rng: "- " * 2_000 + "x",
    lambda rng: "a,b\n" + '"' * 3,
    lambda rng: "\u2028\u0085",
]


_CODES = [0, 1, 9, 10, 13, 27, 34, 39, 44, 58, 91, 93, 123, 125, 0x85, 0xFFFF]


def _mutate(rng: random.Random, text: str) -> str:
    """One random edit: delete, duplicate, insert a fragment, flip a byte, or truncate."""
    if not text:
        return rng.choice(FRAGMENTS)(rng)
    i = rng.randrange(len(text) + 1)
    j = min(len(text), i + rng.randint(0, 40))
    choice = rng.randrange(6)
    if choice == 0:
        return text[:i] + text[j:]
    if choice == 1:
        return text[:j] + text[i:j] * rng.randint(1, 4) + text[j:]
    if choice == 2:
        return text[:i] + rng.choice(FRAGMENTS)(rng) + text[i:]
    if choice == 3:
        return (
            text[:i]
            + chr(rng.choice([0, 1, 9, 10, 13, 27, 34, 39, 44, 58, 91, 93, 123, 125, 0x85, 0xFFFF]))
            + text[i:]
        )
    if choice == 4:
        return text[:i]
    return text[:i] + rng.choice(list(VALID.values())) + text[j:]


def hostile_input(rng: random.Random, name: str) -> bytes:
    """A hostile variant of the valid file ``name`` (a key of ``VALID``), as bytes."""
    roll = rng.random()
    if roll < 0.1:
        text = rng.choice(FRAGMENTS)(rng)
    else:
        text = VALID[name]
        for _ in range(rng.randint(0, 3)):
            text = _mutate(rng, text)
    data = text.encode("utf-8", errors="surrogatepass")
    if rng.random() < 0.05:  # raw bytes: not UTF-8 at all
        cut = rng.randrange(len(data) + 1)
        data = data[:cut] + bytes([rng.randrange(128, 256)]) + data[cut:]
    return data
