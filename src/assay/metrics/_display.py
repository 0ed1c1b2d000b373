"""How a rate is written as a percentage, the same way in every format.

A rate that is neither 0 nor 1 never reads as 0% or 100%: more digits are shown until it
does not (99.999%), and beyond four decimals it is written as a bound (<0.0001%).
"""

from __future__ import annotations

MAX_DECIMALS = 4


def percent(value: float, decimals: int = 1) -> str:
    """'33.3%'; '99.999%' for 99999/100000; '<0.0001%' for 1e-9; '0.0%' only for 0.

    >>> percent(1 / 3), percent(0.99999), percent(0.00001), percent(1.0)
    ('33.3%', '99.999%', '0.001%', '100.0%')
    """
    if value <= 0:
        return f"{0:.{decimals}f}%"
    if value >= 1:
        return f"{100:.{decimals}f}%"
    for places in range(decimals, MAX_DECIMALS + 1):
        text = f"{value * 100:.{places}f}"
        if float(text) not in (0.0, 100.0):
            return f"{text}%"
    step = 10.0**-MAX_DECIMALS
    if value < 0.5:
        return f"<{step:.{MAX_DECIMALS}f}%"
    return f">{100 - step:.{MAX_DECIMALS}f}%"


def interval_text(bounds: tuple[float, float] | None) -> str:
    """'[0.8%, 90.6%]': an interval's bounds as percentages, or '—' when there is none."""
    if bounds is None:
        return "—"
    return f"[{percent(bounds[0])}, {percent(bounds[1])}]"


def decimal(value: float, places: int = 2) -> str:
    """A score or a sum of scores: '3' when whole, else rounded to ``places`` decimals
    (trailing zeros dropped) and as many more as it takes not to read as a whole number
    ('0.99999', never '1').

    >>> decimal(2.0), decimal(2.6667), decimal(0.5), decimal(0.99999), decimal(2.9999999)
    ('2', '2.67', '0.5', '0.99999', '2.9999999')
    """
    if abs(value - round(value)) < 1e-12:
        return str(round(value))
    for digits in range(places, 13):
        text = f"{value:.{digits}f}"
        if float(text) != round(value):
            return text.rstrip("0")
    return repr(value)
