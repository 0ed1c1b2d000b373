"""Near-duplicate inputs: normalised text, character shingles, MinHash/LSH candidates.

Two cases are near-duplicates when the Jaccard similarity of their shingle sets reaches the
threshold. MinHash signatures (``datasketch``) cut into LSH bands only propose candidate
pairs; every candidate is confirmed on the exact shingle sets, so a reported similarity is
measured, never estimated. Clusters are the connected components of the confirmed pairs.
"""

from __future__ import annotations

import re
import unicodedata
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from assay.cases._case import Case

Progress = Callable[[int], None]
"""Called with the number of inputs just processed (for a progress bar)."""


@dataclass(frozen=True)
class NearSettings:
    """How near-duplicates are found.

    ``shingle``: characters per shingle of the normalised text (5). ``threshold``: the
    Jaccard similarity of two shingle sets at or above which two inputs are near-duplicates
    (0.8). ``num_perm``: MinHash permutations (128); more find candidates more reliably,
    at some speed.
    """

    shingle: int = 5
    threshold: float = 0.8
    num_perm: int = 128

    def __post_init__(self) -> None:
        if self.shingle < 1:
            raise ValueError("the shingle size must be at least 1")
        if not 0 < self.threshold <= 1:
            raise ValueError("the threshold must be above 0 and at most 1")
        if self.num_perm < 16:
            raise ValueError("num_perm must be at least 16")


@dataclass(frozen=True)
class Member:
    """One case of a cluster and its measured similarity to the cluster's first case."""

    case_id: str
    index: int
    similarity: float


@dataclass(frozen=True)
class Cluster:
    """Cases whose inputs are identical or near-identical; the first is the one kept."""

    members: tuple[Member, ...]

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(m.case_id for m in self.members)

    @property
    def exact(self) -> bool:
        """True when every input is identical to the first after normalising."""
        return all(m.similarity == 1.0 for m in self.members)


_NOT_WORD = re.compile(r"[\W_]+")


def normalize_input(text: str) -> str:
    """Casefolded NFKC text: every run of characters other than letters, marks and digits
    (punctuation, symbols, whitespace) becomes one space, and the ends are trimmed."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return _NOT_WORD.sub(" ", folded).strip()


def case_input(case: Case) -> str:
    """The text a case puts to the system: its question, or its conversation's messages."""
    if case.question is not None:
        return case.question
    return "\n".join(m.content for m in case.messages or ())


def shingles(text: str, size: int) -> frozenset[str]:
    """The character ``size``-grams of normalised ``text`` (the whole text when shorter)."""
    return _shingles_of(normalize_input(text), size)


def _shingles_of(norm: str, size: int) -> frozenset[str]:
    if len(norm) <= size:
        return frozenset({norm})
    return frozenset(norm[i : i + size] for i in range(len(norm) - size + 1))


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    """|a ∩ b| / |a ∪ b|; two empty sets are identical (1.0)."""
    common = len(a & b)
    union = len(a) + len(b) - common
    return common / union if union else 1.0


class _Components:
    def __init__(self, n: int) -> None:
        self.parent = list(range(n))

    def find(self, i: int) -> int:
        while self.parent[i] != i:
            self.parent[i] = self.parent[self.parent[i]]
            i = self.parent[i]
        return i

    def union(self, a: int, b: int) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)


MISS_AT_THRESHOLD = 1e-4
"""The largest chance that LSH misses a pair whose similarity is exactly the threshold."""


def bands(settings: NearSettings) -> tuple[int, int]:
    """LSH ``(bands, rows)``: the most rows per band (fewest spurious candidates) for which
    a pair at the threshold is missed with probability ``(1 - t**r)**b`` at most
    ``MISS_AT_THRESHOLD``; pairs more similar are missed less often still."""
    t, n = settings.threshold, settings.num_perm
    for rows in range(n, 0, -1):
        count = n // rows
        if (1 - t**rows) ** count <= MISS_AT_THRESHOLD:
            return count, rows
    return n, 1


def _candidate_pairs(
    sets: Sequence[frozenset[str]],
    todo: Sequence[int],
    settings: NearSettings,
    progress: Progress | None,
) -> set[tuple[int, int]]:
    """Pairs of ``todo`` whose MinHash signatures agree on every row of some band."""
    from datasketch import MinHash

    count, rows = bands(settings)
    buckets: list[dict[bytes, list[int]]] = [{} for _ in range(count)]
    pairs: set[tuple[int, int]] = set()
    step = max(1, len(todo) // 100)
    done = 0
    encoded = (list(map(str.encode, sets[i])) for i in todo)
    # crc32 (C, no Python frame per call) hashes each shingle; the MinHash permutations
    # spread it, and every candidate is confirmed exactly, so hash quality only affects recall.
    minhashes = MinHash.generator(encoded, num_perm=settings.num_perm, seed=1, hashfunc=zlib.crc32)
    width = 0
    for i, mh in zip(todo, minhashes, strict=True):
        values = mh.hashvalues
        raw = values.tobytes()
        width = width or rows * values.itemsize
        for band, bucket in enumerate(buckets):
            key = raw[band * width : (band + 1) * width]
            found = bucket.get(key)
            if found is None:
                bucket[key] = [i]
            else:
                pairs.update((j, i) for j in found)
                found.append(i)
        done += 1
        if progress is not None and done == step:
            progress(done)
            done = 0
    if progress is not None and done:
        progress(done)
    return pairs


def find_clusters(
    cases: Sequence[Case],
    settings: NearSettings | None = None,
    progress: Progress | None = None,
) -> tuple[Cluster, ...]:
    """Clusters of two or more cases with identical or near-identical inputs, in case order.

    Identical normalised inputs always cluster (found by exact comparison, not by LSH).
    """
    chosen = settings or NearSettings()
    norms = [normalize_input(case_input(c)) for c in cases]
    sets = [_shingles_of(n, chosen.shingle) for n in norms]
    components = _Components(len(cases))
    first_of: dict[str, int] = {}
    for i, norm in enumerate(norms):
        components.union(first_of.setdefault(norm, i), i)
    distinct = [i for i, norm in enumerate(norms) if first_of[norm] == i]
    if progress is not None and len(distinct) < len(norms):
        progress(len(norms) - len(distinct))
    for a, b in _candidate_pairs(sets, distinct, chosen, progress):
        if components.find(a) != components.find(b) and jaccard(sets[a], sets[b]) >= (
            chosen.threshold
        ):
            components.union(a, b)
    groups: dict[int, list[int]] = {}
    for i in range(len(cases)):
        groups.setdefault(components.find(i), []).append(i)
    clusters = []
    for members in groups.values():
        if len(members) < 2:
            continue
        head = sets[members[0]]
        clusters.append(
            Cluster(
                tuple(Member(cases[i].id, i, round(jaccard(head, sets[i]), 4)) for i in members)
            )
        )
    return tuple(sorted(clusters, key=lambda c: c.members[0].index))
