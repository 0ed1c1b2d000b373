"""A stored run's summary counted where its rows are: SQL ``GROUP BY`` queries over the
run's records joined to their judgments, grouped by the slice, synthetic flag and split
the run's stored case definitions give each case (or by case, with several trials), give
the same ``Summary`` as grading every case-trial and counting them in Python.

A case-trial's status is what grading it again would give: ``missing`` with no record,
``error`` for an error outcome, else the judgment stored by the grader that would judge
it now (same name and version). When a recorded answer has no such judgment and that
grader could judge it, only grading can say its status: the summary is then made by
grading (``stored_summary`` falls back; ``counted_summary`` returns None).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, select, text
from sqlalchemy.exc import OperationalError

from assay.cases import LAYOUT, Layout
from assay.errors import StoreError
from assay.grading import STATUSES, grade, kind_sql, pack_sql, status_code_sql
from assay.metrics import (
    DEFAULT_INTERVAL,
    Counts,
    IntervalSetting,
    Summary,
    TrialPolicy,
    UncountedStatus,
    cell_tallies,
    per_case_counts,
    per_group_counts,
    summarize_results,
    summary_from_counts,
    tallies,
)
from assay.outcomes import Results
from assay.runs._run_settings import StoredGrader, UnavailableGrader, run_grader, trial_policy
from assay.runs._slots import check_trials, misplaced_damage, slot_damage, trial_damage
from assay.runs._tally import JUDGMENTS, MOST, PACKED, RECORDS, joined_values, packed_values
from assay.store import (
    DamagedRow,
    Group,
    RunInfo,
    RunStore,
    json_items,
    judgments,
    read_case_ids,
    read_case_index,
    row_failure,
    rows_named,
    runs,
    shown,
    snapshot_text,
)

# The outcome's kind: stored beside it since schema version 5, else read off it.
_KIND = {
    "sqlite": "COALESCE(rec.kind, json_extract(rec.outcome, '$.kind'))",
    "postgresql": "COALESCE(rec.kind, CAST(rec.outcome AS json) ->> 'kind')",
}
# The group of the case at a record's position: ``width`` bytes of the codes parameter.
_GROUP = {
    "sqlite": "substr(:codes, rec.position * {width} + 1, {width})",
    "postgresql": "substring(CAST(:codes AS bytea) FROM rec.position * {width} + 1 FOR {width})",
}
# Each of the run's case-trials of the dataset's cases by key (its case's position, or its
# group's code) and its low byte as ``metrics._tally`` counts it: the outcome's kind code,
# the stored judgment's status code (both generated from the status rule's codes), whether
# the judgment has labels and whether the record says if the cache served it. No status is
# decided here: ``metrics._tally.cell_tallies`` applies the status rule to the codes.
_CODED = """
SELECT {key} AS k, {low} AS low, COUNT(*)
FROM records rec
LEFT JOIN judgments jd
  ON jd.run_id = rec.run_id AND jd.case_id = rec.case_id AND jd.trial = rec.trial
     AND jd.grader = :grader AND jd.grader_version = :version
WHERE rec.run_id = :run AND rec.trial BETWEEN 1 AND :trials
  AND rec.position >= 0 AND rec.position < :cases
