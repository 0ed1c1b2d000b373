"""The response cache's key, written around a request encoded once, is the content hash
of the key's mapping it has always been: no cached reply is lost or misattributed."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from assay.cases import content_hash
from assay.runner._cache import CACHE_KEY_VERSION, cache_key

JSON: st.SearchStrategy[Any] = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(request=JSON, config=st.text(), trial=st.none() | st.integers(min_value=1))
def test_the_key_is_the_content_hash_of_its_mapping(
    request: Any, config: str, trial: int | None
) -> None:
    mapping = {
        "key_version": CACHE_KEY_VERSION,
        "target": config,
        "request": request,
        "trial": trial,
    }
    assert cache_key(config, request, trial) == content_hash(mapping)
