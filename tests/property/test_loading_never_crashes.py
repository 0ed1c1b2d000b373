"""Whatever a file holds, loading it either succeeds or raises an ``AssayError``: the CLI
can always print a message instead of a traceback."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from assay import AssayError, load_dataset, load_results

SUFFIXES = (".jsonl", ".json", ".yaml", ".csv")

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.sampled_from(
                [
                    "id",
                    "slice",
                    "question",
                    "expected_behavior",
                    "expected_fact",
                    "kind",
                    "fact",
                    "trial",
                    "cases",
                    "name",
                    "metadata",
                    "accepted_facts",
                    "synthetic",
                    "x",
                ]
            ),
            inner,
            max_size=6,
        )
    ),
    max_leaves=12,
)
contents = st.one_of(
    st.text(max_size=200),
    st.lists(json_values, max_size=5).map(lambda rows: "\n".join(json.dumps(r) for r in rows)),
    json_values.map(json.dumps),
)


def _load_both(data: str | bytes, suffix: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"data{suffix}"
        path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
        for load in (load_dataset, load_results):
            try:
                loaded = load(path)
            except AssayError as err:
                message = str(err)
                assert message.strip()
                # Input errors name the file; id errors name the offending ids.
                assert str(path) in message or "ID" in message or "result" in message
            else:
                # A dataset has cases; a results file may have none (every case missing).
                if hasattr(loaded, "cases"):
                    assert len(loaded.cases) > 0


@settings(max_examples=300, deadline=None)
@given(contents, st.sampled_from(SUFFIXES))
def test_loading_raises_only_assay_errors(text: str, suffix: str) -> None:
    _load_both(text, suffix)


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=100), st.sampled_from(SUFFIXES))
def test_binary_garbage_raises_only_assay_errors(data: bytes, suffix: str) -> None:
    _load_both(data, suffix)
