"""Tables of figures as dataframes, pandas or polars (optional extras, never needed by the
rest of assay): each column is declared once with its type, so both backends give the
same columns with the same dtypes."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

Backend = Literal["pandas", "polars"]
ColumnKind = Literal["str", "int", "float", "bool", "datetime"]

BACKENDS: tuple[Backend, ...] = ("pandas", "polars")

PANDAS_DTYPES: dict[ColumnKind, str] = {
    "str": "string",
    "int": "Int64",
    "float": "Float64",
    "bool": "boolean",
    "datetime": "datetime64[us, UTC]",
}
"""The pandas dtype of each kind of column (pandas' nullable dtypes: a missing value is
``<NA>``, never a 0 or an empty string)."""

POLARS_DTYPES: dict[ColumnKind, str] = {
    "str": "String",
    "int": "Int64",
    "float": "Float64",
    "bool": "Boolean",
    "datetime": "Datetime(time_unit='us', time_zone='UTC')",
}
"""The polars dtype of each kind of column (a missing value is null)."""


@dataclass(frozen=True)
class FrameColumn:
    """A column of a dataframe assay makes: its name, kind and meaning."""

    name: str
    kind: ColumnKind
    meaning: str


def make_frame(
    columns: Sequence[FrameColumn], values: Mapping[str, Sequence[Any]], backend: str, what: str
) -> Any:
    """A pandas or polars DataFrame of ``values`` (a list per column name) with the
    declared columns in order; ``what`` names the call in the message when ``backend``
    is not installed (``pip install 'assay[pandas]'``)."""
    if backend not in BACKENDS:
        raise ValueError(f"{what}: backend {backend!r}; choose pandas or polars")
    if backend == "pandas":
        return _pandas(columns, values, what)
    return _polars(columns, values, what)


def _missing(backend: str, what: str) -> ModuleNotFoundError:
    return ModuleNotFoundError(
        f"{what} with backend={backend!r} needs {backend}, an optional extra of assay: "
        f"pip install 'assay[{backend}]'",
        name=backend,
    )


def _pandas(columns: Sequence[FrameColumn], values: Mapping[str, Sequence[Any]], what: str) -> Any:
    try:
        # Imported here: pandas is an optional extra, loaded only when a frame is asked for.
        import pandas as pd
    except ModuleNotFoundError as err:
        raise _missing("pandas", what) from err
    data = {
        c.name: pd.array(list(values[c.name]), dtype=PANDAS_DTYPES[c.kind])
        if c.kind != "datetime"
        else pd.Series(pd.to_datetime(list(values[c.name]), utc=True)).astype(
            PANDAS_DTYPES["datetime"]
        )
        for c in columns
    }
    return pd.DataFrame(data, columns=[c.name for c in columns])


def _polars(columns: Sequence[FrameColumn], values: Mapping[str, Sequence[Any]], what: str) -> Any:
    try:
        # Imported here: polars is an optional extra, loaded only when a frame is asked for.
        import polars as pl
    except ModuleNotFoundError as err:
        raise _missing("polars", what) from err
    kinds: dict[ColumnKind, Any] = {
        "str": pl.String,
        "int": pl.Int64,
        "float": pl.Float64,
        "bool": pl.Boolean,
        "datetime": pl.Datetime(time_unit="us", time_zone="UTC"),
    }
    schema = {c.name: kinds[c.kind] for c in columns}
    return pl.DataFrame({c.name: list(values[c.name]) for c in columns}, schema=schema)


__all__ = [
    "BACKENDS",
    "PANDAS_DTYPES",
    "POLARS_DTYPES",
    "Backend",
    "ColumnKind",
    "FrameColumn",
    "make_frame",
]
