"""How a stored run's summary is counted, each way measured side by side on one store.

On a SQLite store holding run ``base`` (filled by ``stored_scale.py --fill-child N URL``),
times in this process (CPU seconds, best of ``--repeat``):

- the cases' groups (slice, synthetic, split): read off the cases' snapshot in
  ``runs.cases`` (what a run stored before schema version 4 needs) against the run's row
  in ``case_index``;
- the case-trials counted by group: SQLite's ``GROUP BY`` (it sorts them) against one
  packed text of the records joined to their judgments counted by numpy (what a run
  holding a judgment stored before schema version 5 without a record needs), against
  the records and the judgments packed apart and put side by side by numpy
  (read by ``assay.runs._tally``, counted by ``assay.metrics._tally``: what assay
  does), and against reading both tables' columns into pyarrow and joining and
  grouping there (the columnar path of Python's own reader), and against ConnectorX's
  columns (read in Rust straight into Arrow) joined and grouped by Polars and by DuckDB
  (``pip install 'assay[columnar]'``; DuckDB reads SQLite itself only through an
  extension it downloads);
- ``stored_summary`` whole, with the run's case index and with its row taken away (a
  copy of the store, so the store measured is never written).

    .venv/bin/python bench/stored_counting.py sqlite:///STORE [--write bench/RESULTS.md]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

RUN = "base"


def best(repeat: int, work: Callable[[], object]) -> float:
    """The least CPU seconds ``work`` took in ``repeat`` calls."""
    least = float("inf")
    for _ in range(repeat):
        started = time.process_time()
        work()
        least = min(least, time.process_time() - started)
    return least


def _arrow_counts(conn: Any, params: dict[str, Any]) -> object:
    """Both tables' columns read into pyarrow, joined and grouped there."""
    import pyarrow as pa
    from sqlalchemy import text

    rec = conn.execute(
        text(
            "SELECT case_id, trial, position, json_extract(outcome, '$.kind') "
            "FROM records WHERE run_id = :run"
        ),
        params,
    ).fetchall()
    jd = conn.execute(
        text(
            "SELECT case_id, trial, status, labels FROM judgments "
            "WHERE run_id = :run AND grader = :grader AND grader_version = :version"
        ),
        params,
    ).fetchall()
    left = pa.table([list(c) for c in zip(*rec, strict=True)], ["case_id", "trial", "pos", "kind"])
    right = pa.table([list(c) for c in zip(*jd, strict=True)], ["case_id", "trial", "st", "lab"])
    joined = left.join(right, keys=["case_id", "trial"], join_type="left outer")
    return joined.group_by(["kind", "st"]).aggregate([("pos", "count")])


def _columns(url: str, params: dict[str, Any]) -> tuple[Any, Any]:
    """The columns ``RECORDS`` and ``JUDGMENTS`` pack (slot, kind, noted; slot, status,
    labelled) read by ConnectorX (Rust, straight into Arrow: no Python row objects)."""
    import connectorx

    from assay.runs._tally import _KIND, _STATUS

    where = (  # ConnectorX takes no bound parameters: the bench's own values
        f"run_id = '{params['run']}' AND trial BETWEEN 1 AND {int(params['trials'])}"
    )
    records = connectorx.read_sql(
        url,
        f"SELECT rec.position AS pos, rec.trial AS trial, ({_KIND}) AS kind, "
        "(CASE WHEN rec.extra LIKE '%\"cache\"%' THEN 1 ELSE 0 END) AS noted "
        f"FROM records rec WHERE rec.{where} "
        f"AND rec.position >= 0 AND rec.position < {int(params['cases'])}",
        return_type="arrow",
    )
    judgments = connectorx.read_sql(
        url,
        f"SELECT jd.position AS pos, jd.trial AS trial, ({_STATUS}) AS status, "
        "(CASE WHEN jd.labels <> '[]' THEN 1 ELSE 0 END) AS labelled "
        f"FROM judgments jd WHERE jd.{where} AND grader = '{params['grader']}' "
        f"AND grader_version = '{params['version']}'",
        return_type="arrow",
    )
    return records, judgments


