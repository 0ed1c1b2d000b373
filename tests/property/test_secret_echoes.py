"""Whatever the secret (printable, ``/``, ``+``, ``=``, ``%``, a backslash, non-ASCII) and
however a server encodes its echo, the echo embedded anywhere in any text or data is
masked: no encoding of the secret survives, and the quick screens never let through what
the full search would mask."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from tests.secret_echoes import echoes, survivors, unscreened

from assay.outcomes import Abstain, Answer, Error
from assay.targets import Reply
from assay.targets._secrets import MASK, MIN_SECRET, Masker

_PRINTABLE = st.characters(blacklist_categories=("Cs", "Cc", "Co", "Cn", "Zl", "Zp"))
_AWKWARD = st.sampled_from([*'/+=%\\" -_:', "é", "İ", "😀"])
SECRETS = (
    st.text(st.one_of(_PRINTABLE, _AWKWARD), min_size=MIN_SECRET, max_size=28)
    .map(str.strip)
    .filter(lambda s: len(s) >= MIN_SECRET and s.lower() not in MASK.lower())
)
# Text around an echo, with what an escape or a line break starts with.
_PIECES = ["\\", "\\\\", "%", "%2", "%25", "%0d%", "\\u00", "u", "n", "0a", "\n", "\r\n", "=="]
AROUND = st.lists(st.one_of(st.text(_PRINTABLE, max_size=3), st.sampled_from(_PIECES)),
                  max_size=4).map("".join)  # fmt: skip


@st.composite
def _embedded(draw: st.DrawFn, secret: str) -> tuple[str, str]:
    """An echo of ``secret`` (its encoding's name and text) in some text around it."""
    found = echoes(secret, at=draw(st.integers(0, 40)))
    name = draw(st.sampled_from(sorted(found)))
    return name, draw(AROUND) + found[name] + draw(AROUND)


@settings(max_examples=400)
@given(secret=SECRETS, data=st.data())
def test_an_echo_in_any_encoding_inside_any_text_is_masked(
    secret: str, data: st.DataObject
) -> None:
    name, text = data.draw(_embedded(secret))
    masked = Masker([secret]).text(text)
    assert MASK in masked, (name, text)
    assert survivors(masked, secret) == [], (name, text, masked)
    assert survivors(unscreened([secret]).text(text), secret) == []


@st.composite
def _data_holding(draw: st.DrawFn, secret: str) -> Any:
    """Nested JSON-like data, some of whose strings (values and keys) hold an echo."""
    text = st.one_of(st.text(max_size=12), _embedded(secret).map(lambda found: found[1]))
    leaves = st.one_of(text, st.integers(), st.floats(), st.none(), st.booleans())
    return draw(
        st.recursive(
            leaves,
            lambda inner: st.one_of(
                st.lists(inner, max_size=4), st.dictionaries(text, inner, max_size=3)
            ),
            max_leaves=8,
        )
    )


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in _strings(k) + _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


@settings(max_examples=150)
@given(secret=SECRETS, data=st.data())
def test_echoes_anywhere_in_a_reply_are_masked_and_never_screened_out(
    secret: str, data: st.DataObject
) -> None:
    extra = data.draw(_data_holding(secret))
    text = data.draw(_embedded(secret))[1]
    outcome = data.draw(
        st.sampled_from(
            [
                Answer(fact=text, text=text, citations=(text,)),
                Abstain(reason=text),
                Error(error_class="http_401", message=text, raw=text),
            ]
        )
    )
    reply = Reply(outcome, extra={"echo": extra})
    masker = Masker([secret])
    masked = masker.reply(reply)
    full = unscreened([secret]).reply(reply)
    if full is not reply:  # the full search masks something: the screen let it through
        assert masker._may_hold_secret(reply.outcome.model_dump(mode="json"), reply.extra)
    assert masked.outcome.kind == outcome.kind
    dumped = masked.outcome.model_dump(mode="json")
    for found in _strings([v for k, v in dumped.items() if k != "kind"]) + _strings(masked.extra):
        assert survivors(found, secret) == [], found
