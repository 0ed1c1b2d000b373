"""The review page: refuses a POST without the server's token or from another origin,
keeps the judge out of the HTML until asked, draws a seeded order that covers both
verdicts, appends one line per label (who, when) and resumes at the first unlabelled
answer after a restart."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from tests.inprocess import run_cli
from tests.review_runs import FAILING, PASSING, judged_store
from tests.run_stores import fill_store

from assay.errors import AssayConfigError
from assay.load import read_labels as load_labels
from assay.report import HumanLabel, answer_digest
from assay.store import RunStore, open_store
from assay.view import Review, create_app, open_review
from assay.view._labels_file import LabelsFile
from assay.view._sample import stratified_order

BASE = "http://127.0.0.1:8765"
RATIONALE = "keyword judge"  # in every rationale the scripted judge writes


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    return judged_store(tmp_path_factory.mktemp("judged"))


@pytest.fixture
def reader(stored: tuple[str, str]) -> Iterator[RunStore]:
    opened = open_store(stored[0], read_only=True)
    yield opened
    opened.close()


def _client(reader: RunStore, review: Review) -> TestClient:
    return TestClient(create_app(reader, review=review), base_url=BASE, follow_redirects=False)


def _form(review: Review, position: int, **given: str) -> dict[str, str]:
    answer = review.answers[position - 1]
    form = {"csrf": review.token, "case": answer.case_id, "trial": str(answer.trial)}
    form |= {f"item-{ident}": "present" for ident, _, _ in answer.items}
    return form | {"verdict": "2", "reviewer": "rk"} | given


def _post(client: TestClient, review: Review, position: int, **given: str) -> Any:
    headers = {"Origin": BASE}
    return client.post(
        f"/review/{position}", data=_form(review, position, **given), headers=headers
    )


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.mark.parametrize(
    ("change", "headers"),
    [
        ({"csrf": ""}, {"Origin": BASE}),  # no token
        ({"csrf": "not-the-token"}, {"Origin": BASE}),  # a wrong one
        ({}, {"Origin": "http://evil.example"}),  # another site's page
        ({}, {"Referer": "http://evil.example/review/1"}),
        ({}, {}),  # neither Origin nor Referer
    ],
)
def test_a_post_without_the_token_or_from_elsewhere_is_refused(
    reader: RunStore, stored: tuple[str, str], tmp_path: Path, change: dict[str, str],
    headers: dict[str, str],
) -> None:  # fmt: skip
    labels = tmp_path / "labels.jsonl"
    review = open_review(reader, stored[1], labels)
    with _client(reader, review) as client:
        form = _form(review, 1) | change
        done = client.post("/review/1", data=form, headers=headers)
        assert done.status_code == 403
        # the same form with the token, from the page's own origin, is taken
        ok = client.post("/review/1", data=_form(review, 1), headers={"Referer": BASE + "/x"})
        assert ok.status_code == 303
    assert len(_lines(labels)) == 1


def test_the_token_header_is_taken_and_other_pages_stay_read_only(
    reader: RunStore, stored: tuple[str, str], tmp_path: Path
) -> None:
    review = open_review(reader, stored[1], tmp_path / "labels.jsonl")
    with _client(reader, review) as client:
        form = {k: v for k, v in _form(review, 1).items() if k != "csrf"}
        headers = {"Origin": BASE, "X-Assay-CSRF": review.token}
        assert client.post("/review/1", data=form, headers=headers).status_code == 303
        assert client.post("/", headers={"Origin": BASE}).status_code == 405
        assert client.get("/review", headers={"Host": "evil.example"}).status_code == 421


def test_the_page_is_blind_until_the_reviewer_asks_after_labelling(
    reader: RunStore, stored: tuple[str, str], tmp_path: Path
) -> None:
    review = open_review(reader, stored[1], tmp_path / "labels.jsonl")
    with _client(reader, review) as client:
        for position in range(1, len(review.answers) + 1):
            html = client.get(f"/review/{position}?reveal=1").text
            answer = review.answers[position - 1]
            assert answer.answer in html and answer.question in html
            assert RATIONALE not in html and "judge score" not in html
            assert 'id="judge"' not in html and 'id="reveal"' not in html
        assert _post(client, review, 1).status_code == 303
        labelled = client.get("/review/1").text
        assert RATIONALE not in labelled and 'id="reveal"' in labelled
        shown = client.get("/review/1?reveal=1").text
        assert review.answers[0].rationale in shown
    unblind = open_review(reader, stored[1], tmp_path / "other.jsonl", unblind=True)
    with _client(reader, unblind) as client:
        assert unblind.answers[0].rationale in client.get("/review/1").text


def test_the_order_is_seeded_and_takes_both_verdicts_in_turn(
    reader: RunStore, stored: tuple[str, str], tmp_path: Path
) -> None:
    def order(seed: int, wanted: int | None = None) -> list[tuple[str, str]]:
        review = open_review(reader, stored[1], tmp_path / "l.jsonl", seed=seed, wanted=wanted)
        return [(a.case_id, a.verdict) for a in review.answers]

    assert order(7) == order(7)
    assert order(7) != order(8)
    every = order(7)
    assert len(every) == PASSING + FAILING
    for pairs in range(1, FAILING + 1):  # any first 2k answers: k of each verdict
        verdicts = [v for _, v in every[: 2 * pairs]]
        assert verdicts.count("pass") == verdicts.count("fail") == pairs
    assert [v for _, v in every[2 * FAILING :]] == ["pass"] * (PASSING - FAILING)
    wanted = order(7, wanted=5)
    assert wanted == every[:5]


def test_each_label_is_one_appended_line_with_who_and_when(
    reader: RunStore, stored: tuple[str, str], tmp_path: Path
) -> None:
    labels = tmp_path / "labels.jsonl"
    labels.write_text('{"id": "elsewhere", "human": "pass", "reviewer": "mt"}')  # no newline
    review = open_review(reader, stored[1], labels, seed=5)
    before = datetime.now(UTC)
    with _client(reader, review) as client:
        assert _post(client, review, 1, verdict="1", note="partly").status_code == 303
        assert _post(client, review, 2, verdict="fail", reviewer="mt").status_code == 303
        skipped = _post(client, review, 3, verdict="").status_code
    assert skipped == 400
    lines = _lines(labels)
    assert lines[0] == {"id": "elsewhere", "human": "pass", "reviewer": "mt"}
    first, second = lines[1:]
    answer = review.answers[0]
    assert first["id"] == answer.case_id and first["trial"] == answer.trial
    assert first["human_score"] == 1 and first["note"] == "partly" and first["reviewer"] == "rk"
    assert first["items"] == {"R1": "present", "D1": "present"} and first["seed"] == 5
    assert first["answer"] == answer_digest(answer.outcome, answer.answer) == answer.digest
    when = datetime.fromisoformat(first["labelled_at"])
    assert when.tzinfo is not None and first["labelled_at"].endswith("Z")
    assert before - timedelta(seconds=1) <= when <= datetime.now(UTC)
    assert second["human"] == "fail" and second["reviewer"] == "mt" and "human_score" not in second
    assert [lab.id for lab in load_labels(labels)] == ["elsewhere", answer.case_id,
                                                        review.answers[1].case_id]  # fmt: skip


def test_a_restart_resumes_at_the_first_unlabelled_answer(
    reader: RunStore, stored: tuple[str, str], tmp_path: Path
) -> None:
    labels = tmp_path / "labels.jsonl"
    review = open_review(reader, stored[1], labels, seed=2)
    with _client(reader, review) as client:
        assert client.get("/review").headers["location"] == "/review/1"
        for position in (1, 2):
            assert _post(client, review, position).status_code == 303
    again = open_review(reader, stored[1], labels)  # the seed the file records: 2
    assert [a.key for a in again.answers] == [a.key for a in review.answers]
    with _client(reader, again) as client:
        assert client.get("/review?reviewer=rk").headers["location"] == "/review/3?reviewer=rk"
        done = client.get("/review/2").text
        assert 'data-done="true"' in done and "by rk" in done
        assert 'data-done="false"' in client.get("/review/3").text
        progress = client.get("/review/progress").text
        found = dict(
            re.findall(r'data-verdict="(\w+)"><td>\w+</td><td data-field="labelled">(\d)', progress)
        )
        assert sorted(found) == ["fail", "pass"] and sum(map(int, found.values())) == 2


def test_relabelling_supersedes_and_another_reviewers_label_is_kept(
    reader: RunStore, stored: tuple[str, str], tmp_path: Path
) -> None:
    labels = tmp_path / "labels.jsonl"
    review = open_review(reader, stored[1], labels)
    with _client(reader, review) as client:
        assert _post(client, review, 1, verdict="0").status_code == 303
        assert _post(client, review, 1, verdict="2").status_code == 303
        taken = _post(client, review, 1, verdict="1", reviewer="someone else")
    assert taken.status_code == 409 and "already labelled by rk" in taken.text
    assert len(_lines(labels)) == 2
    (label,) = load_labels(labels)
    assert label.human_score == 2


def test_a_second_browser_gets_another_answer(
    reader: RunStore, stored: tuple[str, str], tmp_path: Path
) -> None:
    review = open_review(reader, stored[1], tmp_path / "labels.jsonl")
    with _client(reader, review) as one, _client(reader, review) as two:
        assert one.get("/review").headers["location"] == "/review/1"
        assert two.get("/review").headers["location"] == "/review/2"


def test_a_bad_labels_file_is_named_with_line_and_field(
    stored: tuple[str, str], tmp_path: Path
) -> None:
    bad = tmp_path / "labels.jsonl"
    bad.write_text(
        '{"id": "C01", "human_score": 1, "reviewer": "rk"}\n{"id": "C02", "human_score": 7}\n'
    )
    before = bad.read_bytes()
    done = run_cli("view", "--store", stored[0], "--review", stored[1], "--labels", bad)
    assert done.returncode == 2
    assert f"{bad}:2" in done.stderr and "human_score" in done.stderr
    assert "Traceback" not in done.stderr and bad.read_bytes() == before
    wrong = run_cli(
        "view", "--store", stored[0], "--review", stored[1], "--labels", tmp_path / "l.csv"
    )
    assert wrong.returncode == 2 and ".jsonl" in wrong.stderr
    away = tmp_path / "no" / "labels.jsonl"
    nowhere = run_cli("view", "--store", stored[0], "--review", stored[1], "--labels", away)
    assert nowhere.returncode == 2 and "no such directory" in nowhere.stderr


def test_appends_from_many_threads_are_whole_lines_and_all_kept(tmp_path: Path) -> None:
    path = tmp_path / "labels.jsonl"
    file = LabelsFile(path)

    def append(reviewer: str) -> None:
        for i in range(40):
            file.append(HumanLabel(id=f"C{i}", trial=1, human="pass", reviewer=reviewer))

    threads = [threading.Thread(target=append, args=(f"r{n}",)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    lines = _lines(path)  # every line is whole JSON
    assert len(lines) == 240
    assert {(line["id"], line["reviewer"]) for line in lines} == {
        (f"C{i}", f"r{n}") for i in range(40) for n in range(6)
    }


def test_a_position_does_not_tell_the_judges_verdict() -> None:
    strata = {"pass": [f"P{i}" for i in range(4)], "fail": [f"F{i}" for i in range(4)]}
    firsts = {stratified_order(strata, seed)[0][0] for seed in range(20)}
    seconds = {stratified_order(strata, seed)[1][0] for seed in range(20)}
    assert firsts == seconds == {"P", "F"}


def test_a_run_no_model_judge_graded_has_nothing_to_review(tmp_path: Path) -> None:
    store = fill_store(f"sqlite:///{tmp_path / 'runs.db'}")
    labels = tmp_path / "labels.jsonl"
    done = run_cli("view", "--store", store, "--review", "base", "--labels", labels)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "run base was not graded by a model judge: nothing to review" in done.stderr
    unknown = run_cli("view", "--store", store, "--review", "nosuch", "--labels", labels)
    assert unknown.returncode == 2 and "nosuch" in unknown.stderr
    assert not labels.exists()


def test_a_labels_file_of_other_answers_to_the_run_s_cases_is_refused(
    reader: RunStore, stored: tuple[str, str], tmp_path: Path
) -> None:
    labels = tmp_path / "labels.jsonl"
    review = open_review(reader, stored[1], labels, seed=3)
    with _client(reader, review) as client:
        assert _post(client, review, 1).status_code == 303
    assert open_review(reader, stored[1], labels).answers  # its own answers: goes on
    first = _lines(labels)[0]
    labels.write_text(json.dumps(first | {"answer": "0" * 16}) + "\n")  # another run's answer
    with pytest.raises(AssayConfigError, match=r"other answers to 1 of run .*" + first["id"]):
        open_review(reader, stored[1], labels)