GROUP BY 1, 2
"""
# A literal no outcome's kind is, standing for a kind that is NULL.
_NO_KIND = {"sqlite": "x'00'", "postgresql": "'\x01'"}
# A JSON string as written, its escapes included.
_STRING = r'"(?:[^"\\]|\\.)*"'


def group_keys(layout: Layout) -> re.Pattern[str]:
    """The keys of a case's group in a snapshot of cases laid out as ``layout`` (keys sorted,
    every field present but those newer than the rubric, which may be absent), and the
    keys between them: (slice, source revision, split, synthetic) as written. A case with a
    newer field set (a starting state) is not matched: it is parsed, as one with metadata is."""
    return re.compile(
        layout.pattern(
            "requires_citation",
            layout.fields[-1],
            {
                "requires_citation": "(?:true|false)",
                "slice": f"({_STRING})",
                "source_revision": f"(null|{_STRING})",
                "sources": f"(?:null|\\{{(?:{_STRING}:{_STRING},?)*\\}})",
                "split": f"({_STRING})",
                "synthetic": "(true|false)",
            },
            older=True,
        )
        + r"\}"
    )


def id_keys(layout: Layout) -> re.Pattern[str]:
    """A case's id, as written, between the keys around it in a snapshot of cases laid out
    as ``layout``."""
    values = {"group": f"(?:null|{_STRING})", "id": f"({_STRING})", "messages": ""}
    return re.compile(layout.pattern("group", "messages", values, older=True))


_GROUP_KEYS = group_keys(LAYOUT)
_ID = id_keys(LAYOUT)


@dataclass(frozen=True, slots=True)
class CountedRun:
    """A run's counts (per case, or per group of cases) and its cases' source revisions;
    with ``ids``, each case's id and its group's index in ``groups``."""

    items: list[Counts]
    revisions: list[str]
    ids: list[str] = field(default_factory=list)
    codes: list[int] = field(default_factory=list)
    groups: list[Group] = field(default_factory=list)


def _scanned_groups(text: str) -> tuple[list[Group], list[int], list[str]] | None:
    """Each case's group read off the snapshot's text without parsing each case (a
    million cases parse in seconds), as the distinct groups, each case's index into
    them and the cases' source revisions, when no case has metadata (the one field that
    may hold any keys); None otherwise.

    Without metadata, only a case's own ``requires_citation`` key can have a true or false
    value (``sources`` maps strings to strings), so their number is the number of cases;
    when it equals the cases with empty metadata, none has any, and when the group keys
    match as many times, the i-th match is case i's."""
    cases = text.count('"requires_citation":true') + text.count('"requires_citation":false')
    if text.count('"metadata":{}') != cases:
        return None
    found = _GROUP_KEYS.findall(text)
    if len(found) != cases:
        return None
    code: dict[tuple[str, str, str], int] = {}
    codes = [code.setdefault((k[0], k[3], k[2]), len(code)) for k in found]
    distinct = [(json.loads(k[0]), k[1] == "true", json.loads(k[2])) for k in code]
    revisions = {k[1] for k in found} - {"null"}
    return distinct, codes, [json.loads(r) for r in revisions]


def _scanned_ids(text: str, cases: int) -> list[str] | None:
    """Each case's id read off the snapshot's text, when ``_scanned_groups`` could read
    its ``cases`` groups (no case has metadata): None when the keys around an id occur
    other than once per case (a case's ``sources`` naming them)."""
    found = _ID.findall(text)
    if len(found) != cases:
        return None
    return [raw[1:-1] if "\\" not in raw else json.loads(raw) for raw in found]


def _parsed_cases(text: str) -> tuple[list[str], list[Group], list[str]]:
    """Each case's id and group, and the cases' source revisions, each case parsed."""
    ids: list[str] = []
    groups: list[Group] = []
    revisions: set[str] = set()
    for item in json_items(text):
        ids.append(str(item["id"]))
        if item.get("source_revision"):
            revisions.add(str(item["source_revision"]))
        groups.append(
            (str(item["slice"]), bool(item.get("synthetic")), str(item.get("split", "dev")))
        )
    return ids, groups, list(revisions)


def _snapshot_cases(
    conn: Connection, run_id: str, per_case: bool, ids_apart: bool
) -> tuple[list[Group], list[int], list[str], list[str], list[Group]]:
    """What ``read_case_index`` gives, read off the run's cases' snapshot (a run stored
    before the index existed): the distinct groups, each case's index into them, the
    source revisions, the case ids (when ``per_case``, or ``ids_apart`` and the report
    lists them) and each case's group (when ``per_case``)."""
    snapshot = snapshot_text(
        conn.execute(select(runs.c.cases).where(runs.c.id == run_id)).scalar_one()
    )
    ids: list[str] | None = []
    scanned = _scanned_groups(snapshot)
    if scanned is not None and per_case:
        ids = _scanned_ids(snapshot, len(scanned[1]))
    if scanned is None or ids is None:
        ids, groups, revisions = _parsed_cases(snapshot)
        distinct = list(dict.fromkeys(groups))
        index = {g: i for i, g in enumerate(distinct)}
        return distinct, [index[g] for g in groups], revisions, ids, groups
    distinct, codes, revisions = scanned
    groups = [distinct[c] for c in codes] if per_case else []
    if ids_apart and _apart(distinct) and not per_case:
        ids = _scanned_ids(snapshot, len(codes))
        if ids is None:
            ids = _parsed_cases(snapshot)[0]
    return distinct, codes, revisions, ids, groups


