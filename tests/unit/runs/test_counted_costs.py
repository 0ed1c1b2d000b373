"""A run's record costs counted on SQLite (token counts read as two texts, priced in
numpy) are, value for value, the records' ``(i * input + o * output) / 1_000_000``."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import insert

from assay.report import Price
from assay.runs._figures import _costs
from assay.store import open_store
from assay.store._schema import records

_TOKENS = st.one_of(st.none(), st.integers(0, 2**62), st.integers(0, 5_000))
_PRICES = st.floats(0, 1e6, allow_nan=False, allow_infinity=False)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(_TOKENS, _TOKENS), max_size=30), _PRICES, _PRICES)
def test_costs_in_numpy_are_the_records_costs(
    tokens: list[tuple[int | None, int | None]], price_in: float, price_out: float
) -> None:
    price = Price(input=price_in, output=price_out)
    with tempfile.TemporaryDirectory() as tmp:
        store = open_store(f"sqlite:///{Path(tmp) / 'assay.db'}")
        try:
            rows = [
                {
                    "run_id": "r",
                    "case_id": f"K{n}",
                    "trial": 1,
                    "position": n,
                    "outcome": '{"kind":"abstain"}',
                    "attempts": 1,
                    "input_tokens": i,
                    "output_tokens": o,
                }
                for n, (i, o) in enumerate(tokens)
            ]
            with store.engine.begin() as conn:
                if rows:
                    conn.execute(insert(records), rows)
            with store.engine.connect() as conn:
                costs = _costs(conn, {"run": "r"}, price)
        finally:
            store.close()
    expected = [
        (i * price.input + o * price.output) / 1_000_000
        for i, o in tokens
        if i is not None and o is not None
    ]
    assert sorted(costs) == sorted(expected)  # summed exactly (fsum), in any order
    assert all(type(c) is float for c in costs)
