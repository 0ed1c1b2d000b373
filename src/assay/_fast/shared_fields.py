"""Pydantic models that stay small when a run holds one per case-trial.

Every pydantic instance carries its own set of the field names it was given
(``model_fields_set``): for a model of twenty-odd fields that set is larger than the
values themselves. A ``CompactModel`` shares one immutable set between all instances
given the same fields, so half a million rows cost what their values cost.

What it saves: peak memory of a command holding a row per case-trial (``assay score`` of
a large file), measured in bench/RESULTS.md, section ``speed_tricks``.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from pydantic import BaseModel, ConfigDict


class SharedFieldNames(set[str]):
    """The field names a model was given, shared between instances and never changed in
    place; a copy (as ``model_copy`` makes before adding the fields it updates) is a
    private plain set."""

    __slots__ = ()

    def _shared(self, *args: Any) -> None:
        raise TypeError("a shared set of field names cannot change")

    add = update = discard = remove = pop = clear = _shared  # type: ignore[assignment]
    difference_update = intersection_update = _shared
    symmetric_difference_update = _shared
    __ior__ = __iand__ = __isub__ = __ixor__ = _shared  # type: ignore[assignment]

    def __copy__(self) -> set[str]:
        return set(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> set[str]:
        return set(self)


@lru_cache(maxsize=4096)
def shared_field_names(names: frozenset[str]) -> SharedFieldNames:
    """The one shared set equal to ``names``."""
    return SharedFieldNames(names)


class CompactModel(BaseModel):
    """A frozen model made by the hundred thousand: its field-name set is shared."""

    model_config = ConfigDict(defer_build=True)

    def model_post_init(self, context: Any, /) -> None:
        object.__setattr__(
            self,
            "__pydantic_fields_set__",
            shared_field_names(frozenset(self.__pydantic_fields_set__)),
        )
