"""The dataset commands through the real CLI: validate, dedupe, split, coverage,
diff-dataset, cases from-run and cases import, and `assay run --split`."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

RunAssay = Callable[..., subprocess.CompletedProcess[str]]


def _write(path: Path, cases: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(c) + "\n" for c in cases), encoding="utf-8")
    return path


def _case(case_id: str, question: str, **fields: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "id": case_id,
        "slice": "standard",
        "question": question,
        "expected_behavior": "answer",
        "expected_fact": "fact",
        "rationale": "stated in the policy",
    }
    data.update(fields)
    if data["expected_behavior"] == "abstain":
        data.pop("expected_fact", None)
    return data


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


# --- validate -------------------------------------------------------------------------


def test_validate_a_clean_dataset_exits_0(run_assay: RunAssay, policy_dir: Path) -> None:
    done = run_assay("validate", policy_dir / "policy.jsonl")
    assert done.returncode == 0, done.stderr
    assert "6 valid case(s) · clean" in done.stdout


def test_validate_lists_every_problem_with_file_line_and_fix(
    run_assay: RunAssay, tmp_path: Path
) -> None:
    data = _write(
        tmp_path / "bad.jsonl",
        [
            _case("A", "How many days do I have to return an item I bought online?"),
            _case("A", "Is the gift wrapping free of charge?"),
            _case("B", "How many days do I have to return an item I bought on-line?"),
            {"id": "C", "slice": "standard", "question": "q", "expected_behavior": "answer"},
            _case("D", "Do you ship abroad?", rationale=None),
            _case("E", "Another grounded question?", metadata={"generated": True}),
        ],
    )
    done = run_assay("validate", data, "--format", "json")
    assert done.returncode == 2
    report = json.loads(done.stdout)
    found = {(p["code"], p["location"]) for p in report["problems"]}
    where = str(data)
    assert found == {
        ("duplicate-id", f"{where}:2"),
        ("near-duplicate", f"{where}:3"),
        ("schema", f"{where}:4"),
        ("missing-rationale", f"{where}:5"),
        ("unflagged-synthetic", f"{where}:6"),
    }
    assert all(p["fix"] and p["message"] for p in report["problems"])
    assert (report["errors"], report["warnings"]) == (3, 2)
    text = run_assay("validate", data)
    assert f"{where}:4: error [schema] expected_fact is required" in text.stdout
    assert "Traceback" not in text.stderr


def test_validate_strict_exits_1_on_warnings_and_2_on_missing_rationale(
    run_assay: RunAssay, tmp_path: Path
) -> None:
    near = _write(
        tmp_path / "near.jsonl",
        [
            _case("A", "How many days do I have to return an item I bought online?"),
            _case("B", "How many days do I have to return an item I bought on-line?"),
        ],
    )
    assert run_assay("validate", near).returncode == 0
    assert run_assay("validate", near, "--strict").returncode == 1
    bare = _write(tmp_path / "bare.jsonl", [_case("A", "q", rationale=None)])
    assert run_assay("validate", bare).returncode == 0
    assert run_assay("validate", bare, "--strict").returncode == 2


def test_validate_checks_sources_given_on_the_command_line(
    run_assay: RunAssay, tmp_path: Path, policy_dir: Path
) -> None:
    data = _write(
        tmp_path / "src.jsonl",
        [
            _case("A", "How long?", source_revision="returns-v9"),
            _case("B", "Refund?", source_revision="returns-v3", required=["90 days"]),
        ],
    )
    done = run_assay(
        "validate", data, "--sources", policy_dir / "policy-sources.yaml", "-f", "json"
    )
    codes = [p["code"] for p in json.loads(done.stdout)["problems"]]
    assert codes == ["unknown-source-revision", "unsupported-fact"]
    assert done.returncode == 2


def test_validate_reports_a_malformed_file_without_a_traceback(
    run_assay: RunAssay, tmp_path: Path
) -> None:
    bad = tmp_path / "broken.jsonl"
    bad.write_text('{"id": "A"\n')
    done = run_assay("validate", bad, "-f", "json")
    assert done.returncode == 2
    (problem,) = json.loads(done.stdout)["problems"]
    assert problem["code"] == "malformed" and problem["location"] == f"{bad}:1"
    assert "Traceback" not in done.stderr


# --- dedupe ---------------------------------------------------------------------------


def test_dedupe_lists_clusters_and_writes_a_new_dataset_with_what_it_dropped(
    run_assay: RunAssay, tmp_path: Path
) -> None:
    data = _write(
        tmp_path / "d.jsonl",
        [
            _case("A1", "How many days do I have to return an item I bought online?"),
            _case("B1", "Do you offer gift wrapping on returns?"),
            _case("A2", "how many days do I have to return an item I bought online"),
            _case("A3", "How many days do I have to return an item I bought on-line?"),
        ],
    )
    shown = run_assay("dedupe", data, "-f", "json")
    assert shown.returncode == 0, shown.stderr
    (cluster,) = json.loads(shown.stdout)["clusters"]
    assert cluster["kept"] == "A1"
    assert [m["id"] for m in cluster["members"]] == ["A1", "A2", "A3"]
    assert cluster["members"][1]["similarity"] == 1.0
    out = tmp_path / "dedup.jsonl"
    done = run_assay("dedupe", data, "--write", out)
    assert done.returncode == 0, done.stderr
    assert [c["id"] for c in _lines(out)] == ["A1", "B1"]
    dropped = _lines(tmp_path / "dedup.dropped.jsonl")
    assert [(d["dropped"]["id"], d["kept"]) for d in dropped] == [("A2", "A1"), ("A3", "A1")]
    again = run_assay("dedupe", data, "--write", out)
    assert again.returncode == 2 and "never replaces" in again.stderr


# --- split ----------------------------------------------------------------------------


def _splittable(tmp_path: Path) -> Path:
    cases = []
    for i in range(30):
        slice_ = ["standard", "exception", "missing"][i % 3]
        behaviour = "abstain" if slice_ == "missing" else "answer"
        extra: dict[str, Any] = {"group": f"conv{i // 6}"} if i < 12 else {}
        cases.append(
            _case(
                f"C{i}",
                f"Question number {i} about {slice_} things?",
                slice=slice_,
                expected_behavior=behaviour,
                **extra,
            )
        )
    cases.append(_case("C0-copy", "Question number 0 about standard things??"))
    return _write(tmp_path / "all.jsonl", cases)


def test_split_is_deterministic_keeps_groups_and_clusters_and_prints_coverage(
    run_assay: RunAssay, tmp_path: Path
) -> None:
    data = _splittable(tmp_path)
    first, second = tmp_path / "s1.jsonl", tmp_path / "s2.jsonl"
    done = run_assay("split", data, "--heldout", "0.3", "--seed", "7", "-o", first)
    assert done.returncode == 0, done.stderr
    assert "assay coverage" in done.stdout and "heldout" in done.stdout
    assert run_assay("split", data, "--heldout", "0.3", "--seed", "7", "-o", second).returncode == 0
    assert first.read_text() == second.read_text()
    cases = _lines(first)
    splits = {c["id"]: c["split"] for c in cases}
    assert splits["C0"] == splits["C0-copy"]
    for group in ("conv0", "conv1"):
        assert len({c["split"] for c in cases if c.get("group") == group}) == 1
    assert 0 < sum(s == "heldout" for s in splits.values()) < len(cases)
    checked = json.loads(run_assay("validate", first, "-f", "json").stdout)
    assert [p["code"] for p in checked["problems"]] == ["exact-duplicate"]  # C0-copy; no leak
    assert data.read_text().count('"split"') == 0  # the input is never touched


def test_validate_flags_a_leaked_group(run_assay: RunAssay, tmp_path: Path) -> None:
    data = _write(
        tmp_path / "leak.jsonl",
        [
            _case("A", "First turn of the conversation?", group="g"),
            _case("B", "Second turn of the conversation?", group="g", split="heldout"),
        ],
    )
    done = run_assay("validate", data, "-f", "json")
    (problem,) = json.loads(done.stdout)["problems"]
    assert problem["code"] == "leakage" and problem["case"] == "B"
    assert done.returncode == 2


# --- coverage -------------------------------------------------------------------------


def test_coverage_of_a_suite_requires_its_slices(
    run_assay: RunAssay, tmp_path: Path, policy_dir: Path
) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        f"dataset: {policy_dir / 'policy.jsonl'}\ntarget: {{type: scripted}}\n"
        "coverage:\n  required_slices: [standard, exception, tool]\n  min_cases: 2\n"
    )
    done = run_assay("coverage", suite, "-f", "json")
    assert done.returncode == 2
    report = json.loads(done.stdout)
    errors = [p["message"] for p in report["problems"] if p["severity"] == "error"]
    assert errors == ["required slice 'tool' has no case"]
    assert report["min_cases"] == 2 and report["total"] == 6
    html = tmp_path / "cov.html"
    assert (
        run_assay("coverage", policy_dir / "policy.jsonl", "-f", "html", "-o", html).returncode == 0
    )
    assert "<table>" in html.read_text()


# --- diff-dataset ---------------------------------------------------------------------


def test_diff_dataset_separates_label_changes_from_wording(
    run_assay: RunAssay, tmp_path: Path
) -> None:
    old = _write(tmp_path / "v1.jsonl", [_case("A", "How long?"), _case("B", "Refund?")])
    new = _write(
        tmp_path / "v2.jsonl",
        [
            _case("A", "How long, exactly?"),
            _case("B", "Refund?", expected_fact="other"),
            _case("C", "New?"),
        ],
    )
    done = run_assay("diff-dataset", old, new, "-f", "json")
    assert done.returncode == 0, done.stderr
    diff = json.loads(done.stdout)
    assert diff["added"] == ["C"] and diff["removed"] == []
    assert [(c["id"], c["kinds"]) for c in diff["changed"]] == [
        ("A", ["wording"]),
        ("B", ["label"]),
    ]
    text = run_assay("diff-dataset", old, new).stdout
    assert "1 added, 0 removed, 2 changed (1 with label changes), 0 unchanged" in text


# --- run --split ----------------------------------------------------------------------


def _split_suite(tmp_path: Path) -> Path:
    _write(
        tmp_path / "cases.jsonl",
        [
            _case("D1", "Dev question one?"),
            _case("D2", "Dev question two?"),
            _case("H1", "Held-out question one?", split="heldout"),
        ],
    )
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        "dataset: cases.jsonl\ntrace: false\ntarget:\n  type: scripted\n"
        "  default: {kind: answer, fact: fact}\n  outcomes: {D2: {kind: abstain}}\n"
    )
    return suite


def test_run_refuses_held_out_cases_without_confirm_and_counts_their_runs(
    run_assay: RunAssay, tmp_path: Path
) -> None:
    suite, store = _split_suite(tmp_path), f"sqlite:///{tmp_path / 'a.db'}"
    dev = run_assay("run", suite, "--store", store, "-f", "json")
    assert dev.returncode == 0, dev.stderr
    report = json.loads(dev.stdout)
    assert report["total"] == 2 and "heldout" not in report and "splits" not in report
    refused = run_assay("run", suite, "--store", store, "--split", "heldout")
    assert refused.returncode == 2 and "--confirm" in refused.stderr
    assert "Traceback" not in refused.stderr
    held = run_assay(
        "run", suite, "--store", store, "--split", "heldout", "--confirm", "-f", "json"
    )
    assert held.returncode == 0, held.stderr
    assert json.loads(held.stdout)["heldout"] == {
        "banner": "HELD-OUT RESULT",
        "cases": 1,
        "runs": 1,
    }
    both = run_assay("run", suite, "--store", store, "--split", "all", "--confirm", "-f", "json")
    report = json.loads(both.stdout)
    assert report["heldout"]["runs"] == 2
    assert report["metadata"]["run"]["metadata"]["split"] == "all"
    dev_block, held_block = report["splits"]
    assert (dev_block["split"], dev_block["task_success"]["numerator"]) == ("dev", 1)
    assert dev_block["task_success"]["denominator"] == 2
    assert dev_block["task_success"]["denominator_name"] == "cases in the dev split"
    assert (held_block["split"], held_block["total"]) == ("heldout", 1)
    text = run_assay("run", suite, "--store", store, "--split", "all", "--confirm")
    assert "HELD-OUT RESULT: 1 held-out case(s) included; held-out run #3" in text.stdout
    assert "By split" in text.stdout
    page = run_assay("report", report["run_id"], "--store", store, "-f", "html").stdout
    assert "held-out run #2" in page and "cases in the held-out split" in page


def test_runs_junit_and_the_viewer_show_the_split_a_run_used(
    run_assay: RunAssay, tmp_path: Path
) -> None:
    import warnings
    import xml.etree.ElementTree as ET

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        from starlette.testclient import TestClient

    from assay.store import open_store
    from assay.view import create_app

    suite, store = _split_suite(tmp_path), f"sqlite:///{tmp_path / 'a.db'}"
    dev = json.loads(run_assay("run", suite, "--store", store, "-f", "json").stdout)["run_id"]
    both = run_assay("run", suite, "--store", store, "--split", "all", "--confirm", "-f", "json")
    mixed = json.loads(both.stdout)["run_id"]
    held = run_assay("run", suite, "--store", store, "--split", "heldout", "--confirm")
    assert held.returncode == 0, held.stderr
    listed = {
        r["id"]: r for r in json.loads(run_assay("runs", "--store", store, "-f", "json").stdout)
    }
    assert listed[dev]["split"] == "dev" and listed[dev]["heldout_run"] is None
    assert listed[mixed]["split_label"] == "all · HELD-OUT (run #1)"
    text = run_assay("runs", "--store", store).stdout
    assert "Split" in text and "HELD-OUT (run #2)" in text
    assert "all · HELD-OUT (run #1)" in text
    # JUnit: one suite per split, each with its own cases and denominators
    xml = run_assay("report", mixed, "--store", store, "-f", "junit").stdout
    suites = {s.get("name"): s for s in ET.fromstring(xml.split("-->", 1)[1]).iter("testsuite")}
    dev_suite = suites["assay cases: cases (dev)"]
    held_suite = suites["assay cases: cases (HELD-OUT)"]
    assert [c.get("name") for c in dev_suite.iter("testcase")] == ["D1", "D2"]
    assert [c.get("name") for c in held_suite.iter("testcase")] == ["H1"]
    props = {p.get("name"): p.get("value") for p in held_suite.iter("property")}
    assert props["split"] == "heldout" and props["split.task_success"] == "1/1"
    assert props["split.task_success.denominator"] == "cases in the held-out split"
    assert props["heldout.runs"] == "1"
    assert dev_suite.get("tests") == "2" and dev_suite.get("failures") == "1"
    # the viewer's run list names each run's split; the run page has the blocks
    reader = open_store(store, read_only=True)
    try:
        with TestClient(create_app(reader), base_url="http://127.0.0.1") as client:
            page = client.get("/").text
            run_page = client.get(f"/runs/{mixed}").text
            dev_page = client.get(f"/runs/{dev}").text
    finally:
        reader.close()
    assert 'data-field="split">split: dev<' in page
    assert 'class="sub heldout" data-field="split">split: HELD-OUT (run #2)<' in page
    assert "cases in the held-out split" in run_page and "held-out run #1" in run_page
    assert 'data-field="split">Split: dev (held-out cases not run)<' in dev_page
    assert 'data-field="split"' not in run_page  # the held-out banner says it there


# --- cases from-run and import --------------------------------------------------------


def test_cases_from_run_writes_candidates_that_validate_refuses(
    run_assay: RunAssay, tmp_path: Path
) -> None:
    suite, store = _split_suite(tmp_path), f"sqlite:///{tmp_path / 'a.db'}"
    run = run_assay("run", suite, "--store", store, "-f", "json")
    run_id = json.loads(run.stdout)["run_id"]
    out = tmp_path / "candidates.jsonl"
    done = run_assay("cases", "from-run", run_id, "--store", store, "-o", out)
    assert done.returncode == 0, done.stderr
    (candidate,) = _lines(out)
    assert candidate["id"] == f"D2.run-{run_id}"
    assert candidate["rationale"] == ""
    meta = candidate["metadata"]
    assert meta["origin"] == f"run {run_id} case D2" and meta["review"] == "pending"
    assert meta["observed"]["status"] == "failed" and meta["observed"]["outcome"] == "abstain"
    checked = run_assay("validate", out, "-f", "json")
    assert checked.returncode == 2
    assert "unreviewed" in [p["code"] for p in json.loads(checked.stdout)["problems"]]


def test_cases_import_from_csv_with_a_column_mapping(run_assay: RunAssay, tmp_path: Path) -> None:
    source = tmp_path / "q.csv"
    source.write_text(
        "qid,prompt,gold,alts,kind\n"
        "1,What is the return window?,30 days,thirty days|30-day,standard\n"
        "2,Do you gift wrap?,,,missing\n"
    )
    out = tmp_path / "imported.jsonl"
    done = run_assay(
        "cases",
        "import",
        source,
        "-o",
        out,
        "--map",
        "id=qid",
        "--map",
        "question=prompt",
        "--map",
        "expected_fact=gold",
        "--map",
        "accepted_facts=alts",
        "--map",
        "slice=kind",
    )
    assert done.returncode == 0, done.stderr
    first, second = _lines(out)
    assert first["expected_fact"] == "30 days"
    assert first["accepted_facts"] == ["thirty days", "30-day"]
    assert (second["expected_behavior"], second["slice"]) == ("abstain", "missing")
    wrong = run_assay("cases", "import", source, "-o", tmp_path / "x.jsonl", "--map", "question=q")
    assert wrong.returncode == 2 and "has no column 'q'" in wrong.stderr


def test_cases_import_from_a_saved_hugging_face_dataset(
    run_assay: RunAssay, tmp_path: Path
) -> None:
    datasets = pytest.importorskip("datasets")
    rows = {
        "id": ["q1", "q2"],
        "title": ["Returns", "Returns"],
        "context": ["Items can be returned within 30 days."] * 2,
        "question": ["How long is the return window?", "Do you gift wrap?"],
        "answers": [
            {"text": ["30 days", "within 30 days"], "answer_start": [29, 22]},
            {"text": [], "answer_start": []},
        ],
    }
    saved = tmp_path / "squad"
    datasets.DatasetDict({"validation": datasets.Dataset.from_dict(rows)}).save_to_disk(saved)
    out = tmp_path / "squad.jsonl"
    done = run_assay(
        "cases",
        "import",
        saved,
        "-o",
        out,
        "--hf-split",
        "validation",
        "--slice",
        "squad",
        "--map",
        "id=id",
        "--map",
        "question=question",
        "--map",
        "accepted_facts=answers.text",
        "--map",
        "sources=context",
        "--map",
        "group=title",
    )
    assert done.returncode == 0, done.stderr
    answer, abstain = _lines(out)
    assert answer["expected_fact"] == "30 days"
    assert answer["accepted_facts"] == ["within 30 days"]
    assert answer["sources"] == {"context": "Items can be returned within 30 days."}
    assert abstain["expected_behavior"] == "abstain" and abstain["group"] == "Returns"


def test_a_changelog_entry_shows_in_reports_of_that_version(
    run_assay: RunAssay, tmp_path: Path, policy_dir: Path
) -> None:
    data = tmp_path / "policy.jsonl"
    data.write_text((policy_dir / "policy.jsonl").read_text())
    done = run_assay("cases", "changelog", data, "--who", "alice", "--why", "relabelled E2")
    assert done.returncode == 0, done.stderr
    (entry,) = _lines(tmp_path / "policy.jsonl.changelog.jsonl")
    assert (entry["who"], entry["why"]) == ("alice", "relabelled E2")
    results = policy_dir / "results.jsonl"
    report = json.loads(run_assay("score", data, results, "-f", "json").stdout)
    assert report["dataset"]["change"]["who"] == "alice"
    assert entry["version"] == report["dataset"]["version"]
    text = run_assay("score", data, results).stdout
    assert "relabelled E2" in text
    # another version of the labels does not carry the entry
    data.write_text(data.read_text().replace("custom_excluded", "custom_not_returnable"))
    report = json.loads(run_assay("score", data, results, "-f", "json").stdout)
    assert "change" not in report["dataset"]


def test_a_matrix_takes_the_split_options_like_a_single_run(
    run_assay: RunAssay, tmp_path: Path
) -> None:
    suite, store = _split_suite(tmp_path), f"sqlite:///{tmp_path / 'a.db'}"
    matrix = ("run", suite, "--store", store, "--set", "target.delay_s=0,0.001")
    refused = run_assay(*matrix, "--split", "heldout")
    assert refused.returncode == 2 and "--confirm" in refused.stderr
    assert "Traceback" not in refused.stderr
    done = run_assay(*matrix, "--split", "all", "--confirm", "-f", "json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["heldout_cases"] == 1 and data["cases"] == 3
    runs = [
        json.loads(run_assay("report", v["run_id"], "--store", store, "-f", "json").stdout)
        for v in data["variants"]
    ]
    assert [r["heldout"]["runs"] for r in runs] == [1, 2]  # each variant is a held-out run
    assert all(r["metadata"]["run"]["metadata"]["split"] == "all" for r in runs)
    assert [b["split"] for b in runs[0]["splits"]] == ["dev", "heldout"]
    text = run_assay("matrix", data["matrix_id"], "--store", store).stdout
    assert "HELD-OUT RESULT: 1 held-out case(s) included in every variant" in text
