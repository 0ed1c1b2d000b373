"""What a judge's calibration must show before its verdicts count in a gate."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class CalibrationBounds(BaseModel):
    """The bounds a calibration report must meet: the most the upper ends of its
    false-accept and (optionally) false-reject intervals may be, and (optionally) the
    least the lower end of its weighted kappa's interval may be."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    max_false_accept_upper: float = Field(gt=0, le=1)
    max_false_reject_upper: float | None = Field(default=None, gt=0, le=1)
    min_kappa_lower: float | None = Field(default=None, ge=-1, le=1)
