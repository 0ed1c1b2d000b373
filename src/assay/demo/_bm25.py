"""Okapi BM25 over a small corpus, and the tokenizer the demo's stages share.

The demo ranks policy sections with the textbook Okapi BM25 (Robertson and Zaragoza,
"The Probabilistic Relevance Framework: BM25 and Beyond", 2009), with the non-negative
idf used by Lucene so that a term present in most sections never scores below zero::

    idf(t)      = ln(1 + (N - n(t) + 0.5) / (n(t) + 0.5))
    score(d, q) = sum over distinct t in q of
                  idf(t) * f(t, d) * (k1 + 1) / (f(t, d) + k1 * (1 - b + b * |d| / avgdl))
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

_STOPWORD_TEXT = (
    "a an and any are as at be by can do does for from have how i if in is it its me my "
    "of on or our so that the their them then there they this to was we what when where "
    "which who will with you your"
)
STOPWORDS = frozenset(_STOPWORD_TEXT.split())
_WORD = re.compile(r"[a-z0-9]+")


def tokenize(text: str) -> list[str]:
    """Lower-cased word tokens without stopwords, with a plural ``s`` stripped.

    >>> tokenize("How many days do I have to return items?")
    ['many', 'day', 'return', 'item']
    """
    words = _WORD.findall(text.lower())
    return [_stem(w) for w in words if w not in STOPWORDS]


def _stem(word: str) -> str:
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


@dataclass(frozen=True)
class BM25:
    """A BM25 index over documents given as token lists (``k1`` and ``b`` as usual)."""

    documents: tuple[tuple[str, ...], ...]
    k1: float = 1.5
    b: float = 0.75

    @classmethod
    def index(cls, documents: Sequence[Sequence[str]], k1: float = 1.5, b: float = 0.75) -> BM25:
        return cls(tuple(tuple(d) for d in documents), k1, b)

    @property
    def average_length(self) -> float:
        if not self.documents:
            return 0.0
        return sum(len(d) for d in self.documents) / len(self.documents)

    def idf(self, term: str) -> float:
        n = sum(1 for d in self.documents if term in d)
        total = len(self.documents)
        return math.log(1 + (total - n + 0.5) / (n + 0.5))

    def scores(self, query: Sequence[str]) -> list[float]:
        """One score per document, in index order."""
        avgdl = self.average_length
        terms = list(dict.fromkeys(query))
        idf = {t: self.idf(t) for t in terms}
        result = []
        for doc in self.documents:
            counts = Counter(doc)
            norm = self.k1 * (1 - self.b + self.b * len(doc) / avgdl) if avgdl else self.k1
            total = 0.0
            for t in terms:
                f = counts.get(t, 0)
                if f:
                    total += idf[t] * f * (self.k1 + 1) / (f + norm)
            result.append(total)
        return result
