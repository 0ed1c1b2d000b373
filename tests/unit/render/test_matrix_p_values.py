"""A matrix's pair p-values read on the same side of the level as their exact value."""

from __future__ import annotations

from typing import Any

from assay.compare import PairRow
from assay.render.matrix import pair_cells


def _pair(p: float, holm: float, confidence: float = 0.95) -> Any:
    return PairRow.model_construct(
        a="a",
        b="b",
        paired=100,
        newly_fixed=1,
        newly_broken=9,
        mcnemar=type("T", (), {"p_value": p, "p_holm": holm})(),
        delta=type("D", (), {"confidence": confidence, "ci": None, "value": None})(),
    )


def test_a_p_value_just_under_the_level_never_reads_as_the_level(monkeypatch: Any) -> None:
    monkeypatch.setattr("assay.render.matrix.delta_text", lambda d: "")
    cells = pair_cells(_pair(0.049962, 0.0500001))
    assert cells[4] == "0.04996" and cells[5] == "0.05"
    assert pair_cells(_pair(0.0123456, 0.5))[4:6] == ["0.0123", "0.5"]
    assert pair_cells(_pair(0.0999, 0.1, confidence=0.9))[4] == "0.0999"
