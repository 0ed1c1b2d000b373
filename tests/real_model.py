"""The ``real_model`` fixture: a local OpenAI-compatible server running a small real model
(llama.cpp's server with SmolLM2-135M, for instance). Tests that use it carry the
``real_model`` marker and are skipped when no such server answers.

``ASSAY_REAL_MODEL_URL`` (default ``http://127.0.0.1:8765/v1``) and
``ASSAY_REAL_MODEL_NAME`` (default: the first model the server lists) choose the server.
"""

from __future__ import annotations

import json
import os
import urllib.request
from dataclasses import dataclass

import pytest


@dataclass(frozen=True)
class RealModel:
    """Where the real model answers: ``base_url`` ends in ``/v1``."""

    base_url: str
    model: str


@pytest.fixture(scope="session")
def real_model() -> RealModel:
    base = os.environ.get("ASSAY_REAL_MODEL_URL", "http://127.0.0.1:8765/v1").rstrip("/")
    try:
        with urllib.request.urlopen(f"{base}/models", timeout=5) as response:
            listed = json.loads(response.read())
    except (OSError, ValueError) as err:
        pytest.skip(f"no real model server at {base}: {err}")
    name = os.environ.get("ASSAY_REAL_MODEL_NAME")
    if not name:
        models = listed.get("data") or [{}]
        name = str(models[0].get("id") or "local-model")
    return RealModel(base, name)
