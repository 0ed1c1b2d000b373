"""A stored row changed outside assay is named in one ``StoreError``: the store, the run,
the kind of row, the case and trial (or the item of the run's cases, or the span) and the
column, on SQLite and on PostgreSQL alike; the rest of the store still reads."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from sqlalchemy import update
from tests.run_stores import fill_store, store_beyond_trials

from assay.errors import StoreError
from assay.grading import Judgment
from assay.metrics import IntervalSetting
from assay.runs import report_for_run, stored_summary
from assay.runs._outcomes import outcome_damage
from assay.runs._paired import paired_comparison
from assay.store import RunStore, open_store
from assay.store._damage import row_failure
from assay.store._schema import case_index, judgments, records, runs, spans


@pytest.fixture
def filled(store_url: str) -> Iterator[RunStore]:
    """Runs ``base`` and ``cand`` of the seed cases, ``base`` judged."""
    fill_store(store_url)
    store = open_store(store_url)
    store.add_judgments(
        "base",
        [Judgment(case_id=f"E{i}", trial=1, status="passed", reason="r", grader="structured",
                  grader_version="1", score=1.0, labels=("l",)) for i in range(1, 7)],
    )  # fmt: skip
    try:
        yield store
    finally:
        store.close()


def _changed(store: RunStore, table: Any, values: dict[str, Any], **where: Any) -> None:
    with store.engine.begin() as conn:
        conn.execute(update(table).where(*(table.c[k] == v for k, v in where.items())), values)


def _item_broken(store: RunStore) -> None:
    with store.engine.connect() as conn:
        snapshot = conn.execute(runs.select().where(runs.c.id == "base")).mappings().one()
    items = json.loads(snapshot["cases"])
    items[2]["expected_behavior"] = "maybe"
    _changed(store, runs, {"cases": json.dumps(items)}, id="base")


Read = Callable[[RunStore], object]


def _outcomes_checked(store: RunStore) -> None:
    """What ``gate`` and ``compare`` check of a run's outcomes before counting it."""
    damage = outcome_damage(store.engine, "base")
    if damage is not None:
        raise row_failure(damage, store.url)


# (damage, what the message names, how it is read)
CASES: list[tuple[Callable[[RunStore], None], str, Read]] = [
    (lambda s: _changed(s, records, {"outcome": "not an outcome"}, run_id="base", case_id="E2"),
     'a record assay cannot read: run base, case "E2", trial 1, column outcome: '
     "'not an outcome' is not valid: Invalid JSON",
     lambda s: s.records("base")),
    (lambda s: _changed(s, records, {"outcome": "not an outcome"}, run_id="base", case_id="E2"),
     'a record assay cannot read: run base, case "E2", trial 1, column outcome: ',
     lambda s: report_for_run(s, "base", compact=True).model_dump()),
    (lambda s: _changed(s, records, {"outcome": "not an outcome"}, run_id="base", case_id="E2"),
     'a record assay cannot read: run base, case "E2", trial 1, column outcome: '
     "'not an outcome' is not valid: Invalid JSON",
     _outcomes_checked),
    (lambda s: _changed(s, records, {"outcome": '{"kind": "abstain"}'}, run_id="base",
                        case_id="E2"),
     'a record assay cannot read: run base, case "E2", trial 1, column outcome: '
     """'{"kind": "abstain"}' is not of the kind stored beside it ('answer')""",
     _outcomes_checked),
    (lambda s: _changed(s, records, {"extra": "[1"}, run_id="base", case_id="E4"),
     'a record assay cannot read: run base, case "E4", trial 1, column extra: '
     "'[1' is not JSON",
     lambda s: s.case_records("E4")),
    (lambda s: _changed(s, judgments, {"labels": "{"}, run_id="base", case_id="E3"),
     'a judgment assay cannot read: run base, case "E3", trial 1, column labels: '
     "'{' is not JSON",
     lambda s: s.judgments("base")),
    (lambda s: _changed(s, judgments, {"status": "weird"}, run_id="base", case_id="E3"),
     'a judgment assay cannot read: run base, case "E3", trial 1, column status: ',
     lambda s: s.graders_judgments("base", "structured", "1")),
    (lambda s: _changed(s, spans, {"attributes": "{bad"}, run_id="base", span_id="ret"),
     'a span assay cannot read: run base, span "ret", case "E2", trial 1, column '
     "attributes: '{bad' is not JSON",
     lambda s: s.spans("base")),
    (lambda s: _changed(s, runs, {"summary": "{bad"}, id="base"),
     "a run assay cannot read: run base, column summary: '{bad' is not JSON",
     lambda s: s.list_runs()),
    (lambda s: _changed(s, runs, {"trials": 0}, id="base"),
     "a run assay cannot read: run base, column trials: 0: ",
     lambda s: s.get_run("base")),
    (_item_broken,
     'a run assay cannot read: run base, column cases, item 3, case "E3": expected_behavior: ',
     lambda s: s.load_dataset("base")),
    (lambda s: _changed(s, case_index, {"codes": "[0, 0"}, run_id="base"),
     "a run's case index assay cannot read: run base, column codes: '[0, 0' is not JSON",
     lambda s: stored_summary(s, "base")),
    # a trial past the run's one trial: every count would leave it out, so it is named
    *[(lambda s: store_beyond_trials(s, "base", "E2", 7),
       'a record assay cannot read: run base, case "E2", trial 7, column trial: 7 is outside '
       "the run's trials, 1 to 1",
       read)
      for read in (
          lambda s: stored_summary(s, "base"),
          lambda s: report_for_run(s, "base", compact=True),
          lambda s: report_for_run(s, "base"),
          lambda s: paired_comparison(s, "base", "cand", interval=IntervalSetting()),
      )],
]  # fmt: skip


@pytest.mark.parametrize(("damage", "named", "read"), CASES)
def test_a_damaged_row_is_named(
    filled: RunStore, damage: Callable[[RunStore], None], named: str, read: Read
) -> None:
    damage(filled)
    reader = open_store(filled.url)  # nothing of the run read before the damage
    try:
        with pytest.raises(StoreError) as caught:
            read(reader)
        message = str(caught.value)
        assert caught.value.kind == "damaged"
        assert message.startswith(f"the store {filled.url} holds "), message
        assert named in message, message
        assert "changed outside assay or is damaged. Nothing was written to it." in message
        assert "\n" not in message
        assert [r.case_id for r in reader.records("cand")] == ["E1", "E2", "E3", "E4", "E6"]
    finally:
        reader.close()
