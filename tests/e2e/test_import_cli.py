"""`assay import inspect|promptfoo` on the real sample logs, then report and compare."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.conftest import RunAssay
from tests.interop_logs import DATA

INSPECT = DATA / "inspect_ai"


def _run_ids(stdout: str) -> list[str]:
    return re.findall(r"as run (\S+):", stdout)


def test_import_inspect_prints_both_figures_and_the_report_names_the_source(
    run_assay: RunAssay, tmp_path: Path
) -> None:
    store = f"sqlite:///{tmp_path / 'a.db'}"
    log = INSPECT / "2025-05-12T20-28-13-04-00_popularity.json"
    done = run_assay("import", "inspect", log, "--store", store)
    assert done.returncode == 0, done.stderr
    assert (
        "inspect reported match accuracy 0.667 (3 of 3 samples scored); "
        "assay: task success 2/3 (66.7%) 95% CI [9.4%, 99.2%], 0 errors, 0 missing, 0 ungraded"
    ) in done.stdout
    assert "note: the log's status is cancelled" in done.stdout
    (run_id,) = _run_ids(done.stdout)
    report = run_assay("report", run_id, "--store", store)
    assert report.returncode == 0, report.stderr
    assert "imported from inspect_ai 0.3.95.dev16+g6527d0861 log" in report.stdout
    assert "inspect reported match accuracy 0.667" in report.stdout
    assert "passed 2 + failed 1 + error 0 + missing 0 + ungraded 0 = 3 cases" in report.stdout
    markdown = run_assay("report", run_id, "--store", store, "-f", "markdown")
    assert "imported from inspect_ai" in markdown.stdout
    listed = run_assay("runs", "--store", store)
    assert run_id in listed.stdout and "inspect:openai/gpt-4o-mini" in listed.stdout


def test_every_inspect_sample_imports_in_one_command(run_assay: RunAssay, tmp_path: Path) -> None:
    store = f"sqlite:///{tmp_path / 'a.db'}"
    logs = sorted(INSPECT.iterdir())
    done = run_assay("import", "inspect", *logs, "--store", store)
    assert done.returncode == 0, done.stderr
    assert len(_run_ids(done.stdout)) == len(logs) == 6


def test_two_promptfoo_providers_compare_like_native_runs(
    run_assay: RunAssay, tmp_path: Path
) -> None:
    store = f"sqlite:///{tmp_path / 'a.db'}"
    done = run_assay(
        "import", "promptfoo", DATA / "promptfoo" / "sample-export.json", "--store", store
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("promptfoo reported 0 passed, 2 failed, 0 errors") == 2
    first, second = _run_ids(done.stdout)
    compared = run_assay("compare", first, second, "--store", store)
    assert compared.returncode == 0, compared.stderr
    assert "2 paired cases · 0 excluded" in compared.stdout
    assert "target.model" in compared.stdout


def test_a_bad_log_exits_2_naming_the_file_without_a_traceback(
    run_assay: RunAssay, tmp_path: Path
) -> None:
    bad = tmp_path / "broken.eval"
    bad.write_bytes(b"PK\x03\x04 not really a zip")
    store = f"sqlite:///{tmp_path / 'a.db'}"
    done = run_assay("import", "inspect", bad, "--store", store)
    assert done.returncode == 2
    assert str(bad) in done.stderr
    assert "Traceback" not in done.stderr
    bad_threshold = run_assay(
        "import", "inspect", INSPECT / "log_formats.json", "--threshold", "x", "--store", store
    )
    assert bad_threshold.returncode == 2
    assert "SCORER=NUMBER" in bad_threshold.stderr


def test_export_every_format_and_import_the_inspect_log_back(
    run_assay: RunAssay, tmp_path: Path
) -> None:
    store = f"sqlite:///{tmp_path / 'a.db'}"
    log = INSPECT / "2025-05-12T20-28-13-04-00_popularity.json"
    (run_id,) = _run_ids(run_assay("import", "inspect", log, "--store", store).stdout)
    jsonl = run_assay("export", run_id, "--store", store)
    assert jsonl.returncode == 0, jsonl.stderr
    assert [json.loads(line)["status"] for line in jsonl.stdout.splitlines()] == [
        "passed",
        "passed",
        "failed",
    ]
    table = run_assay("export", run_id, "-f", "csv", "-o", tmp_path / "run.csv", "--store", store)
    assert table.returncode == 0, table.stderr
    assert (tmp_path / "run.csv").read_text(encoding="utf-8").startswith("run_id,case_id,trial")
    no_output = run_assay("export", run_id, "-f", "inspect", "--store", store)
    assert no_output.returncode == 2 and "--output" in no_output.stderr
    target = tmp_path / "run.eval"
    done = run_assay("export", run_id, "-f", "inspect", "-o", target, "--store", store)
    assert done.returncode == 0, done.stderr
    again = run_assay("export", run_id, "-f", "inspect", "-o", target, "--store", store)
    assert again.returncode == 2 and "exists" in again.stderr  # never overwritten
    back = run_assay("import", "inspect", target, "--store", store)
    assert "assay: task success 2/3 (66.7%)" in back.stdout
    assert "written by assay" in back.stdout


def test_composite_reweighs_the_assertions_of_an_imported_promptfoo_run(
    run_assay: RunAssay, tmp_path: Path
) -> None:
    store = f"sqlite:///{tmp_path / 'a.db'}"
    done = run_assay(
        "import", "promptfoo", DATA / "promptfoo" / "sample-export.json", "--store", store
    )
    mini = _run_ids(done.stdout)[0]
    # no profile: every assertion a test was given weighs alike and must pass, as promptfoo says
    plain = run_assay("composite", mini, "--store", store)
    assert plain.returncode == 0, plain.stderr
    assert "recorded checks weigh alike" in plain.stderr
    assert "Composite pass  0/2" in plain.stdout
    profile = tmp_path / "quality-first.yaml"
    profile.write_text(
        "weights: {contains: 0.4, llm-rubric: 0.4, cost: 0.1, latency: 0.1}\n"
        "critical: [llm-rubric]\nthreshold: 0.8\n",
        encoding="utf-8",
    )
    done = run_assay("composite", mini, "--store", store, "-p", profile, "-f", "json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    rows = {r["id"]: r for r in report["cases"]}
    # gpt-5-mini failed only latency on test-1; test-2 has no contains assertion: the
    # other three weigh 0.6, of which 0.5 passed
    assert rows["test-1"]["score"] == 0.9 and rows["test-1"]["status"] == "passed"
    assert rows["test-2"]["score"] == 0.833333333 and rows["test-2"]["status"] == "passed"
    assert set(rows["test-2"]["checks"]) == {"llm-rubric", "cost", "latency"}
    bad = profile.with_name("bad.yaml")
    bad.write_text("weights: {contain: 1.0}\nthreshold: 0.5\n", encoding="utf-8")
    refused = run_assay("composite", mini, "--store", store, "-p", bad)
    assert refused.returncode == 2
    assert 'unknown check "contain" (did you mean "contains"?)' in refused.stderr
    assert "Traceback" not in refused.stderr
    alone = run_assay("composite", tmp_path / "missing.jsonl", "--store", store)
    assert alone.returncode == 2 and "missing.jsonl: no such file; give RESULTS too" in (
        alone.stderr
    )
    unknown = run_assay("composite", "nosuchrun", "--store", store)
    assert unknown.returncode == 2 and "no run 'nosuchrun'" in unknown.stderr


def test_promptfoo_providers_are_a_matrix_compared_with_mcnemar_and_holm(
    run_assay: RunAssay, tmp_path: Path
) -> None:
    from tests.interop_logs import promptfoo_export, promptfoo_row

    # "strong" passes all 8 tests, "weak" fails tests 0-5, "middle" fails test 0 only
    rows = [promptfoo_row(t, "strong") for t in range(8)]
    rows += [promptfoo_row(t, "weak", success=t > 5) for t in range(8)]
    rows += [promptfoo_row(t, "middle", success=t > 0) for t in range(8)]
    export = tmp_path / "export.json"
    export.write_text(json.dumps(promptfoo_export(rows)), encoding="utf-8")
    store = f"sqlite:///{tmp_path / 'a.db'}"
    done = run_assay("import", "promptfoo", export, "--store", store)
    assert done.returncode == 0, done.stderr
    (matrix_id,) = re.findall(r"matrix (mx-\S+): 3 providers as variants", done.stdout)
    shown = run_assay("matrix", matrix_id[:12], "--store", store, "-f", "json")
    assert shown.returncode == 0, shown.stderr
    report = json.loads(shown.stdout)
    assert [v["name"] for v in report["variants"]] == ["strong", "weak", "middle"]
    assert [v["task_success"]["numerator"] for v in report["variants"]] == [8, 2, 7]
    pairs = {(p["a"], p["b"]): p for p in report["pairs"]}
    worse = pairs[("strong", "weak")]
    assert (worse["newly_fixed"], worse["newly_broken"]) == (0, 6)
    # exact McNemar on 6 discordant pairs, all one way: 2 × 0.5^6; Holm over 3 pairs
    assert worse["mcnemar"]["p_value"] == 0.03125
    assert worse["mcnemar"]["p_holm"] == 0.09375
    text = run_assay("matrix", matrix_id, "--store", store)
    assert text.returncode == 0, text.stderr
    assert "Overrides:\n  strong: provider=strong" in text.stdout
    resumed = run_assay("run", "--resume", matrix_id, "--store", store)
    assert resumed.returncode == 2
    assert "was imported from promptfoo" in resumed.stderr
    # one provider alone is a plain run
    single = tmp_path / "single.json"
    single.write_text(json.dumps(promptfoo_export(rows[:8])), encoding="utf-8")
    alone = run_assay("import", "promptfoo", single, "--store", store)
    assert alone.returncode == 0 and "matrix" not in alone.stdout
