"""The openai target sends each request body as the text ``json`` writes for it, though it
writes the items other than the messages once per target."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from assay.targets import build_target
from assay.targets.openai import OpenAITarget

_TEXT = st.text(max_size=40)
_MESSAGES = st.lists(
    st.fixed_dictionaries({"role": st.sampled_from(["system", "user"]), "content": _TEXT}),
    max_size=3,
)
_SETTINGS = st.fixed_dictionaries(
    {},
    optional={
        "output": st.sampled_from(["structured", "text"]),
        "response_format": st.sampled_from(["json_schema", "json_object", "none"]),
        "temperature": st.one_of(
            st.floats(min_value=0, max_value=2), st.sampled_from([0, 1, 0.0, -0.0, 1e-5])
        ),
        "seed": st.integers(min_value=-(2**40), max_value=2**40),
        "max_tokens": st.integers(min_value=1, max_value=10**6),
    },
)
# Model names that read like the messages item, quote it or escape characters.
_MODELS = st.one_of(
    _TEXT.filter(str.strip),
    st.sampled_from(['x", "messages": []', '"messages": []', "m\\", "mö\u2028", 'a\\"b']),
)


@settings(max_examples=150, deadline=None)
@given(model=_MODELS, options=_SETTINGS, messages=_MESSAGES, second=_MESSAGES)
def test_the_body_text_is_what_json_writes(
    model: str, options: dict[str, Any], messages: Any, second: Any
) -> None:
    target = build_target(
        {"type": "openai", "base_url": "http://127.0.0.1:9/v1", "model": model, **options}
    )
    assert isinstance(target, OpenAITarget)
    for sent in (messages, second):  # the second body reuses the parts of the first
        body = target.body_for(sent)
        expected = json.dumps(body, ensure_ascii=False).encode("utf-8")
        assert target.body_text(body) == expected
