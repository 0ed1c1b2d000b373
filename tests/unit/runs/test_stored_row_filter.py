"""The store's reads behind a report's listed rows: ``recorded_slots`` names exactly the
case-trials that have a record, and ``judged_records(leave_out=…)`` leaves out (on
SQLite) only records whose stored verdict of such a status is on an answer or an
abstention of the usual shape, every other record coming back as it does without."""

from __future__ import annotations

from tests.unit.runs.test_stored_summary import _cases, _fill

from assay.store import open_store


def test_recorded_slots_and_the_records_left_out(store_url: str) -> None:
    store = open_store(store_url)
    try:
        _fill(store, "three", 2, _cases(30, True), 3)
        info = store.get_run("three")
        every = [
            row
            for batch in store.judged_records("three", "structured", "1", 3, 30)
            for row in batch
        ]
        slots = sorted(store.recorded_slots("three", 3, 30).tolist())
        assert slots == [row[0] * 3 + row[2] - 1 for row in every]
        assert len(slots) < 90  # some case-trials have no record
        left = [
            row
            for batch in store.judged_records(
                "three", "structured", "1", info.trials, 30, leave_out=["passed", "failed"]
            )
            for row in batch
        ]
        if store.engine.dialect.name != "sqlite":
            assert left == every  # left out on SQLite only
            return
        out = [row for row in every if row not in left]
        assert out and all(row[10] in ("passed", "failed") for row in out)
        assert all(row[9] is None and row[3].startswith('{"kind":"a') for row in out)
        assert [row for row in every if row in left] == left  # the same order
        kept = [row for row in left if row[10] in ("passed", "failed")]
        assert all(not row[3].startswith('{"kind":"a') or row[9] is not None for row in kept)
    finally:
        store.close()
