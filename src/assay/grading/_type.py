"""A grader type a suite names by ``grader.type``: the plugin shape for third-party graders."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from assay.grading._judgment import Grader

ENTRY_POINT_GROUP = "assay.graders"


@dataclass(frozen=True)
class GraderType:
    """Its settings model (every ``grader`` key but ``type``) and how to build the grader
    from validated settings and the suite's directory.

    An installed package makes one available to suites with an entry point in the
    ``assay.graders`` group naming a ``GraderType`` (docs/extending.md).
    """

    settings: type[BaseModel]
    build: Callable[[Any, Path], Grader]
