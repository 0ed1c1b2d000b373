"""Pydantic models that stay small when a run holds one per case-trial.

Every pydantic instance carries its own set of the field names it was given
(``model_fields_set``): for a model of twenty-odd fields that set is larger than the
values themselves. A ``CompactModel`` shares one immutable set between all instances
given the same fields, so half a million rows cost what their values cost.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict

M = TypeVar("M", bound=BaseModel)


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


_new = object.__new__
_set = object.__setattr__


def checked_instance(cls: type[M], values: dict[str, Any], given: SharedFieldNames) -> M:
    """The instance of ``cls`` whose fields are ``values`` (every field, in the model's
    order, each already of its field's type and within its bounds) and whose given fields
    are ``given``: what validating them would make, without validating them again.

    For the hot paths that have checked their input by a cheaper route, including what
    the model's own validators check; a model with private attributes must not be made
    this way.
    """
    instance = _new(cls)
    _set(instance, "__dict__", values)
    _set(instance, "__pydantic_fields_set__", given)
    _set(instance, "__pydantic_extra__", None)
    _set(instance, "__pydantic_private__", None)
    return instance
