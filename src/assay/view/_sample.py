"""The order in which judged answers are reviewed: stratified by the judge's verdict,
shuffled by a seed, taking the strata in turn so that any first part of it holds both."""

from __future__ import annotations

import random
from collections.abc import Hashable, Mapping, Sequence
from itertools import zip_longest
from typing import TypeVar

K = TypeVar("K", bound=Hashable)

STRATA = ("pass", "fail")
"""The judge's verdicts that the sample is stratified by."""


def stratified_order(
    strata: Mapping[str, Sequence[K]], seed: int, wanted: int | None = None
) -> list[K]:
    """Every key of ``strata`` (verdict → keys): each stratum shuffled by ``seed``, then
    one key of each in turn, in an order drawn for each turn (a reviewer cannot tell a
    key's stratum by its position), until a stratum runs out, then the rest of the other;
    the first ``wanted`` when given. The same keys and seed give the same order."""
    rng = random.Random(seed)
    shuffled = []
    for name in STRATA:
        keys = sorted(strata.get(name, ()), key=repr)
        rng.shuffle(keys)
        shuffled.append(keys)
    order: list[K] = []
    for turn in zip_longest(*shuffled):
        taken = [k for k in turn if k is not None]
        rng.shuffle(taken)
        order += taken
    return order if wanted is None else order[:wanted]
