"""The response cache: keys (trial number, every request parameter), no cached errors,
served replies keeping what was measured, clearing by age."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from assay.cases import Case, content_hash
from assay.errors import AssayConfigError
from assay.outcomes import Answer, Usage
from assay.runner._cache import (
    CACHE_KEY_VERSION,
    ResponseCache,
    cache_key,
    default_cache_path,
    parse_age,
    request_of,
)
from assay.targets import Reply, build_target, error_reply

CASE = Case(
    id="c1",
    slice="s",
    question="How long is the return window?",
    expected_behavior="answer",
    expected_fact="thirty",
)
BASE: dict[str, Any] = {"type": "openai", "base_url": "http://127.0.0.1:9/v1", "model": "m-1"}
NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def _key(settings: dict[str, Any], case: Case = CASE, trial: int | None = 1) -> str:
    target = build_target(settings)
    return cache_key(content_hash(target.config()), request_of(target, case), trial)


def test_the_trial_number_is_part_of_the_key_unless_the_target_is_deterministic() -> None:
    keys = {_key(BASE, trial=t) for t in (1, 2, 3)}
    assert len(keys) == 3  # K trials never share one answer
    assert _key(BASE, trial=None) not in keys  # deterministic: one key for every trial


@pytest.mark.parametrize(
    "change",
    [
        {"model": "m-2"},
        {"base_url": "http://127.0.0.1:10/v1"},
        {"temperature": 0.7},
        {"seed": 7},
        {"max_tokens": 64},
        {"system_prompt": "Answer briefly."},
        {"api_key_env": "OTHER_KEY"},
    ],
)
def test_every_request_parameter_changes_the_key(change: dict[str, Any]) -> None:
    assert _key({**BASE, **change}) != _key(BASE)


def test_the_rendered_messages_are_part_of_the_key() -> None:
    other = CASE.model_copy(update={"question": "How long is the exchange window?"})
    assert _key(BASE, other) != _key(BASE)
    assert _key(BASE, CASE) == _key(BASE, CASE.model_copy())  # the same request, the same key


def test_an_http_target_keys_on_its_filled_request() -> None:
    http = {"type": "http", "url": "http://127.0.0.1:9/a", "request": {"q": "{{prompt}}"}}
    target = build_target(http)
    assert request_of(target, CASE) == {"url": "http://127.0.0.1:9/a", "body": {"q": CASE.prompt}}
    assert _key({**http, "request": {"q": "{{prompt}}", "lang": "en"}}) != _key(http)


def test_a_function_target_keys_on_the_case_definition() -> None:
    target = build_target({"type": "scripted", "outcomes": {}})
    assert request_of(target, CASE)["id"] == "c1"
    label = CASE.model_copy(update={"expected_fact": "thirty_days"})
    assert request_of(target, label) != request_of(target, CASE)


def test_error_replies_are_never_cached(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "c.db")
    assert not cache.put("k", "http", error_reply("http_5xx", "down"), 3.0, 1, "r1", NOW)
    assert cache.get("k") is None
    cache.close()
    assert ResponseCache(tmp_path / "c.db").stats().entries == 0


def test_a_served_reply_keeps_its_usage_latency_and_time(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "c.db")
    reply = Reply(Answer(fact="thirty", text="30 days"), Usage(input_tokens=12, output_tokens=3))
    assert cache.put("k", "openai", reply, 812.5, 2, "run-1", NOW)
    assert cache.get("k") is not None  # served before it is written out
    cache.close()
    hit = ResponseCache(tmp_path / "c.db").get("k")
    assert hit is not None
    assert hit.reply.outcome == reply.outcome and hit.reply.usage == reply.usage
    assert (hit.latency_ms, hit.attempts, hit.run_id) == (812.5, 2, "run-1")
    assert hit.created_at == NOW.isoformat()


def test_clear_older_than_keeps_the_recent_entries(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "c.db")
    reply = Reply(Answer(fact="f"))
    cache.put("old", "t", reply, 1.0, 1, "r", NOW - timedelta(days=10))
    cache.put("new", "t", reply, 1.0, 1, "r", NOW - timedelta(days=1))
    assert cache.clear(timedelta(days=7), now=NOW) == 1
    assert cache.get("old") is None and cache.get("new") is not None
    stats = cache.stats()
    assert stats.entries == 1 and stats.by_key_version == {CACHE_KEY_VERSION: 1}
    assert cache.clear() == 1 and cache.stats().entries == 0
    cache.close()


def test_the_default_cache_sits_beside_a_sqlite_store() -> None:
    assert default_cache_path("sqlite:///runs/assay.db") == Path("runs/cache.db")
    assert default_cache_path("sqlite:////abs/x.db") == Path("/abs/cache.db")
    assert default_cache_path("postgresql+psycopg://u@h/db") == Path(".assay/cache.db")
    assert default_cache_path("sqlite:///:memory:") == Path(".assay/cache.db")


def test_ages() -> None:
    assert parse_age("7d") == timedelta(days=7)
    assert parse_age("12h") == timedelta(hours=12)
    assert parse_age("1.5m") == timedelta(seconds=90)
    with pytest.raises(AssayConfigError, match="--older-than"):
        parse_age("7 days")


def _cached_suite(tmp_path: Path) -> Path:
    (tmp_path / "cases.jsonl").write_text(
        '{"id": "c1", "slice": "s", "question": "q1", "expected_behavior": "answer", '
        '"expected_fact": "f"}\n'
        '{"id": "c2", "slice": "s", "question": "q2", "expected_behavior": "abstain"}\n',
        encoding="utf-8",
    )
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        "dataset: cases.jsonl\ntrials: 2\ncache: true\ntrace: true\n"
        "target:\n  type: scripted\n  default: {kind: answer, fact: f}\n",
        encoding="utf-8",
    )
    return suite


def test_a_served_case_trial_keeps_what_was_measured_and_records_no_span(
    tmp_path: Path,
) -> None:
    from assay.runner import run_suite
    from assay.store import open_store

    store = open_store(f"sqlite:///{tmp_path / 'runs.db'}")
    try:
        suite = _cached_suite(tmp_path)
        first = run_suite(suite, store)
        second = run_suite(suite, store)
        made = {r.key: r for r in store.records(first.run_id)}
        served = store.records(second.run_id)
        assert len(served) == 4 and len(store.spans(first.run_id)) > 0
        for record in served:
            original = made[record.key]
            assert record.extra["cache"]["hit"] is True
            assert record.extra["cache"]["run_id"] == first.run_id
            assert record.latency_ms == original.latency_ms  # the original measure
            assert record.outcome == original.outcome
            assert record.trace_id is None  # nothing was called, nothing traced
        assert store.spans(second.run_id) == []
        cache = second.report.cache
        assert cache is not None and (cache.served, cache.called) == (4, 0)
        assert second.report.task_success == first.report.task_success
        assert (tmp_path / "cache.db").is_file()
    finally:
        store.close()


def test_an_unreadable_entry_is_a_miss(tmp_path: Path) -> None:
    import sqlite3

    cache = ResponseCache(tmp_path / "c.db")
    cache.put("k", "t", Reply(Answer(fact="f")), 1.0, 1, "r", NOW)
    cache.close()
    with sqlite3.connect(tmp_path / "c.db") as db:
        db.execute("UPDATE responses SET reply = '{not json' WHERE key = 'k'")
    assert ResponseCache(tmp_path / "c.db").get("k") is None


def test_a_cache_that_cannot_be_written_never_stops_a_run(tmp_path: Path) -> None:
    import sqlite3

    cache = ResponseCache(tmp_path / "c.db")
    cache.put("k", "t", Reply(Answer(fact="f")), 1.0, 1, "r", NOW)
    holder = sqlite3.connect(tmp_path / "c.db", timeout=0)
    holder.execute("BEGIN EXCLUSIVE")  # another writer holds the file
    cache._db.execute("PRAGMA busy_timeout=0")
    cache.flush()
    holder.rollback()
    holder.close()
    assert cache.write_error is not None and "locked" in cache.write_error
    assert cache.get("k") is None  # not kept, and the run went on
    cache.close()


def test_a_file_that_is_not_a_cache_is_refused_clearly(tmp_path: Path) -> None:
    path = tmp_path / "c.db"
    path.write_text("not a database, " * 100, encoding="utf-8")
    with pytest.raises(AssayConfigError, match="cannot open the response cache"):
        ResponseCache(path)


def test_a_run_whose_cache_cannot_be_written_completes_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sqlite3

    from assay.runner import run_suite
    from assay.store import open_store

    def broken(self: ResponseCache) -> Any:
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(ResponseCache, "_transaction", broken)
    store = open_store(f"sqlite:///{tmp_path / 'runs.db'}")
    try:
        result = run_suite(_cached_suite(tmp_path), store)
    finally:
        store.close()
    assert result.status == "completed" and result.report.total == 4
    assert result.cache_error is not None and "disk I/O error" in result.cache_error


def _items(n: int, trials: int) -> list[Any]:
    from assay.runner._execute import WorkItem

    cases = [CASE.model_copy(update={"id": f"c{i}", "question": f"q{i}"}) for i in range(n)]
    pairs = [(c, t) for c in cases for t in range(1, trials + 1)]
    return [WorkItem(i, c, t) for i, (c, t) in enumerate(pairs)]


@pytest.mark.parametrize("deterministic", [False, True])
def test_keys_made_ahead_are_the_keys_of_each_request(tmp_path: Path, deterministic: bool) -> None:
    from assay.runner._cache import READ_AHEAD, CacheUse

    target = build_target(BASE)
    config = content_hash(target.config())
    use = CacheUse(ResponseCache(tmp_path / "c.db"), deterministic)
    items = _items(READ_AHEAD, 3)  # three windows
    use.expect("r1", items)
    for item in items:
        trial = None if deterministic else item.trial
        expected = cache_key(config, request_of(target, item.case), trial)
        assert use.key("r1", target, config, item.index, item.case, item.trial) == expected
    other = CASE.model_copy(update={"id": "x"})  # not what the run expects at that place
    assert use.key("r1", target, config, 0, other, 1) == _key(
        BASE, other, None if deterministic else 1
    )
    assert use.key("r2", target, config, 0, CASE, 2) == _key(
        BASE, CASE, None if deterministic else 2
    )
    use.cache.close()


def test_a_cached_rerun_reads_its_entries_in_a_few_queries(tmp_path: Path) -> None:
    from assay.runner._cache import READ_AHEAD, CacheUse

    target = build_target(BASE)
    config = content_hash(target.config())
    items = _items(READ_AHEAD + 7, 2)
    first = CacheUse(ResponseCache(tmp_path / "c.db"))
    first.expect("r1", items)
    for item in items:
        key = first.key("r1", target, config, item.index, item.case, item.trial)
        assert first.cache.get(key) is None
        reply = Reply(Answer(fact=item.case.id), Usage(input_tokens=item.trial, output_tokens=1))
        first.cache.put(key, "openai", reply, 5.0, 1, "r1", NOW)
        assert first.cache.get(key) is not None  # made after it was read ahead: served
    first.cache.close()

    again = CacheUse(ResponseCache(tmp_path / "c.db"))
    queries: list[str] = []
    again.cache._db.set_trace_callback(queries.append)
    again.expect("r2", items)
    for item in items:
        key = again.key("r2", target, config, item.index, item.case, item.trial)
        hit = again.cache.get(key)
        assert hit is not None and hit.reply.outcome == Answer(fact=item.case.id)
        assert hit.reply.usage == Usage(input_tokens=item.trial, output_tokens=1)
    selects = [q for q in queries if q.startswith("SELECT")]
    assert len(selects) == 3 and all(" IN (" in q for q in selects)  # 1,014 case-trials, 3 reads
    again.cache.close()


def test_an_entry_read_ahead_and_then_removed_is_read_again(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "c.db")
    cache.put("k", "t", Reply(Answer(fact="f")), 1.0, 1, "r", NOW)
    cache.flush()
    cache.read_ahead(["k", "absent"])
    assert cache.get("k") is not None and cache.get("absent") is None
    cache.clear()
    assert cache.get("k") is None  # cleared: nothing read ahead is served
    cache.put("absent", "t", Reply(Answer(fact="g")), 1.0, 1, "r", NOW)
    cache.flush()
    hit = cache.get("absent")
    assert hit is not None and hit.reply.outcome == Answer(fact="g")
    cache.close()


def test_a_reply_with_a_lone_surrogate_is_served_unchanged(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "c.db")
    reply = Reply(Answer(fact="f", text="half \udc80 a character"), None, None, {"raw": "\ud800"})
    assert cache.put("k", "t", reply, 1.0, 1, "r", NOW)
    cache.close()
    hit = ResponseCache(tmp_path / "c.db").get("k")
    assert hit is not None and hit.reply.outcome == reply.outcome
    assert hit.reply.extra == {"raw": "\ud800"}
