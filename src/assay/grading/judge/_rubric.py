"""The judge's rubric: required facts, disallowed claims, accepted variations, the 0–2
correctness scale and the minimum score that passes."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from assay.cases import Case, DisallowedClaim, RequiredFact, content_hash

SCALE: dict[int, str] = {
    0: "incorrect: a wrong policy, a disallowed claim, or no answer to the question",
    1: "partially correct: right in substance but missing a required fact or condition",
    2: "complete and correct: every required fact, no disallowed claim",
}


class JudgeRubric(BaseModel):
    """What the judge checks one answer against.

    ``required`` facts must all be stated (a fact's ``variations`` are equivalent
    wordings); ``disallowed`` claims must not be made; ``accepted_variations`` are answers
    or phrasings that also count as correct. A case passes when the judge's score is at
    least ``pass_minimum``. ``groundedness`` and ``citations`` ask for the two optional
    dimensions, each reported on its own.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    required: tuple[RequiredFact, ...] = ()
    disallowed: tuple[DisallowedClaim, ...] = ()
    accepted_variations: tuple[str, ...] = ()
    pass_minimum: int = Field(default=2, ge=1, le=2)
    groundedness: bool = False
    citations: bool = False

    @property
    def version(self) -> str:
        """Content hash of the rubric: any change to it changes the judgment's provenance."""
        return content_hash(self.model_dump(mode="json")).split(":")[-1][:12]

    def finding_ids(self) -> list[tuple[str, str, str]]:
        """One ``(id, kind, text)`` per required fact (R1, R2, …) and disallowed claim
        (D1, …): the findings a reply must contain, in order."""
        found = [(f"R{i}", "required", f.fact) for i, f in enumerate(self.required, 1)]
        found += [(f"D{i}", "disallowed", d.claim) for i, d in enumerate(self.disallowed, 1)]
        return found


def rubric_for(case: Case, base: JudgeRubric) -> JudgeRubric:
    """The rubric for ``case``: its own required facts and disallowed claims when it has
    any (replacing the suite's), the suite's otherwise; variations and settings from
    ``base`` plus any the case's ``metadata.accepted_variations`` lists."""
    extra = case.metadata.get("accepted_variations") or ()
    variations = tuple(base.accepted_variations) + tuple(str(v) for v in extra)
    return base.model_copy(
        update={
            "required": case.required or base.required,
            "disallowed": case.disallowed or base.disallowed,
            "accepted_variations": variations,
            "citations": base.citations or case.requires_citation,
        }
    )
