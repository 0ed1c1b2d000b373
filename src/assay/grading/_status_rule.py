"""The status rule: what assay decides about a case-trial itself, whatever the grader, and
the forms of that rule for counting a whole run at once.

A case-trial with no record is ``missing``; an error outcome is ``error``; an agent
whose trajectory ended at the step limit (``ended == "step_limit"``, with whatever final
outcome it recorded) has ``failed``, for the reason "step limit"; any other outcome has
the status its grader gives it (a stored judgment, or grading it now). ``status_of`` is
the rule. Every other form is generated from it by evaluating it over its finite inputs,
never written again:

- ``counted_status``/``COUNTED_STATUS``: the status a recorded case-trial is counted
  under from its kind's and its stored status's small-integer codes (for numpy);
- ``status_sql``: the rule as a SQL ``CASE`` over a record's kind and its stored
  judgment's status (for a run's rows in the store);
- ``kind_sql``/``status_code_sql``: the codes as SQL ``CASE`` expressions.

A stored run stores each case-trial's judgment, the step limit's included, so the forms
over stored statuses read the step limit in the stored status; the structured grader's
packed verdicts (``grading._packed``) read it off each record that carries a trajectory.

A case-trial is packed in one integer by ``LAYOUT`` (``pack``, ``field_of`` and
``pack_sql`` are its only readers and writers); ``tests/property/test_status_rule.py``
holds every form equal to ``status_of`` and the layout's forms equal to each other.
"""

from __future__ import annotations

from typing import Any

from assay.grading._judgment import STATUSES, Status

RECORDED_KINDS: tuple[str | None, ...] = ("error", "answer", None, "abstain")
"""The kinds a record's outcome can be, by code: error 0, answer 1, none 2 (no kind
stored), and 3 for any other (an abstention)."""
ERROR_KIND, ANSWER_KIND, NO_KIND, OTHER_KIND = range(len(RECORDED_KINDS))

STATUS_CODES: tuple[str | None, ...] = (None, "passed", "failed", "ungraded", "missing", "error")
"""The stored statuses by code: none 0 (no judgment stored), then by name; 6 is any
status that is none of these, 7 a recorded answer or abstention only grading can judge."""
NONE, PASSED, FAILED, UNGRADED, MISSING, ERROR = range(len(STATUS_CODES))
OTHER, UNJUDGED = 6, 7
UNJUDGED_MARK = "?"
"""How a stored run's SQL marks a case-trial only grading can judge (``UNJUDGED``)."""


def status_of(
    recorded: bool, kind: str | None, verdict: str | None, step_limit: bool = False
) -> str | None:
    """The status of a case-trial: ``missing`` when nothing is ``recorded``, ``error`` for
    an error outcome, ``failed`` when its agent was stopped at the ``step_limit``, else
    its grader's ``verdict`` (None when it has none yet).

    >>> status_of(False, None, None), status_of(True, "error", "passed")
    ('missing', 'error')
    >>> status_of(True, "answer", "failed"), status_of(True, "answer", "passed", True)
    ('failed', 'failed')
    """
    if not recorded:
        return "missing"
    if kind == "error":
        return "error"
    if step_limit:
        return "failed"
    return verdict


def rule_status(recorded: bool, errored: bool, step_limit: bool = False) -> Status | None:
    """The status assay gives a case-trial without its grader (``status_of`` when the
    grader has said nothing), or None when the grader decides."""
    return _RULED[recorded, errored, step_limit]


def _named(status: str | None) -> Status | None:
    if status is None:
        return None
    for name in STATUSES:
        if name == status:
            return name
    raise ValueError(f"{status!r} is none of the statuses")


_RULED: dict[tuple[bool, bool, bool], Status | None] = {
    (recorded, errored, limited): _named(
        status_of(recorded, "error" if errored else None, None, limited)
    )
    for recorded in (False, True)
    for errored in (False, True)
    for limited in (False, True)
}


def kind_code(kind: str | None) -> int:
    """The code of an outcome of ``kind`` (``RECORDED_KINDS``)."""
    return RECORDED_KINDS.index(kind) if kind in RECORDED_KINDS[:OTHER_KIND] else OTHER_KIND


def status_code(status: str | None) -> int:
    """The code of a stored ``status`` (``STATUS_CODES``; ``UNJUDGED_MARK`` is
    ``UNJUDGED``, any other text ``OTHER``)."""
    if status == UNJUDGED_MARK:
        return UNJUDGED
    return STATUS_CODES.index(status) if status in STATUS_CODES else OTHER


def _status_name(code: int) -> str | None:
    """A stored status's value for its code (``OTHER`` as a text no status has)."""
    if code == UNJUDGED:
        return UNJUDGED_MARK
    return "other" if code == OTHER else STATUS_CODES[code]


