"""The tabled 95% Clopper–Pearson limits and Wilson's 95% normal quantile are scipy's own,
bit for bit, and other intervals are still computed by scipy."""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path
from types import ModuleType

import pytest
from scipy.special import betaincinv, ndtri

from assay.metrics import _beta_table, clopper_pearson, wilson
from assay.metrics._intervals import beta_limits, score_limits

ROOT = Path(__file__).resolve().parents[3]


def _scipy(x: float, n: float, confidence: float) -> tuple[float, float]:
    """The limits as computed before the table existed."""
    alpha = 1.0 - confidence
    lower = 0.0 if x <= 0 else float(betaincinv(x, n - x + 1, alpha / 2))
    upper = 1.0 if x >= n else float(betaincinv(x + 1, n - x, 1 - alpha / 2))
    return lower, upper


def _scipy_wilson(x: float, n: float, confidence: float) -> tuple[float, float]:
    """Wilson's limits as computed before the table existed."""
    z = float(ndtri(1 - (1 - confidence) / 2))
    p = x / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(max(0.0, p * (1 - p) / n + z * z / (4 * n * n))) / denom
    lower = 0.0 if x <= 0 else max(0.0, min(p, centre - half))
    upper = 1.0 if x >= n else min(1.0, max(p, centre + half))
    return lower, upper


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "gen_beta_table", ROOT / "scripts" / "gen_beta_table.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_tabled_limit_is_scipys_bit_for_bit() -> None:
    assert _beta_table.CONFIDENCE == 0.95
    compared = 0
    for n in range(1, _beta_table.LARGEST_N + 1):
        for x in range(n + 1):
            tabled = beta_limits(x, n, 0.95)
            assert tabled == _scipy(x, n, 0.95), (x, n)
            assert tabled == clopper_pearson(x, n, 0.95)
            compared += 1
    assert compared == sum(n + 1 for n in range(1, 101))


@pytest.mark.parametrize(
    ("x", "n", "confidence"),
    [
        (3, 101, 0.95),  # past the table
        (0, 101, 0.95),
        (101, 101, 0.95),
        (4, 20, 0.9),  # another level
        (4, 20, 0.99),
        (4.0, 20.0, 0.95),  # effective counts are never tabled
        (2.5, 7.25, 0.95),
    ],
)
def test_what_the_table_does_not_cover_is_computed(x: float, n: float, confidence: float) -> None:
    assert beta_limits(x, n, confidence) == _scipy(x, n, confidence)


def test_the_normal_quantile_is_scipys_and_wilson_is_unchanged() -> None:
    assert float(ndtri(1 - (1 - 0.95) / 2)) == _beta_table.NORMAL_QUANTILE
    for n in [*range(1, 120), 263, 1000, 12345]:
        for x in sorted({0, 1, n // 3, n // 2, n - 1, n} & set(range(n + 1))):
            assert score_limits(x, n, 0.95) == _scipy_wilson(x, n, 0.95), (x, n)
            assert wilson(x, n, 0.95) == _scipy_wilson(x, n, 0.95)
    for x, n, level in [(81, 263, 0.9), (2.5, 7.25, 0.95), (3, 10, 0.99)]:
        assert score_limits(x, n, level) == _scipy_wilson(x, n, level)


def test_the_table_is_what_its_script_writes() -> None:
    generator = _generator()
    assert (generator.LARGEST_N, generator.CONFIDENCE) == (
        _beta_table.LARGEST_N,
        _beta_table.CONFIDENCE,
    )
    assert generator.TARGET.read_text(encoding="utf-8") == generator.source(), (
        "src/assay/metrics/_beta_table.py is stale: run .venv/bin/python scripts/gen_beta_table.py"
    )