def _polars_counts(url: str, params: dict[str, Any], codes: list[int]) -> list[tuple[int, ...]]:
    """The case-trials counted by (group, kind, status, labelled, noted) by Polars, from
    ConnectorX's columns."""
    import polars as pl

    records, judgments = _columns(url, params)
    groups = pl.DataFrame({"pos": range(len(codes)), "code": codes})
    counted = (
        pl.from_arrow(records)
        .join(groups, on="pos", how="left")
        .join(pl.from_arrow(judgments), on=["pos", "trial"], how="left")
        .group_by(["code", "kind", "status", "labelled", "noted"])
        .agg(pl.len())
        .sort(["code", "kind", "status", "labelled", "noted"], nulls_last=True)
    )
    return [tuple(row) for row in counted.iter_rows()]


def _duckdb_counts(url: str, params: dict[str, Any], codes: list[int]) -> list[tuple[int, ...]]:
    """``_polars_counts`` by DuckDB, over the same Arrow columns."""
    import duckdb
    import pyarrow as pa

    records, judgments = _columns(url, params)
    groups = pa.table({"pos": range(len(codes)), "code": codes})
    with duckdb.connect() as db:
        for name, table in (("rec", records), ("jd", judgments), ("grp", groups)):
            db.register(name, table)
        found = db.execute(
            "SELECT code, kind, status, labelled, noted, COUNT(*) FROM rec "
            "LEFT JOIN grp USING (pos) LEFT JOIN jd USING (pos, trial) "
            "GROUP BY ALL ORDER BY code, kind, status NULLS LAST, labelled NULLS LAST, noted"
        ).fetchall()
    return [tuple(row) for row in found]


def _columnar(url: str, repeat: int, params: dict[str, Any], codes: list[int]) -> dict[str, Any]:
    """ConnectorX + Polars and ConnectorX + DuckDB, each checked against the other; a note
    instead of figures when they are not installed (``pip install 'assay[columnar]'``)."""
    try:
        import connectorx  # noqa: F401
        import duckdb  # noqa: F401
        import polars  # noqa: F401
    except ImportError:
        return {"counted: ConnectorX + Polars / DuckDB": "not installed"}
    by_polars = _polars_counts(url, params, codes)
    if by_polars != _duckdb_counts(url, params, codes):
        raise SystemExit("Polars and DuckDB counted the case-trials differently")
    return {
        "counted: columns read by ConnectorX (read only)": best(
            repeat, lambda: _columns(url, params)
        ),
        "counted: ConnectorX's columns joined and grouped by Polars": best(
            repeat, lambda: _polars_counts(url, params, codes)
        ),
        "counted: ConnectorX's columns joined and grouped by DuckDB": best(
            repeat, lambda: _duckdb_counts(url, params, codes)
        ),
    }


