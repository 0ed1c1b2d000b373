"""inspect_ai logs, real and generated, imported sample by sample and epoch by epoch."""

from __future__ import annotations

import json
import zipfile
from collections import Counter
from pathlib import Path

import pytest
from tests.interop_logs import DATA, inspect_log, inspect_sample, write_eval_log, write_json_log

from assay.cases import Dataset
from assay.errors import AssayInputError
from assay.grading import grade
from assay.interop import ImportedRun, ScoreRule, import_inspect
from assay.outcomes import Results

INSPECT = DATA / "inspect_ai"
RULE = ScoreRule()


class _Stored:
    """Grades an imported run the way a stored run's report does: stored judgments."""

    def __init__(self, run: ImportedRun) -> None:
        self.name, self.version = run.grader["name"], run.grader["version"]
        self.by_key = {(j.case_id, j.trial): j for j in run.judgments}

    def grade(self, case: object, record: object) -> object:
        return self.by_key[(record.case_id, record.trial)]  # type: ignore[attr-defined]


def statuses(run: ImportedRun) -> Counter[str]:
    graded = grade(run.dataset.cases, Results(run.records), _Stored(run), trials=run.trials)  # type: ignore[arg-type]
    return Counter(j.status for j in graded)


@pytest.mark.parametrize("path", sorted(INSPECT.iterdir()), ids=lambda p: p.name)
def test_every_sample_log_imports(path: Path) -> None:
    run = import_inspect(path, rule=RULE)
    assert run.records
    assert run.source.tool == "inspect_ai"
    assert run.source.tool_version
    assert run.source.sha256.startswith("sha256:")
    assert sum(statuses(run).values()) == len(run.dataset) * run.trials


def test_the_eval_and_json_forms_of_one_run_import_alike() -> None:
    a = import_inspect(INSPECT / "log_formats.eval", rule=RULE)
    b = import_inspect(INSPECT / "log_formats.json", rule=RULE)
    assert a.dataset.version == b.dataset.version
    assert a.records == b.records
    assert a.judgments == b.judgments
    assert statuses(a) == {"failed": 1}
    assert a.source.reported.startswith("inspect reported match accuracy 0.000")


def test_cancelled_log_reconciles_with_inspects_accuracy() -> None:
    run = import_inspect(INSPECT / "2025-05-12T20-28-13-04-00_popularity.json", rule=RULE)
    assert statuses(run) == {"passed": 2, "failed": 1}  # inspect: accuracy 0.667 of 3
    assert "0.667 (3 of 3 samples scored)" in run.source.reported
    assert run.status == "interrupted"
    assert any("cancelled" in n for n in run.source.notes)
    assert run.target["model"] == "openai/gpt-4o-mini"
    assert run.records[0].usage is not None and run.records[0].usage.input_tokens == 64


def test_a_log_without_scores_is_ungraded_not_failed() -> None:
    path = INSPECT / "2025-02-11T15-17-00-05-00_popularity_dPiJifoWeEQBrfWsAopzWr.eval"
    run = import_inspect(path, rule=RULE)
    assert statuses(run) == {"ungraded": 10}
    assert "no scores" in run.source.reported


def test_choice_scorer_keeps_choices_and_answer() -> None:
    run = import_inspect(INSPECT / "mmlu-summary-choices.eval", rule=RULE)
    case = run.dataset.cases[0]
    assert case.expected_fact == "A"
    assert case.metadata["inspect"]["choices"][1] == "6.8 eV"
    assert run.records[0].extra["inspect_scores"]["choice"]["answer"] == "C"
    assert statuses(run) == {"failed": 1}


def _generated(tmp_path: Path, suffix: str) -> ImportedRun:
    """100 listed samples × 2 epochs: 80 pass, 10 errors, 5 unscored, 5 fail, 2 never run."""
    samples = []
    for i in range(1, 99):  # samples 99 and 100 never ran (a cancelled run)
        for epoch in (1, 2):
            if i <= 40:
                samples.append(inspect_sample(i, epoch, value="C"))
            elif i <= 45:
                samples.append(inspect_sample(i, epoch, error="RateLimitError"))
            elif i <= 48 and epoch == 1:
                samples.append(inspect_sample(i, epoch, value=None))
            elif i <= 48:
                samples.append(inspect_sample(i, epoch, value="I"))
            else:
                samples.append(inspect_sample(i, epoch, value=0.5 if i % 2 else 1.0))
    log = inspect_log(
        samples, sample_ids=list(range(1, 101)), epochs=2, status="cancelled", accuracy=0.8
    )
    path = tmp_path / f"log{suffix}"
    (write_eval_log if suffix == ".eval" else write_json_log)(path, log)
    return import_inspect(path, rule=RULE)


