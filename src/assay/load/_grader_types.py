"""The grader registry: the grader types a suite may name by ``grader.type``."""

from __future__ import annotations

from importlib.metadata import EntryPoint

from assay._plugins import installed_entry_points, load_entry_point
from assay.grading import ENTRY_POINT_GROUP, GraderType

# The built-in types, as assay's own ``assay.graders`` entry points declare them: a source
# checkout whose installed metadata predates one still finds it here. No installed package
# may take one of these names.
BUILTIN_GRADERS: dict[str, str] = {
    "structured": "assay.load._grader:STRUCTURED_GRADER",
    "composite": "assay.load._grader:COMPOSITE_GRADER",
    "judge": "assay.load._grader:JUDGE_GRADER",
}

GRADER_TYPES: dict[str, GraderType] = {}


def register_grader(name: str, kind: GraderType) -> None:
    """Make ``grader: {type: name}`` available in suites (for this process; an installed
    plugin declares an ``assay.graders`` entry point instead). A built-in name cannot be
    taken."""
    if name in BUILTIN_GRADERS:
        raise ValueError(f'grader "{name}" is built in')
    GRADER_TYPES[name] = kind


def _points() -> dict[str, EntryPoint]:
    """Every grader type's entry point: the installed ones, then the built-ins over them."""
    found = {point.name: point for point in installed_entry_points(ENTRY_POINT_GROUP)}
    found.update(
        {
            name: EntryPoint(name, value, ENTRY_POINT_GROUP)
            for name, value in BUILTIN_GRADERS.items()
        }
    )
    return found


def grader_type_names() -> list[str]:
    """Every grader type a suite may name: the built-ins first, then the others sorted."""
    others = sorted({*_points(), *GRADER_TYPES} - set(BUILTIN_GRADERS))
    return [*BUILTIN_GRADERS, *others]


def grader_type(name: str) -> GraderType | None:
    """The grader type called ``name`` (its module imported now), or None if unknown."""
    if name in GRADER_TYPES:
        return GRADER_TYPES[name]
    point = _points().get(name)
    if point is None:
        return None
    return load_entry_point(point, GraderType, f'grader "{point.name}"')