def measure(url: str, repeat: int) -> tuple[int, dict[str, Any]]:
    """The case-trials of run ``base`` and each way's CPU seconds."""
    from sqlalchemy import delete, text

    from assay.metrics import rate
    from assay.metrics._tally import tallies
    from assay.runs import _summary, _tally, stored_summary
    from assay.store import open_store
    from assay.store._case_index import read_case_index
    from assay.store._schema import case_index

    # imports (scipy: counts above the small table of limits) are not what is measured
    rate(1_000, 2_000, "cases")
    figures: dict[str, Any] = {}
    store = open_store(url, create=False)
    try:
        info = store.get_run(RUN)
        with store.engine.connect() as conn:
            index = read_case_index(conn, RUN)
            if index is None:
                raise SystemExit(f"run {RUN!r} of {url} has no case index: fill it with this tree")
            figures["case groups: off the cases' snapshot"] = best(
                repeat, lambda: _summary._snapshot_cases(conn, RUN, False, False)
            )
            figures["case groups: the run's case_index row"] = best(
                repeat, lambda: read_case_index(conn, RUN)
            )
            params = {
                "run": RUN,
                "trials": info.trials,
                "grader": "structured",
                "version": "1",
                "absent": "?",
                "cases": len(index.codes),
            }
            groups = len(index.groups)

            def counted(most: int) -> Callable[[], object]:
                def work() -> object:
                    kept = _summary.MOST
                    _summary.MOST = most
                    try:
                        return _summary._counted_rows(
                            conn, "sqlite", dict(params), index.codes, groups, False, None
                        )
                    finally:
                        _summary.MOST = kept

                return work

            def joined() -> object:
                found = conn.execute(text(_tally.PACKED), params).one()
                return tallies(_tally.packed_values(*found), index.codes, groups, None)

            figures["counted: SQLite GROUP BY"] = best(repeat, counted(-1))
            figures["counted: records joined to judgments in SQLite, one packed text + numpy"] = (
                best(repeat, joined)
            )
            figures["counted: records and judgments apart, two packed texts + numpy (assay)"] = (
                best(repeat, counted(_summary.MOST))
            )
            figures["counted: columns into pyarrow, joined and grouped there"] = best(
                repeat, lambda: _arrow_counts(conn, params)
            )
        figures.update(_columnar(url, repeat, params, index.codes))
        total = stored_summary(store, RUN).total
        figures["stored_summary, with the case index"] = best(
            repeat, lambda: stored_summary(store, RUN)
        )
    finally:
        store.close()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(url.removeprefix("sqlite:///"))
        copy = Path(tmp) / "copy.db"
        shutil.copy(path, copy)
        for side in ("-wal", "-shm"):
            if Path(f"{path}{side}").exists():
                shutil.copy(f"{path}{side}", f"{copy}{side}")
        store = open_store(f"sqlite:///{copy}", create=False)
        try:
            with store.engine.begin() as conn:
                conn.execute(delete(case_index).where(case_index.c.run_id == RUN))
            figures["stored_summary, a run stored before the case index"] = best(
                repeat, lambda: stored_summary(store, RUN)
            )
        finally:
            store.close()
    return total, figures


def render(total: int, figures: dict[str, Any], repeat: int, load: str) -> str:
    """The Markdown section for ``bench/RESULTS.md``."""
    from stored_scale import _commit

    lines = [
        "## Counting a stored run's summary, side by side",
        "",
        f"`bench/stored_counting.py`: run `base` of `stored_scale.py`'s workload, {total:,} "
        f"case-trials on SQLite, at {_commit()}; CPU seconds in one process, best of "
        f"{repeat}. Load average when measured: {load}. The columnar paths: both tables' "
        "columns read by Python's sqlite3 into pyarrow; or read by ConnectorX (Rust, straight "
        "into Arrow) and joined and grouped by Polars or by DuckDB (over the same Arrow "
        "columns: DuckDB reads a SQLite file itself only through an extension it downloads, "
        "which this machine cannot). ConnectorX, Polars and DuckDB use several threads: "
        "their CPU is that of every thread.",
        "",
        "| What | CPU |",
        "|---|---:|",
    ]
    lines += [
        f"| {name} | {cpu:.3f} s |" if isinstance(cpu, float) else f"| {name} | {cpu} |"
        for name, cpu in figures.items()
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Measure each way on the store at URL; print the section, write it into ``--write``."""
    from _sections import write_section

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("url", help="a SQLite store holding run 'base' (sqlite:///PATH)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--write", type=Path, help="results file to update (a section)")
    args = parser.parse_args(argv)
    total, figures = measure(args.url, args.repeat)
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    section = render(total, figures, args.repeat, load)
    sys.stdout.write(section)
    if args.write:
        write_section(args.write, "stored_counting", section)
    return 0


if __name__ == "__main__":
    sys.exit(main())
