"""A trial policy named by the user (``--trial-policy``), checked before anything runs and
resolved for the trials a run has."""

from __future__ import annotations

from assay.errors import AssayConfigError
from assay.metrics import TrialPolicy, require_declared_selection


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
