"""Matrix runs through the library: one dataset version, runs grouped by matrix id, the
pairwise table on a hand-computed example, shared endpoint limits, resume."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from sqlalchemy import delete

from assay.cases import Case, Dataset
from assay.compare import VariantInput, build_matrix
from assay.errors import AssayInputError
from assay.grading import StructuredGrader, grade
from assay.outcomes import Answer, Record, Results
from assay.report import build_report
from assay.runner import matrix_report, matrix_runs, resume_matrix, run_matrix
from assay.store import RunStore, open_store
from assay.store._schema import judgments, records
from assay.store._schema import runs as runs_table

WRONG = "{kind: answer, fact: wrong}"


@pytest.fixture
def store(tmp_path: Path) -> Iterator[RunStore]:
    opened = open_store(f"sqlite:///{tmp_path / 'runs.db'}")
    yield opened
    opened.close()


def _dataset(tmp_path: Path, n: int = 10) -> None:
    lines = [
        {
            "id": f"c{i}",
            "slice": "even" if i % 2 == 0 else "odd",
            "question": f"q{i}",
            "expected_behavior": "answer",
            "expected_fact": "f",
        }
        for i in range(1, n + 1)
    ]
    (tmp_path / "cases.jsonl").write_text(
        "".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8"
    )


def _suite(tmp_path: Path, body: str) -> Path:
    _dataset(tmp_path)
    path = tmp_path / "suite.yaml"
    path.write_text("dataset: cases.jsonl\ntrace: false\n" + body, encoding="utf-8")
    return path


# Variant a fails c1..c5, b passes everything, c is a again.
THREE = f"""target:
  type: scripted
  default: {{kind: answer, fact: f}}
variants:
  a:
    target:
      outcomes: {{c1: {WRONG}, c2: {WRONG}, c3: {WRONG}, c4: {WRONG}, c5: {WRONG}}}
  b: {{}}
  c:
    target:
      outcomes: {{c1: {WRONG}, c2: {WRONG}, c3: {WRONG}, c4: {WRONG}, c5: {WRONG}}}
