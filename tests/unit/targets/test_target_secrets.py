"""Secrets are masked in every form a server may echo them, in every outcome kind and in
a reply's extra data; a key with a line break is refused before a run starts."""

from __future__ import annotations

import asyncio
import base64
import json
from urllib.parse import quote

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tests.secret_echoes import echoes, survivors

from assay.errors import AssayConfigError
from assay.outcomes import Abstain, Answer, Error
from assay.targets import Reply, build_target
from assay.targets._replies import scrub, secret_from_env
from assay.targets._secrets import MASK, Masker, secret_parts

KEY = "sk-live/Q9+x_7f3c0de=="
HEADER = f"Bearer {KEY}"


@pytest.mark.parametrize("value", [KEY, HEADER])
@pytest.mark.parametrize("name", sorted(echoes(KEY)))
def test_every_encoding_of_the_header_and_its_token_is_masked(value: str, name: str) -> None:
    echo = echoes(value)[name]
    masked = Masker([HEADER]).text(f'{{"error": "invalid token {echo} given"}}')
    assert MASK in masked
    assert survivors(masked, KEY) == [], masked


@pytest.mark.parametrize(
    "key",
    [
        "pässwörd/+=😀-key",  # non-ASCII, a character beyond the BMP, base64's specials
        "deadbeef01234567",  # hex digits: read with a %, or a \u, just before them
        "u0041bcdef9",  # reads as a \u escape after a backslash
        "n0t-a-line",  # reads as a JSON line break after a backslash
        "sp ace+plus/slash",
    ],
)
@pytest.mark.parametrize("before", ["", "\\", "%", "%2", "\\u00", "%5C", "50%25", "%0d%"])
def test_every_encoding_of_an_awkward_key_is_masked_after_any_text(key: str, before: str) -> None:
    masker = Masker([key])
    for at in (1, 4, 7):
        for name, echo in echoes(key, at=at).items():
            masked = masker.text(f"{before}{echo} after")
            assert MASK in masked and survivors(masked, key) == [], (name, masked)


def test_the_password_of_basic_credentials_is_masked_in_every_encoding() -> None:
    token = base64.b64encode(b"alice:s3cr3t-pa55/w0rd").decode()
    masker = Masker([f"Basic {token}"])
    for secret in ("s3cr3t-pa55/w0rd", "alice:s3cr3t-pa55/w0rd", token):
        for name, echo in echoes(secret).items():
            masked = masker.text(f"echo: {echo}")
            assert survivors(masked, "s3cr3t-pa55/w0rd") == [], (secret, name, masked)


def test_a_key_inside_a_longer_base64_text_is_masked_at_any_offset() -> None:
    raw = KEY.encode()
    for before in range(9):
        for after in range(4):
            blob = base64.b64encode(bytes(range(65, 65 + before)) + raw + b"#" * after).decode()
            masked = Masker([KEY]).text(f"data:{blob}")
            assert MASK in masked and survivors(masked, KEY) == [], masked
            # only the characters around the key, holding no bit of it, are left
            kept = 8 * before // 6  # and after the key, what is not its padding
            kept += len(blob) - -(-8 * (before + len(raw)) // 6) if after else 0
            assert len(masked) == len("data:") + len(MASK) + kept, masked


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
    parts = secret_parts(HEADER)
    assert "Bearer" not in parts and KEY in parts and HEADER in parts
    assert Masker([HEADER]).text("Bearer tokens") == "Bearer tokens"


@given(st.text(min_size=8, max_size=40).filter(lambda s: s.strip() == s and s.isprintable()))
def test_any_secret_is_masked_in_its_raw_json_and_url_forms(secret: str) -> None:
    masker = Masker([secret])
    for echo in (secret, json.dumps(secret)[1:-1], quote(secret, safe="")):
        assert secret not in masker.text(f"<{echo}>") or secret in MASK


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