def _apart(groups: list[Group]) -> bool:
    """Whether a report lists case ids by group: synthetic cases, or real cases of both
    splits."""
    real = {g[2] for g in groups if not g[1]}
    return any(g[1] for g in groups) or {"dev", "heldout"} <= real


def case_counts(
    store: RunStore,
    info: RunInfo,
    grader: str,
    version: str,
    absent: str | None,
    ids_apart: bool = False,
) -> CountedRun | None:
    """The run's case-trials counted by the database, in dataset order: one ``Counts``
    per case when the run has several trials, else one per (slice, synthetic, split)
    group. ``absent`` is the status of a recorded answer without ``grader``'s judgment
    (``ungraded``), or None when it must be graded. None when some case-trial needs
    grading or the store's database cannot count them. ``ids_apart``: the case ids too
    when there are synthetic cases or both a dev and a held-out split (their sections
    list them)."""
    dialect = store.engine.dialect.name
    if dialect not in _KIND:
        return None
    with store.engine.connect() as conn, rows_named(store.url, info.id):
        damage = trial_damage(conn, info.id, info.trials)
        if damage is not None:
            raise damage
        per_case = info.trials > 1
        indexed = read_case_index(conn, info.id)
        if indexed is not None:
            distinct, codes, revisions = indexed.groups, indexed.codes, indexed.revisions
            groups = [distinct[c] for c in codes] if per_case else []
            listed = per_case or (ids_apart and _apart(distinct))
            ids = read_case_ids(conn, info.id, len(codes)) if listed else []
        else:
            distinct, codes, revisions, ids, groups = _snapshot_cases(
                conn, info.id, per_case, ids_apart
            )
        params: dict[str, Any] = {
            "run": info.id,
            "trials": info.trials,
            "grader": grader,
            "version": version,
            "cases": len(codes),
        }
        try:
            rows = _counted_rows(conn, dialect, params, codes, len(distinct), per_case, absent)
        except OperationalError:
            # e.g. a SQLite built without its JSON functions: the rows are graded instead,
            # and a store that cannot be read says so there
            return None
        except ValueError:
            damage = slot_damage(conn, info.id)
            if damage is None:
                if not ids:
                    ids = (
                        read_case_ids(conn, info.id, len(codes))
                        if indexed
                        else _snapshot_cases(conn, info.id, True, False)[3]
                    )
                damage = misplaced_damage(conn, info.id, ids, info.trials)
            if damage is None:
                raise
            raise damage from None
    if rows is None:
        return None
    items = (
        per_case_counts(rows, ids, groups) if per_case else per_group_counts(rows, distinct, codes)
    )
    if items is None:
        return None
    return CountedRun(items, sorted(revisions), ids, codes, distinct)


def _counted_rows(
    conn: Connection,
    dialect: str,
    params: dict[str, Any],
    codes: list[int],
    groups: int,
    per_case: bool,
    absent: str | None,
) -> Sequence[Sequence[Any]] | None:
    """``metrics._tally.tallies``' rows, keyed by group index or (``per_case``) position: on
    SQLite from one packed text (``_tally``), unless a run is too large for it, else from
    the database's counts by key and low byte (``_CODED``); None when some
    case-trial must be graded."""
    if dialect == "sqlite" and params["cases"] * params["trials"] <= MOST:
        keys = None if per_case else codes
        size = params["cases"] if per_case else groups
        values = _packed(conn, params)
        counted = tallies(values, keys, size, absent) if values is not None else None
        if counted is None:
            # a record read apart without its judgment (or a judgment without a
            # position): joined by case id, as a store whose positions were changed
            # outside assay still joins
            joined = packed_values(*conn.execute(text(PACKED), params).one())
            counted = tallies(joined, keys, size, absent)
        return counted
    width = 1 if groups <= 256 else 2
    if per_case:
        key = "rec.position"
    elif groups > 65_536:
        return None
    else:
        params["codes"] = (
            bytes(codes) if width == 1 else b"".join(c.to_bytes(2, "big") for c in codes)
        )
        key = _GROUP[dialect].format(width=width)
    low = pack_sql(
        kind=kind_sql(_KIND[dialect], _NO_KIND[dialect]),
        status=status_code_sql("jd.status"),
        labelled="CASE WHEN COALESCE(jd.labels, '[]') <> '[]' THEN 1 ELSE 0 END",
        noted="""CASE WHEN rec.extra LIKE '%"cache"%' THEN 1 ELSE 0 END""",
    )
    query = _CODED.format(key=key, low=low)
    found = conn.execute(text(query), params).fetchall()
    cells = [
        (row[0] if per_case else int.from_bytes(bytes(row[0]), "big"), row[1], row[2])
        for row in found
    ]
    return cell_tallies(cells, size=params["cases"] if per_case else groups, absent=absent)