"""


def test_the_pairwise_table_matches_a_hand_computed_example(
    tmp_path: Path, store: RunStore
) -> None:
    result = run_matrix(_suite(tmp_path, THREE), store)
    assert [r.name for r in result.runs] == ["a", "b", "c"]
    assert result.status == "completed"
    m = matrix_report(store, result.matrix_id)
    assert [(v.name, v.task_success.numerator, v.task_success.denominator) for v in m.variants] == [
        ("a", 5, 10),
        ("b", 10, 10),
        ("c", 5, 10),
    ]
    pairs = {(p.a, p.b): p for p in m.pairs}
    ab, ac, bc = pairs[("a", "b")], pairs[("a", "c")], pairs[("b", "c")]
    assert (ab.newly_fixed, ab.newly_broken) == (5, 0)
    assert (ac.newly_fixed, ac.newly_broken) == (0, 0)
    assert (bc.newly_fixed, bc.newly_broken) == (0, 5)
    # Exact McNemar: 5 discordant pairs all one way, p = 2 · (1/2)^5 = 0.0625; none: p = 1.
    assert (ab.mcnemar.p_value, ac.mcnemar.p_value, bc.mcnemar.p_value) == (0.0625, 1.0, 0.0625)
    # Holm over 3 pairs: sorted 0.0625, 0.0625, 1 -> 3·0.0625 = 0.1875, then
    # max(0.1875, 2·0.0625) = 0.1875, then max(0.1875, 1·1) = 1.
    assert (ab.mcnemar.p_holm, ac.mcnemar.p_holm, bc.mcnemar.p_holm) == (0.1875, 1.0, 0.1875)
    assert "Holm" in m.multiple_comparisons and "3 pairs" in m.multiple_comparisons
    assert ab.delta.value == pytest.approx(0.5) and bc.delta.value == pytest.approx(-0.5)
    assert ab.delta.ci is not None and ab.delta.ci[0] > 0  # b is better than a
    assert m.variants[0].slices["odd"].numerator == 2  # c7, c9 pass in a; c1, c3, c5 fail
    disagree = [g.id for g in m.grid if g.disagree]
    assert disagree == ["c1", "c2", "c3", "c4", "c5"]


def test_every_variant_runs_on_one_dataset_version_grouped_by_the_matrix_id(
    tmp_path: Path, store: RunStore
) -> None:
    result = run_matrix(_suite(tmp_path, THREE), store, sets=("target.delay_s=0,0.001",))
    runs = matrix_runs(store, result.matrix_id)
    assert len(runs) == 6
    assert len({r.dataset_version for r in runs}) == 1
    assert {r.metadata["matrix"]["id"] for r in runs} == {result.matrix_id}
    assert [r.metadata["matrix"]["variant"] for r in runs] == [
        "a/delay_s=0",
        "a/delay_s=0.001",
        "b/delay_s=0",
        "b/delay_s=0.001",
        "c/delay_s=0",
        "c/delay_s=0.001",
    ]
    assert matrix_runs(store, result.matrix_id[:12])[0].id == runs[0].id  # a unique prefix
    with pytest.raises(AssayInputError, match="no matrix 'mx-nope'"):
        matrix_runs(store, "mx-nope")


def _report(cases: list[Case]) -> VariantInput:
    dataset = Dataset(name="d", cases=tuple(cases))
    found = Results(tuple(Record(case_id=c.id, outcome=Answer(fact="f")) for c in cases))
    report = build_report(dataset, grade(dataset.cases, found, StructuredGrader()))
    return VariantInput("v", "r", "completed", {}, report)


def test_a_matrix_over_two_dataset_versions_is_refused() -> None:
    case = Case(id="c1", slice="s", question="q", expected_behavior="answer", expected_fact="f")
    other = case.model_copy(update={"question": "another question"})
    with pytest.raises(AssayInputError, match="2 dataset versions"):
        build_matrix("mx-1", [_report([case]), _report([other])])


def test_resume_finishes_a_half_finished_matrix(tmp_path: Path, store: RunStore) -> None:
    suite = _suite(tmp_path, THREE)
    result = run_matrix(suite, store)
    a, b, c = (r.run_id for r in result.runs)
    # Half-finished: b lost four records and was interrupted; c never started.
    lost = ["c1", "c2", "c3", "c4"]
    with store.engine.begin() as conn:
        for table in (records, judgments):
            conn.execute(delete(table).where(table.c.run_id == b, table.c.case_id.in_(lost)))
            conn.execute(delete(table).where(table.c.run_id == c))
        conn.execute(delete(runs_table).where(runs_table.c.id == c))
    store.set_status(b, "interrupted")
    resumed = resume_matrix(store, result.matrix_id, suite=suite)
    assert resumed.matrix_id == result.matrix_id and resumed.status == "completed"
    ran = {r.name: r.ran for r in resumed.runs}
    assert ran == {"a": 0, "b": 4, "c": 10}  # only what was missing ran
    assert [r.run_id for r in resumed.runs][:2] == [a, b]  # the same runs, finished in place
    m = matrix_report(store, result.matrix_id)
    assert [v.task_success.numerator for v in m.variants] == [5, 10, 5]
    assert {v.status for v in m.variants} == {"completed"}
    again = resume_matrix(store, result.matrix_id, suite=suite)
    assert {r.ran for r in again.runs} == {0}  # nothing left to run


class _InFlight:
    def __init__(self) -> None:
        self.now = 0
        self.peak = 0
        self.calls = 0
        self.lock = threading.Lock()


@pytest.fixture
def slow_server() -> Iterator[tuple[str, _InFlight]]:
    state = _InFlight()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers["Content-Length"]))
            with state.lock:
                state.now += 1
                state.calls += 1
                state.peak = max(state.peak, state.now)
            time.sleep(0.03)
            with state.lock:
                state.now -= 1
            raw = b'{"kind": "answer", "fact": "f"}'
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", state
    finally:
        server.shutdown()
        server.server_close()


def test_variants_on_one_endpoint_share_its_concurrency(
    tmp_path: Path, store: RunStore, slow_server: tuple[str, _InFlight]
) -> None:
    url, state = slow_server
    body = f"""concurrency: 3
retries: 0
target:
  type: http
  url: {url}/answer
  request: {{id: "{{{{id}}}}", model: "m"}}
