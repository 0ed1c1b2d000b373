"""Secrets are masked in every form a server may echo them, in every outcome kind and in
a reply's extra data; a key with a line break is refused before a run starts."""

from __future__ import annotations

import asyncio
import base64
import json
from urllib.parse import quote, quote_plus

import pytest
from hypothesis import given
from hypothesis import strategies as st

from assay.errors import AssayConfigError
from assay.outcomes import Abstain, Answer, Error
from assay.targets import Reply, build_target
from assay.targets._replies import scrub, secret_from_env
from assay.targets._secrets import Masker, secret_forms

KEY = "sk-live/Q9+x_7f3c0de=="
HEADER = f"Bearer {KEY}"


def _echoes(secret: str) -> list[str]:
    raw = secret.encode()
    return [
        secret,
        json.dumps(secret)[1:-1].replace("/", "\\/"),
        quote(secret, safe=""),
        quote(secret, safe="").lower(),
        quote_plus(secret),
        base64.b64encode(raw).decode(),
        base64.urlsafe_b64encode(raw).decode().rstrip("="),
    ]


@pytest.mark.parametrize("echo", [*_echoes(KEY), *_echoes(HEADER)])
def test_every_encoding_of_the_header_and_its_token_is_masked(echo: str) -> None:
    masked = Masker([HEADER]).text(f'{{"error": "invalid token {echo} given"}}')
    assert "<redacted>" in masked
    for form in (KEY, HEADER, *_echoes(KEY)):
        assert form not in masked


def test_every_outcome_kind_and_the_extra_data_are_masked() -> None:
    replies = [
        Reply(Answer(fact=f"f {KEY}", text=f"your key is {KEY}", citations=(KEY,))),
        Reply(Abstain(reason=f"no: {HEADER}", text=quote(KEY, safe=""))),
        Reply(Error(error_class="http_4xx", message=f"bad {KEY}", raw=json.dumps(KEY))),
        Reply(Answer(fact="f"), extra={"echo": [HEADER, {"k": KEY}]}),
    ]
    for reply in replies:
        masked = scrub(reply, [HEADER])
        dumped = masked.outcome.model_dump_json() + json.dumps(masked.extra)
        assert KEY not in dumped and "sk-live" not in dumped, dumped
        assert "<redacted>" in dumped
        assert masked.outcome.kind == reply.outcome.kind


def test_a_reply_without_a_secret_is_returned_unchanged() -> None:
    reply = Reply(Answer(fact="f", text="nothing to hide"), extra={"a": 1})
    assert scrub(reply, [HEADER]) is reply
    assert scrub(reply, []) is reply


def test_a_reply_masked_once_is_not_screened_again_but_a_new_one_is(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    masker = Masker([HEADER])
    screened: list[Reply] = []
    masked_once = masker._masked

    def counted(reply: Reply) -> Reply:
        screened.append(reply)
        return masked_once(reply)

    monkeypatch.setattr(masker, "_masked", counted)
    leaky = Reply(Answer(fact="f", text=f"key {KEY}"), extra={"echo": HEADER})
    clean = Reply(Answer(fact="f", text="nothing"), extra={"transcript": {"reply": "ok"}})
    for reply in (leaky, clean):
        first = masker.reply(reply)
        assert masker.reply(first) is first
    assert screened == [leaky, clean]
    assert KEY not in json.dumps(masker.reply(leaky).extra)  # an unmasked reply: masked again
    assert len(screened) == 3


@pytest.mark.parametrize("placeholder", ["x", "k", "text", "sk-no"])
def test_a_placeholder_key_too_short_to_be_a_secret_leaves_replies_intact(
    placeholder: str,
) -> None:
    reply = Reply(Answer(fact="f", text=f"the text says {placeholder}"), extra={"text": 1})
    masked = scrub(reply, [placeholder])
    assert masked is reply  # field names and words are not rewritten
    assert not Masker([placeholder])


def test_short_words_of_a_header_are_not_masked_alone() -> None:
    forms = secret_forms(HEADER)
    assert "Bearer" not in forms and KEY in forms and HEADER in forms


@given(st.text(min_size=8, max_size=40).filter(lambda s: s.strip() == s and s.isprintable()))
def test_any_secret_is_masked_in_its_raw_json_and_url_forms(secret: str) -> None:
    masker = Masker([secret])
    for echo in (secret, json.dumps(secret)[1:-1], quote(secret, safe="")):
        assert secret not in masker.text(f"<{echo}>") or secret in "<redacted>"


@pytest.mark.parametrize("value", [f"{KEY}\n", f" {KEY}", f"{KEY}\r", "sk-a\nb"])
def test_a_key_with_a_line_break_or_spaces_is_refused(
    value: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ASSAY_TEST_KEY", value)
    with pytest.raises(AssayConfigError, match=r"api_key_env: .*ASSAY_TEST_KEY holds a line break"):
        secret_from_env("ASSAY_TEST_KEY", "api_key_env")
    target = build_target(
        {"type": "openai", "base_url": "http://127.0.0.1:9/v1", "model": "m",
         "api_key_env": "ASSAY_TEST_KEY"}
    )  # fmt: skip
    with pytest.raises(AssayConfigError, match="ASSAY_TEST_KEY"):
        asyncio.run(target.start())  # type: ignore[attr-defined]
