"""Pydantic instances made from values already checked, without validating them again.

What it saves: CPU time of ``assay score`` (cases, results and verdicts read and counted)
and of a stored run's report (its records and judgments read back), measured in
bench/RESULTS.md, section ``speed_tricks``.
"""

from __future__ import annotations

from collections.abc import Set
from typing import Any, TypeVar

from pydantic import BaseModel

M = TypeVar("M", bound=BaseModel)

_new = object.__new__
_set = object.__setattr__


def checked_instance(cls: type[M], values: dict[str, Any], given: Set[str]) -> M:
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
