"""The one-search screen of a reply never lets a secret through: whenever masking would
change anything, the screen says the reply may hold a secret."""

from __future__ import annotations

import enum
import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from tests.secret_echoes import echoes, unscreened

from assay.outcomes import Abstain, Answer, Error
from assay.targets import Reply
from assay.targets._secrets import Masker, _Forms


def secret_forms(secret: str) -> set[str]:
    """Echoes of ``secret`` and of each of its words."""
    return {echo for part in {secret, *secret.split()} for echo in echoes(part).values() if echo}


SECRETS = st.text(min_size=1, max_size=24).filter(lambda s: s.strip() != "")


@st.composite
def _data_with(draw: st.DrawFn, forms: list[str]) -> Any:
    """Nested JSON-like data whose strings may embed a form of the secret, in any case."""

    def text() -> st.SearchStrategy[str]:
        embedded = st.tuples(st.text(max_size=8), st.sampled_from(forms), st.text(max_size=8))
        cased = embedded.map(lambda t: t[0] + (t[1].upper() if len(t[0]) % 2 else t[1]) + t[2])
        return st.one_of(st.text(max_size=16), cased)

    leaves = st.one_of(text(), st.integers(), st.none(), st.booleans())
    tree = st.recursive(
        leaves,
        lambda inner: st.one_of(
            st.lists(inner, max_size=4), st.dictionaries(text(), inner, max_size=4)
        ),
        max_leaves=12,
    )
    return draw(tree)


@settings(max_examples=150, deadline=None)
@given(secret=SECRETS, data=st.data())
def test_the_screen_never_misses_what_masking_would_change(
    secret: str, data: st.DataObject
) -> None:
    masker = Masker([secret])
    value = data.draw(_data_with(sorted(secret_forms(secret))))
    if unscreened([secret]).data(value) != value:
        assert masker._may_hold_secret(value)


@settings(max_examples=30, deadline=None)
@given(secret=SECRETS, before=st.text(max_size=10), after=st.text(max_size=10))
def test_a_reply_is_masked_exactly_as_without_the_screen(
    secret: str, before: str, after: str
) -> None:
    masker = Masker([secret])
    for form in sorted(secret_forms(secret)):
        text = before + form + after
        reply = Reply(Answer(fact="f", text=text), extra={"echo": [text], "n": 1})
        masked = masker.reply(reply)
        dumped = reply.outcome.model_dump(mode="json")
        # Field names and the kind are the model's, never masked (a secret may read
        # ``CITATI``, part of ``citations``); every other value is masked as data.
        expected = {k: v if k == "kind" else masker.data(v) for k, v in dumped.items()}
        assert masked.outcome.model_dump(mode="json") == expected
        assert set(expected) == set(dumped)
        assert masked.extra == masker.data(reply.extra)


def test_a_secret_that_reads_like_a_field_name_or_kind_masks_values_only() -> None:
    for secret in ("CITATI", "citations", "answer", "abstain", "error_class"):
        masker = Masker([secret])
        text = f"key {secret} here"
        for outcome in (
            Answer(fact=secret, text=text, citations=(text,)),
            Abstain(reason=text, text=text),
            Error(error_class="http_401", message=text, raw=text),
        ):
            masked = masker.reply(Reply(outcome))
            assert type(masked.outcome) is type(outcome)
            dumped = masked.outcome.model_dump(mode="json")
            assert dumped.keys() == outcome.model_dump(mode="json").keys()
            values = json.dumps([v for k, v in dumped.items() if k != "kind"]).lower()
            assert secret.lower() not in values and "<redacted>" in values


ASCII = st.text(st.characters(min_codepoint=32, max_codepoint=126), min_size=6, max_size=24)


@settings(max_examples=100, deadline=None)
@given(forms=st.lists(ASCII, min_size=1, max_size=6), data=st.data())
def test_the_substring_screen_of_ascii_text_says_what_the_regular_expression_says(
    forms: list[str], data: st.DataObject
) -> None:
    screen = _Forms(forms)
    assert screen._lowered is not None
    text = data.draw(
        st.one_of(
            ASCII,
            st.tuples(ASCII, st.sampled_from(forms), ASCII).map(
                lambda t: t[0] + (t[1].upper() if len(t[0]) % 2 else t[1]) + t[2]
            ),
        )
    )
    assert screen.in_(text) == (screen._pattern.search(text) is not None)
    assert screen.in_(text) or not any(form.lower() in text.lower() for form in forms)


class _Kind(enum.Enum):
    TOKEN = "a token"


@st.composite
def _any_data_with(draw: st.DrawFn, forms: list[str]) -> Any:
    """Data of every kind a target may put in a reply's extra: floats of any value,
    tuples, keys that are not strings, lone surrogates, an enum, a set."""
    text = st.one_of(
        st.text(max_size=16),
        st.tuples(st.text(max_size=6), st.sampled_from(forms), st.text(max_size=6)).map("".join),
    )
    leaves = st.one_of(
        text,
        st.integers(min_value=-(2**70), max_value=2**70),
        st.floats(),
        st.none(),
        st.booleans(),
        st.sampled_from([_Kind.TOKEN, b"bytes", frozenset({"x"})]),
    )
    keys = st.one_of(text, st.integers(), st.floats(allow_nan=False), st.none())
    tree = st.recursive(
        leaves,
        lambda inner: st.one_of(
            st.lists(inner, max_size=4),
            st.lists(inner, max_size=4).map(tuple),
            st.dictionaries(keys, inner, max_size=4),
        ),
        max_leaves=12,
    )
    return draw(tree)


@settings(max_examples=200, deadline=None)
@given(secret=SECRETS, data=st.data())
def test_the_screen_never_misses_what_masking_would_change_in_any_data(
    secret: str, data: st.DataObject
) -> None:
    masker = Masker([secret])
    forms = sorted(secret_forms(secret))
    outcome = data.draw(_any_data_with(forms))
    extra = data.draw(_any_data_with(forms))
    full = unscreened([secret])
    if _changed(full.data(outcome), outcome) or _changed(full.data(extra), extra):
        assert masker._may_hold_secret(outcome, extra)


def _changed(after: Any, before: Any) -> bool:
    """Whether masking changed ``before`` into ``after``: ``!=`` but for NaN, which is
    never equal to itself and is left as it is."""
    if isinstance(before, float) and isinstance(after, float) and before != before:
        return after == after
    if type(after) is not type(before):
        return True
    if isinstance(before, list | tuple):
        return len(after) != len(before) or any(map(_changed, after, before))
    if isinstance(before, dict):
        return after.keys() != before.keys() or any(_changed(after[k], before[k]) for k in before)
    return bool(after != before)
