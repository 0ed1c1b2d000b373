"""Validating option values shared by several commands."""

from __future__ import annotations

from assay.errors import AssayConfigError, did_you_mean
from assay.metrics import METHODS, IntervalMethod, TrialPolicy, require_declared_selection
from assay.report.render import FORMATS


def check_format(fmt: str, allowed: tuple[str, ...] = FORMATS) -> str:
    if fmt not in allowed:
        raise AssayConfigError(
            f"--format {fmt}: unknown format{did_you_mean(fmt, allowed)}; "
            f"choose one of {', '.join(allowed)}"
        )
    return fmt


def check_method(name: str) -> IntervalMethod:
    for method in METHODS:
        if name == method:
            return method
    raise AssayConfigError(
        f"--interval {name}: unknown method{did_you_mean(name, METHODS)}; "
        f"choose one of {', '.join(METHODS)}"
    )


def check_confidence(level: float) -> float:
    if not 0.5 <= level < 1:
        raise AssayConfigError(f"--confidence {level}: must be at least 0.5 and below 1")
    return level


def check_policy(text: str, trials: int, selects_best: bool = False) -> TrialPolicy:
    """The trial policy named by ``--trial-policy``, resolved for ``trials``; pass@k with
    k > 1 only with ``--product-selects-best``."""
    try:
        policy = TrialPolicy.parse(text, trials).resolved(trials)
        require_declared_selection(policy, selects_best, "--product-selects-best")
    except ValueError as err:
        raise AssayConfigError(f"--trial-policy {text}: {err}") from err
    return policy


def check_policy_text(text: str | None, selects_best: bool = False) -> None:
    """Refuse a ``--trial-policy`` that cannot be read or is undeclared best-of-k selection,
    before anything runs (k is checked against the trials once they are known)."""
    if text is None:
        return
    try:
        require_declared_selection(TrialPolicy.parse(text), selects_best, "--product-selects-best")
    except ValueError as err:
        raise AssayConfigError(f"--trial-policy {text}: {err}") from err
