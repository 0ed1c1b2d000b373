"""Many rows into one table, given as tuples of values in the table's column order."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, Table

_STATEMENTS: dict[tuple[str, str], str] = {}


def insert_rows(conn: Connection, table: Table, rows: Sequence[tuple[Any, ...]]) -> None:
    """Insert ``rows`` with one statement executed for all of them.

    On SQLite the statement goes to the driver as written: SQLAlchemy's processing of each
    row's parameters costs more than SQLite's own insert of the row. Other databases get
    the table's insert (their drivers batch it their own way).
    """
    if conn.dialect.name == "sqlite" and conn.dialect.paramstyle == "qmark":
        conn.exec_driver_sql(_statement(conn, table), rows)
        return
    names = [column.name for column in table.columns]
    conn.execute(table.insert(), [dict(zip(names, row, strict=True)) for row in rows])


def _statement(conn: Connection, table: Table) -> str:
    key = (conn.dialect.name, table.name)
    found = _STATEMENTS.get(key)
    if found is None:
        quote = conn.dialect.identifier_preparer.quote
        columns = ", ".join(quote(column.name) for column in table.columns)
        marks = ", ".join("?" for _ in table.columns)
        found = _STATEMENTS[key] = f"INSERT INTO {quote(table.name)} ({columns}) VALUES ({marks})"
    return found
