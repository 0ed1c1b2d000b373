"""Normalizing free text so that case, whitespace and punctuation never decide a match."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable


def normalize(text: str) -> str:
    """Lower-cased (casefolded) words separated by single spaces, punctuation removed.

    Unicode is NFKC-normalized first, so full-width digits and ligatures compare equal to
    their plain forms. Punctuation and symbols become spaces, except that currency signs
    and '%' stay as words of their own, so the phrase "$10" does not match a bare "10".

    >>> normalize("  Thirty-day   WINDOW, (online)! ")
    'thirty day window online'
    """
    folded = unicodedata.normalize("NFKC", text).casefold()
    chars: list[str] = []
    for ch in folded:
        category = unicodedata.category(ch)
        if ch in _KEPT_SYMBOLS:
            chars.append(f" {ch} ")
        elif category[0] in ("P", "S", "Z", "C"):
            chars.append(" ")
        else:
            chars.append(ch)
    return " ".join("".join(chars).split())


_KEPT_SYMBOLS = frozenset("$%€£")


def contains(text: str, phrase: str) -> bool:
    """True when ``phrase`` appears in ``text`` as whole words, after normalizing both.

    An empty phrase (after normalizing) never matches.

    >>> contains("Returns: 30 days.", "30 DAYS")
    True
    >>> contains("within 300 days", "30 days")
    False
    """
    needle = normalize(phrase)
    if not needle:
        return False
    return f" {needle} " in f" {normalize(text)} "


def first_match(text: str, phrases: Iterable[str]) -> str | None:
    """The first phrase found in ``text`` (see ``contains``), or None."""
    for phrase in phrases:
        if contains(text, phrase):
            return phrase
    return None