def counted_status(kind: int, status: int) -> int:
    """The code of the status a recorded case-trial of kind code ``kind`` whose stored
    status has code ``status`` is counted under: ``status_of`` on the codes."""
    return status_code(status_of(True, RECORDED_KINDS[kind], _status_name(status)))


COUNTED_STATUS: tuple[tuple[int, ...], ...] = tuple(
    tuple(counted_status(kind, status) for status in range(8))
    for kind in range(len(RECORDED_KINDS))
)
"""``counted_status`` of every kind and status code, as ``COUNTED_STATUS[kind][status]``."""


LAYOUT: tuple[tuple[str, int], ...] = (
    ("position", 256),
    ("kind", 64),
    ("status", 4),
    ("labelled", 2),
    ("noted", 1),
)
"""How a case-trial's codes share one integer: each field times its weight, summed; a
field's values are below the weight of the field before it."""
_WEIGHT = dict(LAYOUT)
_SPAN = dict(zip([name for name, _ in LAYOUT[1:]], [w for _, w in LAYOUT[:-1]], strict=True))


def pack(position: Any, kind: Any, status: Any, labelled: Any = 0, noted: Any = 0) -> Any:
    """A case-trial's codes packed in one integer by ``LAYOUT`` (numpy arrays or ints)."""
    fields = (position, kind, status, labelled, noted)
    packed = fields[0] * LAYOUT[0][1]
    for value, (_, weight) in zip(fields[1:], LAYOUT[1:], strict=True):
        packed = packed + value * weight
    return packed


def field_of(packed: Any, name: str) -> Any:
    """The field ``name`` of ``LAYOUT`` of packed integers (numpy arrays or ints)."""
    weight = _WEIGHT[name]
    return packed // weight if name == "position" else packed // weight % (_SPAN[name] // weight)


LOWS = LAYOUT[0][1]
"""How many values the fields under the position take together (a case-trial's "low
byte"): ``pack(position, ...) == position * LOWS + low``."""


def low_of(packed: Any) -> Any:
    """What a packed integer holds under its position: ``pack(0, kind, status, ...)``."""
    return packed % LOWS


def pack_sql(**fields: str) -> str:
    """``pack`` as SQL: the SQL expression of each field named (those left out are 0)."""
    unknown = set(fields) - set(_WEIGHT)
    if unknown:
        raise ValueError(f"no field {sorted(unknown)} in the layout")
    return " + ".join(f"({fields[name]}) * {w}" for name, w in LAYOUT if name in fields)


def kind_sql(kind: str, null: str) -> str:
    """The SQL ``CASE`` giving the code of the kind ``kind`` (an SQL expression);
    ``null`` is an SQL literal no kind is, standing for a kind that is NULL."""
    whens = " ".join(
        f"WHEN {null if k is None else _literal(k)} THEN {code}"
        for code, k in enumerate(RECORDED_KINDS[:OTHER_KIND])
    )
    return f"CASE COALESCE({kind}, {null}) {whens} ELSE {OTHER_KIND} END"


def status_code_sql(status: str) -> str:
    """The SQL ``CASE`` giving the code of the stored status ``status`` (an SQL column)."""
    whens = " ".join(
        f"WHEN {_literal(name)} THEN {code}"
        for code, name in enumerate(STATUS_CODES)
        if name is not None
    )
    return (
        f"CASE WHEN {status} IS NULL THEN {NONE} ELSE CASE {status} {whens} "
        f"WHEN {_literal(UNJUDGED_MARK)} THEN {UNJUDGED} ELSE {OTHER} END END"
    )


_VERDICT = "\0verdict"


def status_sql(kind: str, verdict: str) -> str:
    """``status_of`` as a SQL ``CASE`` over a recorded case-trial's ``kind`` and its
    grader's ``verdict`` (SQL expressions): the kinds whose status does not depend on the
    verdict, each with that status; else the verdict."""
    fixed = [
        (k, status_of(True, k, _VERDICT))
        for k in RECORDED_KINDS[:OTHER_KIND]
        if k is not None and status_of(True, k, _VERDICT) != _VERDICT
    ]
    if status_of(True, None, _VERDICT) != _VERDICT or status_of(True, "abstain", _VERDICT) != (
        _VERDICT
    ):
        raise ValueError("the status rule fixes a status no SQL form here can express")
    whens = " ".join(f"WHEN {kind} = {_literal(k)} THEN {_literal(s)}" for k, s in fixed)
    return f"CASE {whens} ELSE {verdict} END" if whens else verdict


def _literal(text: str | None) -> str:
    if text is None:
        return "NULL"
    return "'" + text.replace("'", "''") + "'"
