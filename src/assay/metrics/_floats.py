"""The few numpy functions the interval formulas use, for Python numbers.

A formula written against ``xp`` serves a single rate with ``Floats`` and many at once with
numpy: one definition, the same arithmetic either way.
"""

from __future__ import annotations

import math


class Floats:
    """numpy's ``sqrt``, ``maximum``, ``minimum`` and ``where`` for Python numbers."""

    sqrt = staticmethod(math.sqrt)
    maximum = staticmethod(max)
    minimum = staticmethod(min)

    @staticmethod
    def where(condition: bool, yes: float, no: float) -> float:
        return yes if condition else no
