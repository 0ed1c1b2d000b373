"""A report model as indented JSON text, even when its data holds a lone surrogate."""

from __future__ import annotations

import json

from pydantic import BaseModel
from pydantic_core import PydanticSerializationError


def model_json(model: BaseModel, *, by_alias: bool = False) -> str:
    """``model`` as JSON indented by two spaces (pydantic's text).

    A lone UTF-16 surrogate in its data (a stored run's metadata read back from JSON may
    hold one) is no text pydantic can encode: such a model is written by ``json`` instead,
    the surrogate kept as a character, which every stream and file assay writes turns
    into its JSON escape (``\\ud800``: see ``escape_controls``).
    """
    try:
        return model.model_dump_json(indent=2, by_alias=by_alias)
    except PydanticSerializationError:
        data = model.model_dump(mode="json", by_alias=by_alias)
        return json.dumps(data, indent=2, ensure_ascii=False)
