"""Every form of the status rule equals ``status_of``: the codes' table, the SQL ``CASE``
expressions a stored run is read with (run on SQLite), the sums a case-trial adds to a
summary (the numpy table, both ways of counting with it and the database's counts by
key and low byte), and the structured grader's packed verdicts (against grading each
record)."""

from __future__ import annotations

import sqlite3
from itertools import product
from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from assay.cases import Case
from assay.grading import StructuredGrader, grade
from assay.grading._packed import _VERDICTS, structured_verdicts
from assay.grading._status_rule import (
    COUNTED_STATUS,
    RECORDED_KINDS,
    STATUS_CODES,
    UNJUDGED_MARK,
    field_of,
    kind_code,
    kind_sql,
    low_of,
    pack,
    pack_sql,
    rule_status,
    status_code,
    status_code_sql,
    status_of,
    status_sql,
)
from assay.metrics._tally import SUMS, cell_tallies, sum_columns, tallies
from assay.outcomes import Abstain, Answer, Error, Record, Results, Trajectory, trajectory_extra

KINDS: list[str | None] = ["error", "answer", "abstain", None, "odd"]
STORED: list[str | None] = [*STATUS_CODES, UNJUDGED_MARK, "odd"]


def test_the_rule_decides_missing_and_error_and_leaves_the_rest_to_the_grader() -> None:
    assert status_of(False, None, None) == "missing"
    assert status_of(False, "answer", "passed") == "missing"
    assert status_of(True, "error", "passed") == "error"
    for kind in ("answer", "abstain", None):
        for verdict in STORED:
            assert status_of(True, kind, verdict) == verdict
    assert rule_status(False, False) == "missing"
    assert rule_status(True, True) == "error"
    assert rule_status(True, False) is None


def test_the_rule_fails_an_agent_stopped_at_its_step_limit_whatever_the_verdict() -> None:
    for kind, verdict in product(["answer", "abstain", None], STORED):
        assert status_of(True, kind, verdict, step_limit=True) == "failed"
    assert status_of(True, "error", "passed", step_limit=True) == "error"
    assert status_of(False, None, None, step_limit=True) == "missing"
    assert rule_status(True, False, True) == "failed"
    assert rule_status(True, True, True) == "error"


def test_the_codes_table_is_the_rule_on_codes() -> None:
    for kind, stored in product(KINDS, STORED):
        expected = status_code(status_of(True, kind, stored))
        assert COUNTED_STATUS[kind_code(kind)][status_code(stored)] == expected, (kind, stored)


def _sqlite_rows() -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE t (kind TEXT, status TEXT)")
    conn.executemany("INSERT INTO t VALUES (?, ?)", list(product(KINDS, STORED)))
    return conn


def test_the_sql_forms_are_the_rule_and_its_codes() -> None:
    conn = _sqlite_rows()
    kind_number = kind_sql("kind", "x'00'")
    query = (
        f"SELECT kind, status, {kind_number}, {status_code_sql('status')}, "
        f"{status_sql('kind', 'status')} FROM t"
    )
    rows = conn.execute(query).fetchall()
    assert len(rows) == len(KINDS) * len(STORED)
    for kind, stored, kind_number, status_number, status in rows:
        assert kind_number == kind_code(kind), kind
        assert status_number == status_code(stored), stored
        assert status == status_of(True, kind, stored), (kind, stored)


_CASE_TRIAL = st.tuples(
    st.integers(0, 5),  # key
    st.sampled_from(KINDS),
    st.sampled_from(STORED),
    st.booleans(),  # labelled
    st.booleans(),  # noted
)


def _counted_by_hand(
    items: list[tuple[int, str | None, str | None, bool, bool]], absent: str | None
) -> dict[int, dict[str, int]] | None:
    """Each key's sums, counted one case-trial at a time with ``status_of``."""
    out: dict[int, dict[str, int]] = {}
    for key, kind, stored, labelled, noted in items:
        status = status_of(True, kind, stored)
        if status is None:
            status = UNJUDGED_MARK if absent is None else absent
        if status == UNJUDGED_MARK and absent is None:
            return None
        sums = out.setdefault(key, dict.fromkeys(SUMS, 0))
        answered = kind == "answer"
        sums["recorded"] += 1
        for name, counted in (
            ("passed", "passed"),
            ("failed", "failed"),
            ("error", "error"),
            ("ungraded", "ungraded"),
            ("judged_missing", "missing"),
            ("unjudged", UNJUDGED_MARK),
        ):
            sums[name] += status == counted
        sums["answered"] += answered
        sums["correct"] += answered and status == "passed"
        sums["errored"] += kind == "error"
        sums["labelled"] += labelled and kind not in ("error", None)
        sums["cache_notes"] += noted
        sums["answered_unknown"] += answered and status in ("error", "missing", "ungraded")
    return out


def _low(kind: str | None, stored: str | None, labelled: bool, noted: bool) -> int:
    return int(pack(0, kind_code(kind), status_code(stored), int(labelled), int(noted)))


