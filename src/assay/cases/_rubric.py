"""The rubric a case can carry for free-text checks: required facts, disallowed claims,
and where a derived (synthetic) case came from."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator


def _from_string(value: Any, key: str) -> Any:
    """Accept a bare string as shorthand for ``{key: string}`` with no variations."""
    return {key: value} if isinstance(value, str) else value


class RequiredFact(BaseModel):
    """A fact the answer must state: ``fact`` or any of its accepted ``variations``.

    Written as a string (``"30 days"``) or as ``{"fact": "30 days", "variations":
    ["thirty days"]}``. Matching ignores case, whitespace and punctuation.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    fact: str = Field(min_length=1)
    variations: tuple[str, ...] = ()

    @model_validator(mode="before")
    @classmethod
    def _shorthand(cls, value: Any) -> Any:
        return _from_string(value, "fact")

    @property
    def phrases(self) -> tuple[str, ...]:
        """The fact followed by its variations: any one of them satisfies the fact."""
        return (self.fact, *self.variations)


class DisallowedClaim(BaseModel):
    """A claim the answer must not make: ``claim`` or any of its ``variations``.

    Written as a string (``"$10"``) or as ``{"claim": "shipping fee", "variations": [...]}``.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    claim: str = Field(min_length=1)
    variations: tuple[str, ...] = ()

    @model_validator(mode="before")
    @classmethod
    def _shorthand(cls, value: Any) -> Any:
        return _from_string(value, "claim")

    @property
    def phrases(self) -> tuple[str, ...]:
        """The claim followed by its variations: any one of them makes the claim."""
        return (self.claim, *self.variations)


class Provenance(BaseModel):
    """Where a synthetic case came from: the real case it copies and what was changed.

    ``method`` names the construction (``flip-check``); ``check`` is the check it flipped,
    ``from_value`` and ``to_value`` the recorded result before and after.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    source_case: str = Field(min_length=1)
    method: str = Field(min_length=1)
    check: str | None = None
    from_value: bool | None = None
    to_value: bool | None = None
    note: str | None = None
