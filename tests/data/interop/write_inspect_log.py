"""Write a real inspect_ai log with the installed inspect_ai, offline: `python THIS LOG_DIR`.

Four samples × 2 epochs on inspect's mock model (whose replies carry their token usage, so
inspect counts no tokens itself): `right` is answered correctly, `wrong` incorrectly, `boom`'s
solver raises (the log still completes: fail_on_error is off) and `limited` runs out of its
token limit. Prints, as JSON, the log's path, inspect_ai's version and what the log says
when inspect's own reader reads it back: its results and each sample's error, limit and score.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import inspect_ai
from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.log import read_eval_log
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import match
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import token_limit


def reply(*_: Any) -> ModelOutput:
    output = ModelOutput.from_content(model="mockllm", content="Paris")
    output.usage = ModelUsage(input_tokens=7, output_tokens=3, total_tokens=10)
    return output


@solver
def answer_or_fail() -> Solver:
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        if state.sample_id == "boom":
            raise RuntimeError("the solver failed on purpose")
        if state.sample_id == "limited":
            with token_limit(1):
                return await generate(state)
        return await generate(state)

    return solve


def main(log_dir: str) -> None:
    task = Task(
        name="capitals",
        dataset=[
            Sample(id="right", input="The capital of France?", target="Paris"),
            Sample(id="wrong", input="The capital of Italy?", target="Rome"),
            Sample(id="boom", input="The capital of Spain?", target="Madrid"),
            Sample(id="limited", input="The capital of France?", target="Paris"),
        ],
        solver=answer_or_fail(),
        scorer=match(),
        epochs=2,
    )
    model = get_model("mockllm/model", custom_outputs=reply)
    (written,) = eval(task, model=model, log_dir=log_dir, fail_on_error=False, display="none")
    log = read_eval_log(written.location)
    assert log.results is not None and log.samples is not None
    said = {
        "log": written.location,
        "inspect_ai": inspect_ai.__version__,
        "status": log.status,
        "total_samples": log.results.total_samples,
        "completed_samples": log.results.completed_samples,
        "samples": [
            {
                "id": sample.id,
                "epoch": sample.epoch,
                "error": sample.error is not None,
                "limit": sample.limit.type if sample.limit else None,
                "score": sample.scores["match"].value if sample.scores else None,
            }
            for sample in log.samples
        ],
    }
    print(json.dumps(said))


if __name__ == "__main__":
    main(sys.argv[1])