@settings(max_examples=300, deadline=None)
@given(st.lists(_CASE_TRIAL, max_size=40), st.sampled_from([None, "ungraded"]))
def test_every_way_of_counting_equals_counting_by_hand(
    items: list[tuple[int, str | None, str | None, bool, bool]], absent: str | None
) -> None:
    expected = _counted_by_hand(items, absent)
    rows = None if expected is None else [(k, *v.values()) for k, v in sorted(expected.items())]
    values = np.array(
        [int(pack(k, 0, 0)) + _low(kind, s, lab, n) for k, kind, s, lab, n in items],
        dtype=np.int64,
    )
    assert tallies(values, None, 6, absent) == rows
    # the same integers keyed through a group code each (every key its own group)
    assert tallies(values, list(range(6)), 6, absent) == rows
    cells: dict[tuple[int, int], int] = {}
    for k, kind, s, lab, n in items:
        cells[k, _low(kind, s, lab, n)] = cells.get((k, _low(kind, s, lab, n)), 0) + 1
    counted = cell_tallies([(k, low, c) for (k, low), c in cells.items()], size=6, absent=absent)
    if rows is None:  # given all the same, saying how many need grading
        assert any(row[1 + SUMS.index("unjudged")] for row in counted)
    else:
        assert counted == rows


@settings(max_examples=50, deadline=None)
@given(st.lists(_CASE_TRIAL, min_size=1, max_size=40))
def test_counting_many_keys_by_masks_equals_counting_by_cells(
    items: list[tuple[int, str | None, str | None, bool, bool]],
) -> None:
    """Past ``_CELLS`` keys the sums are read off the table a column at a time."""
    size = (1 << 22) // 256 + 1  # one key too many to count by cells
    values = np.array(
        [int(pack(k * 1000, 0, 0)) + _low(kind, s, lab, n) for k, kind, s, lab, n in items],
        dtype=np.int64,
    )
    many = sum_columns(values, None, size, "ungraded")
    assert many is not None
    expected = _counted_by_hand([(k * 1000, *rest) for k, *rest in items], "ungraded")
    assert expected is not None
    for key, sums in expected.items():
        assert [column[key] for column in many] == list(sums.values())


def _case(abstain: bool) -> Case:
    return Case(
        id="c",
        slice="s",
        question="q",
        expected_behavior="abstain" if abstain else "answer",
        expected_fact=None if abstain else "expected",
    )


def test_the_packed_structured_verdicts_are_the_grader_s() -> None:
    grader = StructuredGrader()
    outcomes: dict[tuple[int, bool, bool], Any] = {
        (kind_code("error"), False, False): Error(message="boom"),
        (kind_code("abstain"), False, False): Abstain(),
        (kind_code("answer"), True, False): Answer(fact=None, text="free text"),
        (kind_code("answer"), False, True): Answer(fact="expected"),
        (kind_code("answer"), False, False): Answer(fact="other"),
    }
    checked = 0
    for (kind, keyless, matched), outcome in outcomes.items():
        for abstain in (False, True):
            if matched and abstain:
                continue  # an abstention case has no expected fact to match
            record = Record(case_id="c", outcome=outcome)
            status = status_of(True, RECORDED_KINDS[kind], None)
            if status is None:
                status = grader.grade(_case(abstain), record).status
            index = ((kind * 2 + abstain) * 2 + keyless) * 2 + matched
            assert _VERDICTS[index] == status_code(status), (outcome, abstain)
            checked += 1
    assert checked == 9


@settings(max_examples=100, deadline=None)
@given(
    st.integers(0, 1 << 40),
    st.integers(0, 3),
    st.integers(0, 15),
    st.integers(0, 1),
    st.integers(0, 1),
)
def test_the_layout_s_forms_agree(
    position: int, kind: int, status: int, labelled: int, noted: int
) -> None:
    packed = pack(position, kind, status, labelled, noted)
    fields = {"position": position, "kind": kind, "status": status}
    fields |= {"labelled": labelled, "noted": noted}
    assert {name: field_of(packed, name) for name in fields} == fields
    array = pack(np.array([position]), kind, status, labelled, noted)
    assert array.tolist() == [packed]
    assert int(low_of(packed)) == pack(0, kind, status, labelled, noted)
    sql = pack_sql(**{name: str(value) for name, value in fields.items()})
    assert sqlite3.connect(":memory:").execute(f"SELECT {sql}").fetchone()[0] == packed


_ENDINGS = st.sampled_from([None, "answered", "step_limit", "model_error", "timeout", "broken"])
_OUTCOMES = st.sampled_from(
    [Error(message="boom"), Abstain(), Answer(fact="expected"), Answer(fact="other")]
)


def _extra(ending: str | None) -> dict[str, Any]:
    if ending is None:
        return {}
    if ending == "broken":  # not a trajectory: the rule leaves it to the grader
        return {"trajectory": {"ended": "nowhere"}, "other": 1}
    trajectory = Trajectory.model_validate({"ended": ending})
    return {"trajectory": trajectory_extra(trajectory)}


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.booleans(), _OUTCOMES, _ENDINGS), min_size=1, max_size=12))
def test_the_packed_verdicts_see_the_step_limit_as_grading_does(
    items: list[tuple[bool, Any, str | None]],
) -> None:
    cases = [
        _case(abstain).model_copy(update={"id": f"c{i}"}) for i, (abstain, _, _) in enumerate(items)
    ]
    records = [
        Record(case_id=f"c{i}", outcome=outcome, extra=_extra(ending))
        for i, (_, outcome, ending) in enumerate(items)
    ]
    packed = structured_verdicts(cases, records)
    assert packed is not None
    graded = grade(cases, Results(tuple(records)), StructuredGrader())
    assert field_of(packed.values, "status").tolist() == [status_code(r.status) for r in graded]
    for result, (_, outcome, ending) in zip(graded, items, strict=True):
        if ending == "step_limit" and not isinstance(outcome, Error):
            assert result.status == "failed"