@pytest.mark.parametrize("suffix", [".eval", ".json"])
def test_generated_log_epochs_errors_unscored_and_missing(tmp_path: Path, suffix: str) -> None:
    run = _generated(tmp_path, suffix)
    assert run.trials == 2
    assert len(run.dataset) == 100
    counts = statuses(run)
    # samples 49-98: even ids score 1.0 (pass), odd ids 0.5 (fail at the default 1.0)
    assert counts == {
        "passed": 2 * 40 + 2 * 25,
        "error": 2 * 5,
        "ungraded": 3,
        "failed": 3 + 2 * 25,
        "missing": 2 * 2,
    }
    assert sum(counts.values()) == 200
    assert any("2 sample(s)" in n and "missing" in n for n in run.source.notes)


def test_thresholds_change_numeric_verdicts(tmp_path: Path) -> None:
    log = inspect_log([inspect_sample(1, value=0.5)], sample_ids=[1])
    path = write_json_log(tmp_path / "t.json", log)
    assert statuses(import_inspect(path, rule=RULE)) == {"failed": 1}
    lenient = ScoreRule(thresholds={"match": 0.5})
    assert statuses(import_inspect(path, rule=lenient)) == {"passed": 1}


def test_scorer_choice_and_unknown_scorer(tmp_path: Path) -> None:
    sample = inspect_sample(1, value="C")
    sample["scores"]["judge"] = {"value": "I"}
    path = write_json_log(tmp_path / "t.json", inspect_log([sample], sample_ids=[1]))
    assert statuses(import_inspect(path, rule=RULE, scorer="judge")) == {"failed": 1}
    with pytest.raises(AssayInputError, match=r"no scorer 'nope'.*match, judge"):
        import_inspect(path, rule=RULE, scorer="nope")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"not json", "neither a .eval archive nor JSON"),
        (b"[1]", "not an object"),
        (b'{"samples": []}', "field 'eval' is missing"),
    ],
)
def test_bad_files_name_the_file_and_the_problem(
    tmp_path: Path, content: bytes, message: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    with pytest.raises(AssayInputError, match=message) as caught:
        import_inspect(path, rule=RULE)
    assert str(path) in str(caught.value)


def test_dataset_version_is_computed_from_the_samples() -> None:
    run = import_inspect(INSPECT / "log_formats.json", rule=RULE)
    assert run.dataset.version == Dataset(name="other", cases=run.dataset.cases).version


def test_an_unfinished_eval_log_reads_its_journal_header(tmp_path: Path) -> None:
    log = inspect_log([inspect_sample(1)], sample_ids=[1, 2])
    header = {k: v for k, v in log.items() if k not in ("samples", "results", "status")}
    path = tmp_path / "running.eval"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("_journal/start.json", json.dumps(header))
        archive.writestr("samples/1_epoch_1.json", json.dumps(log["samples"][0]))
    run = import_inspect(path, rule=RULE)
    assert statuses(run) == {"passed": 1, "missing": 1}
    assert any("unknown" in n for n in run.source.notes)
    assert run.status == "failed"


@pytest.mark.parametrize(("version", "stated"), [(1, "1"), (None, "not stated")])
def test_another_log_format_version_is_read_and_noted(
    tmp_path: Path, version: int | None, stated: str
) -> None:
    log = inspect_log([inspect_sample(1)], sample_ids=[1])
    if version is None:
        del log["version"]
    else:
        log["version"] = version
    run = import_inspect(write_json_log(tmp_path / "old.json", log), rule=RULE)
    assert statuses(run) == {"passed": 1}
    assert f"the log's format version is {stated}; assay reads version 2" in run.source.notes[0]
    current = import_inspect(write_json_log(tmp_path / "v2.json", {**log, "version": 2}), rule=RULE)
    assert not any("format version" in n for n in current.source.notes)
