"""Whatever a file holds, loading it either succeeds or raises an ``AssayError``: the CLI
can always print a message instead of a traceback."""

from __future__ import annotations

import json
import random
import sys
import tempfile
from pathlib import Path

import pytest
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


# Every loader, fed hostile variants of a valid file of its kind (bench/_hostile.py, the
# generator bench/fuzz_loaders.py runs at a larger scale): each input is loaded or refused
# with an AssayError; never another exception, a hang or a blowup. 11 kinds of file ×
# 60 examples: 660 hostile inputs on every run of the suite.
BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))

from _hostile import VALID, hostile_input  # noqa: E402
from fuzz_loaders import fuzz_one  # noqa: E402

HOSTILE_EXAMPLES = 60


@pytest.mark.parametrize("kind", sorted(VALID))
@settings(max_examples=HOSTILE_EXAMPLES, deadline=None, database=None)
@given(rng=st.randoms(use_true_random=False))
def test_every_loader_refuses_hostile_files_cleanly(kind: str, rng: random.Random) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        outcome = fuzz_one(kind, hostile_input(rng, kind), Path(tmp), timeout_s=20.0)
    assert outcome in ("ok", "refused"), outcome