def _packed(conn: Connection, params: dict[str, Any]) -> Any:
    """The run's case-trials as ``_tally.PACKED`` gives them, from its records and
    judgments read apart; None when a judgment has no position (stored before version 5
    without a record).

    The records are read first: a run being written stores each record with its
    judgment, so the judgments read after them hold every counted record's (those of
    records stored in between are not looked at)."""
    count, recorded, every = conn.execute(text(RECORDS), params).one()
    if every != count:
        raise ValueError(f"{every - count} of the run's records at no case's position")
    unplaced, judged = conn.execute(text(JUDGMENTS), params).one()
    if unplaced:
        return None
    return joined_values(count, recorded, judged, params["trials"], params["cases"])


def status_damage(store: RunStore, info: RunInfo, grader: str, version: str) -> StoreError:
    """The error naming the first judgment of run ``info`` by ``grader`` at ``version``
    whose status is none of the statuses (found once its counts did not add up)."""
    damage = unknown_status(store, info, grader, version)
    if damage is None:  # a status of another type, e.g. a number
        damage = DamagedRow("judgments", "status", "a status is none of the statuses", run=info.id)
    return row_failure(damage, store.url)


def unknown_status(store: RunStore, info: RunInfo, grader: str, version: str) -> Any:
    """The ``DamagedRow`` of the first judgment of run ``info`` by ``grader`` at
    ``version`` whose status is none of the statuses; None when there is none."""
    query = (
        select(judgments.c.case_id, judgments.c.trial, judgments.c.status)
        .where(
            judgments.c.run_id == info.id,
            judgments.c.grader == grader,
            judgments.c.grader_version == version,
            judgments.c.status.not_in(STATUSES),
        )
        .order_by(judgments.c.position, judgments.c.trial)
        .limit(1)
    )
    with store.engine.connect() as conn:
        found = conn.execute(query).first()
    if found is None:
        return None
    what = f"{shown(found.status)} is none of the statuses ({', '.join(STATUSES)})"
    return DamagedRow(
        "judgments", "status", what, run=info.id, case=found.case_id, trial=found.trial
    )


def counted_summary(
    store: RunStore,
    info: RunInfo,
    *,
    interval: IntervalSetting = DEFAULT_INTERVAL,
    policy: TrialPolicy | None = None,
) -> Summary | None:
    """The summary of stored run ``info`` counted by the database (trials combined by
    ``policy``, none: the mean), or None when some case-trial must be graded first."""
    grader = run_grader(info)
    absent = "ungraded" if isinstance(grader, UnavailableGrader) else None
    counts = case_counts(store, info, grader.name, grader.version, absent)
    if counts is None:
        return None
    try:
        return summary_from_counts(counts.items, info.trials, interval=interval, policy=policy)
    except UncountedStatus:
        raise status_damage(store, info, grader.name, grader.version) from None


def stored_summary(
    store: RunStore,
    run_id: str,
    *,
    interval: IntervalSetting = DEFAULT_INTERVAL,
    policy: TrialPolicy | None = None,
) -> Summary:
    """The summary of stored run ``run_id`` (an id or a unique prefix): the figures of
    ``assay report RUN``, counted by the database where it can (a million case-trials in
    a few seconds), else by grading the records read back. Trials combine by ``policy``
    when given, else as the run's suite stated."""
    info = store.get_run(run_id)
    chosen = policy if policy is not None else trial_policy(info)
    counted = counted_summary(store, info, interval=interval, policy=chosen)
    if counted is not None:
        return counted
    check_trials(store, info)
    fallback = run_grader(info)
    judged = store.graders_judgments(info.id, fallback.name, fallback.version)
    graded = grade(
        store.load_dataset(info.id).cases,
        Results(tuple(store.records(info.id))),
        StoredGrader(judged, fallback),
        trials=info.trials,
    )
    return summarize_results(graded, interval=interval, policy=chosen)
