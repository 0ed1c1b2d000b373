"""Repeated trials: how K trials of one case combine into that case's success.

A trial policy is stated, never implied:

- ``mean``: the share of the case's trials that passed (every trial counts once);
- ``pass@k``: the chance that at least one of k trials drawn from the K passes, by the
  unbiased estimator of Chen et al. (2021);
- ``pass^k``: the chance that all k drawn trials pass (k = K: every trial passed);
- ``majority``: the case passes when more than half of its trials passed.

Selecting the best of several outputs (pass@k with k > 1) measures a product that does the
same selection; it is refused unless the user declares that the product does
(``require_declared_selection``), and its label says "best of k".
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Literal

PolicyName = Literal["mean", "pass@k", "pass^k", "majority"]
POLICY_NAMES: tuple[PolicyName, ...] = ("mean", "pass@k", "pass^k", "majority")
_SPEC = re.compile(r"^(pass@|pass\^)(k|\d+)$")


def _check(n: int, c: int, k: int) -> None:
    if not (n >= 1 and 0 <= c <= n and 1 <= k <= n):
        raise ValueError(f"need n >= 1, 0 <= c <= n and 1 <= k <= n; got n={n}, c={c}, k={k}")


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k from n trials of which c passed: 1 − C(n−c, k) / C(n, k).

    Computed in the numerically stable product form 1 − ∏_{i=n−c+1}^{n} (1 − k/i);
    1.0 when n − c < k. Source: Chen et al. (2021), "Evaluating Large Language Models
    Trained on Code", arXiv:2107.03374, eq. 1 and Figure 3.

    >>> pass_at_k(10, 3, 5)
    0.9166666666666666
    """
    _check(n, c, k)
    if n - c < k:
        return 1.0
    product = 1.0
    for i in range(n - c + 1, n + 1):
        product *= 1.0 - k / i
    return 1.0 - product


def pass_hat_k(n: int, c: int, k: int) -> float:
    """Unbiased pass^k from n trials of which c passed: C(c, k) / C(n, k).

    The chance that k trials drawn without replacement all pass; with k = n it is 1 when
    every trial passed, else 0. Source: Yao et al. (2024), "τ-bench: A Benchmark for
    Tool-Agent-User Interaction in Real-World Domains", arXiv:2406.12045, §5 (pass^k),
    the counterpart of Chen et al.'s estimator.
    """
    _check(n, c, k)
    if c < k:
        return 0.0
    return math.comb(c, k) / math.comb(n, k)


@dataclass(frozen=True)
class TrialPolicy:
    """A trial policy: its name and k (k is None for ``mean`` and ``majority``).

    ``TrialPolicy.parse("pass@1")``, ``parse("pass^k")`` (k = the number of trials),
    ``parse("mean")``, ``parse("majority")``.
    """

    name: PolicyName
    k: int | None = None

    @classmethod
    def parse(cls, text: str, trials: int | None = None) -> TrialPolicy:
        """The policy named by ``text``; "k" in pass@k/pass^k means every trial."""
        spec = text.strip().lower().replace(" ", "")
        if spec in ("mean", "majority"):
            return cls(spec)  # type: ignore[arg-type]
        found = _SPEC.match(spec)
        if not found:
            raise ValueError(
                f"unknown trial policy {text!r}; choose mean, majority, pass@k, pass^k "
                "(or pass@N, pass^N for a number N)"
            )
        name: PolicyName = "pass@k" if found.group(1) == "pass@" else "pass^k"
        k = None if found.group(2) == "k" else int(found.group(2))
        if k is None:
            k = trials
        if k is not None and k < 1:
            raise ValueError(f"trial policy {text!r}: k must be at least 1")
        return cls(name, k)

    def resolved(self, trials: int) -> TrialPolicy:
        """The policy with k fixed for ``trials`` trials (pass@k/pass^k default k = trials)."""
        if self.name in ("pass@k", "pass^k"):
            k = self.k if self.k is not None else trials
            if k > trials:
                raise ValueError(f"{self.label(trials)} needs at least {k} trials, got {trials}")
            return TrialPolicy(self.name, k)
        return self

    @property
    def selects_best(self) -> bool:
        """True for pass@k with k > 1 (or k unresolved): a case passes when any of k outputs
        passes, i.e. the best of k is selected after seeing them."""
        return self.name == "pass@k" and (self.k is None or self.k > 1)

    def label(self, trials: int) -> str:
        """'pass@1 of 5 trials', 'pass@3 of 5 trials, best of 3 as the product selects',
        'pass^5 of 5 trials', 'mean of 5 trials', 'majority of 5 trials'."""
        if self.name == "pass@k":
            k = self.k if self.k is not None else trials
            best = f", best of {k} as the product selects" if k > 1 else ""
            return f"pass@{k} of {trials} trials{best}"
        if self.name == "pass^k":
            return f"pass^{self.k if self.k is not None else trials} of {trials} trials"
        return f"{self.name} of {trials} trials"

    @property
    def binary(self) -> bool:
        """True when every case scores 0 or 1 whatever its trials did."""
        return self.name == "majority"

    def case_score(self, trials: int, passed: int) -> float:
        """The case's success under this policy from ``passed`` of ``trials`` trials."""
        policy = self.resolved(trials)
        if policy.name == "mean":
            return passed / trials
        if policy.name == "majority":
            return 1.0 if 2 * passed > trials else 0.0
        assert policy.k is not None
        if policy.name == "pass@k":
            return pass_at_k(trials, passed, policy.k)
        return pass_hat_k(trials, passed, policy.k)

    def __str__(self) -> str:
        if self.name in ("pass@k", "pass^k"):
            head = "pass@" if self.name == "pass@k" else "pass^"
            return f"{head}{self.k if self.k is not None else 'k'}"
        return self.name


def require_declared_selection(policy: TrialPolicy, declared: bool, how: str) -> None:
    """Raise ``ValueError`` when ``policy`` selects the best of several outputs and the user
    has not declared that the product does the same; ``how`` says how to declare it.

    The seed's rule: do not select the best response after seeing several outputs unless
    the product actually uses that selection procedure.
    """
    if policy.selects_best and not declared:
        k = "k" if policy.k is None else str(policy.k)
        raise ValueError(
            f"{policy} counts a case as passed when any one of {k} outputs passes: it "
            "measures a product that itself selects the best of several outputs. If yours "
            f"does, declare it ({how}); otherwise use mean, majority or pass^k"
        )