"""
    sets = ("target.request.model=a,b,c,d",)
    result = run_matrix(_suite(tmp_path, body), store, sets=sets)
    assert state.calls == 40  # four variants × ten cases
    assert state.peak <= 3  # never more than the suite's concurrency on the one server
    assert state.peak == 3  # and the limit was used
    assert all(r.report.task_success.numerator == 10 for r in result.runs)


def test_one_variant_run_resumes_with_its_own_overrides(tmp_path: Path, store: RunStore) -> None:
    from assay.runner import resume_run

    suite = _suite(tmp_path, THREE)
    result = run_matrix(suite, store)
    a = result.runs[0].run_id
    with store.engine.begin() as conn:
        for table in (records, judgments):
            conn.execute(delete(table).where(table.c.run_id == a, table.c.case_id == "c1"))
    store.set_status(a, "interrupted")
    resumed = resume_run(store, a)  # the suite it was started from, variant a's target
    assert resumed.ran == 1 and resumed.status == "completed"
    assert resumed.report.task_success.numerator == 5  # c1 still fails, as variant a does


def test_variants_on_one_endpoint_share_its_rate_limit(tmp_path: Path, store: RunStore) -> None:
    from assay.runner import RunControl, Timing

    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    # A clock that never moves: every wait is the limiter's spacing of calls.
    control = RunControl(timing=Timing(sleep=sleep, clock=lambda: 0.0))
    body = "rpm: 60\ntarget:\n  type: scripted\n  default: {kind: answer, fact: f}\n"
    run_matrix(_suite(tmp_path, body), store, sets=("target.delay_s=0,0.0001",), control=control)
    # 2 variants × 10 cases at 60 per minute on one endpoint: 20 calls one second apart,
    # the last waiting 19 s (two separate limits would space each variant's 10 over 9 s).
    assert sorted(waits)[-1] == pytest.approx(19.0)
    assert len(waits) == 19


def test_endpoints_are_told_apart_by_url() -> None:
    from assay.runner._matrix import endpoint_of

    assert endpoint_of({"base_url": "http://h:1/v1/"}) == endpoint_of({"base_url": "http://h:1/v1"})
    assert endpoint_of({"url": "http://a/x"}) != endpoint_of({"url": "http://b/x"})
    assert endpoint_of({"type": "function", "callable": "m:f"}) == "function:m:f"


def test_variants_write_as_few_batches_as_one_run(
    tmp_path: Path, store: RunStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    from assay.runner import RunControl, Timing

    batches: dict[str, list[int]] = {}
    add_results = store.add_results

    def counted(run_id: str, batch: list[Record], judged: list[object]) -> None:
        batches.setdefault(run_id, []).append(len(batch))
        add_results(run_id, batch, judged)  # type: ignore[arg-type]

    monkeypatch.setattr(store, "add_results", counted)
    body = "target:\n  type: scripted\n  default: {kind: answer, fact: f}\n"
    path = _suite(tmp_path, body)
    _dataset(tmp_path, 250)
    # A clock that never moves: batches are written when full (or at the end) only.
    control = RunControl(timing=Timing(clock=lambda: 0.0))
    result = run_matrix(path, store, sets=("target.delay_s=0,0.0001,0.0002",), control=control)
    # One run alone writes 200 records at a time; three variants, 600 each.
    assert [batches[r.run_id] for r in result.runs] == [[250], [250], [250]]
    assert all(store.count_records(r.run_id) == 250 for r in result.runs)
    assert all(r.report.task_success.numerator == 250 for r in result.runs)


def test_every_variant_stores_the_cases_as_one_run_would(tmp_path: Path, store: RunStore) -> None:
    from sqlalchemy import select

    from assay.runner import run_suite

    result = run_matrix(_suite(tmp_path, THREE), store)
    single = run_suite(tmp_path / "suite.yaml", store)
    ids = [r.run_id for r in result.runs] + [single.run_id]
    with store.engine.connect() as conn:
        rows = conn.execute(select(runs_table.c.id, runs_table.c.cases)).all()
    stored = {row.id: row.cases for row in rows}
    assert len({stored[i] for i in ids}) == 1  # the same text, byte for byte
    assert [c["id"] for c in json.loads(stored[ids[0]])] == [f"c{i}" for i in range(1, 11)]
