"""The starter files ``assay init`` writes: a suite, a dataset and an example target."""

from __future__ import annotations

SUITE = """\
# An assay suite: which cases, which system under test, how to grade and how to run.
# Run it:            assay run suite.yaml
# List stored runs:  assay runs
# Every key is documented in docs/running.md of the assay repository.
name: starter
dataset: dataset.jsonl          # path relative to this file (JSONL, YAML, JSON or CSV)

target:                         # the system under test
  type: function                # function | http | openai | scripted
  callable: assistant:answer    # module:function, imported from this directory first
  # An HTTP JSON endpoint instead:
  #   type: http
  #   url: http://127.0.0.1:8000/ask
  #   request: {question: "{{question}}"}
  #   response: {kind: kind, fact: fact, text: answer}
  # An OpenAI-compatible chat model (the key is read from the environment, never stored):
  #   type: openai
  #   base_url: https://api.openai.com/v1
  #   model: gpt-4o-mini
  #   api_key_env: OPENAI_API_KEY
  #   temperature: 0
  #   seed: 7

grader: structured              # pass = the expected fact key, or an expected abstention
trials: 1                       # how many times each case runs
concurrency: 4                  # cases in flight at once
timeout_s: 30                   # per call; a timeout becomes an error outcome
retries: 2                      # retries on timeouts, lost connections, HTTP 429 and 5xx
# rpm: 60                       # at most this many calls per minute
"""

DATASET = """\
{"id": "S1", "slice": "standard", "question": "How many days do I have to return an item?", "expected_behavior": "answer", "expected_fact": "return_window_30_days", "rationale": "The policy states a 30-day return window."}
{"id": "S2", "slice": "exception", "question": "Can I return a custom-printed mug?", "expected_behavior": "answer", "expected_fact": "custom_excluded", "rationale": "Custom-printed products are excluded from returns."}
{"id": "S3", "slice": "missing", "question": "Do you offer gift wrapping?", "expected_behavior": "abstain", "expected_fact": null, "rationale": "The policy does not mention gift wrapping; the assistant must abstain."}
"""  # noqa: E501

ASSISTANT = '''\
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
'''

FILES: dict[str, str] = {"suite.yaml": SUITE, "dataset.jsonl": DATASET, "assistant.py": ASSISTANT}
