"""The target registry: suite ``target`` settings to a ready ``Target``."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib.metadata import EntryPoint
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from assay._plugins import installed_entry_points, load_entry_point
from assay._validation import problems_from
from assay.errors import AssayConfigError, InputFormatError, Location, Problem, did_you_mean
from assay.targets._base import Target, TargetType

ENTRY_POINT_GROUP = "assay.targets"

# The built-in types, as assay's own ``assay.targets`` entry points declare them: a source
# checkout whose installed metadata predates one still finds it here.
BUILTIN_TARGETS: dict[str, str] = {
    "agent": "assay.agents:AGENT_TARGET",
    "demo": "assay.demo:DEMO_TARGET",
    "function": "assay.targets.function:FUNCTION_TARGET",
    "http": "assay.targets.http:HTTP_TARGET",
    "openai": "assay.targets.openai:OPENAI_TARGET",
    "scripted": "assay.load._scripted:SCRIPTED_TARGET",
}

TARGET_TYPES: dict[str, TargetType] = {}


def register_target(name: str, kind: TargetType) -> None:
    """Make ``type: name`` available in suites (for this process; an installed plugin
    declares an ``assay.targets`` entry point instead)."""
    TARGET_TYPES[name] = kind


def _points() -> dict[str, EntryPoint]:
    """Every target type's entry point: the built-ins, then the installed ones."""
    found = {
        name: EntryPoint(name, value, ENTRY_POINT_GROUP) for name, value in BUILTIN_TARGETS.items()
    }
    found.update({point.name: point for point in installed_entry_points(ENTRY_POINT_GROUP)})
    return found


def _load(point: EntryPoint) -> TargetType:
    return load_entry_point(point, TargetType, f'target type "{point.name}"')


def target_type_names() -> list[str]:
    """Every target type a suite may name, sorted."""
    return sorted({*_points(), *TARGET_TYPES})


def target_type(name: str) -> TargetType | None:
    """The target type called ``name`` (its module imported now), or None if unknown."""
    if name in TARGET_TYPES:
        return TARGET_TYPES[name]
    point = _points().get(name)
    return _load(point) if point is not None else None


def target_types() -> dict[str, TargetType]:
    """Every target type, each module imported."""
    kinds = {name: target_type(name) for name in target_type_names()}
    return {name: kind for name, kind in kinds.items() if kind is not None}


def _prefixed(problem: Problem) -> str:
    message = problem.message.replace("; put free data under metadata", "")
    field = problem.field or ""
    if field and message.startswith(field):
        return f"target.{message}"
    return message.replace(f'"{field}"', f'"target.{field}"') if field else message


Locate = Callable[[str], Location | None]


def build_target(
    settings: Mapping[str, Any], base_dir: Path | None = None, locate: Locate | None = None
) -> Target:
    """The target for suite settings ``{type: ..., ...}``.

    Unknown types and invalid settings raise ``InputFormatError`` naming each field as
    ``target.<field>`` (with its file and line when ``locate`` can tell).
    """
    where = locate or (lambda _field: None)
    name = settings.get("type")
    kind = target_type(name) if isinstance(name, str) else None
    if kind is None:
        kinds = target_type_names()
        shown = f'"{name}"' if isinstance(name, str) else "missing"
        hint = did_you_mean(name, kinds) if isinstance(name, str) else ""
        raise InputFormatError(
            [
                Problem(
                    f"target.type {shown}: unknown target type{hint}; "
                    f"choose one of {', '.join(sorted(kinds))}",
                    where("target.type"),
                    "target.type",
                )
            ],
            summary="invalid target",
        )
    try:
        parsed = kind.settings.model_validate(dict(settings))
    except ValidationError as err:
        problems = [
            Problem(_prefixed(p), where(f"target.{p.field}" if p.field else "target"), p.field)
            for p in problems_from(err, None, kind.settings)
        ]
        raise InputFormatError(problems, summary=f"invalid {name} target") from None
    try:
        target = kind.build(parsed, base_dir)
    except InputFormatError as err:  # a setting the build could not use, located here
        problems = [
            p
            if p.location is not None or p.field is None
            else Problem(p.message, where(p.field), p.field)
            for p in err.problems
        ]
        raise InputFormatError(problems, summary=f"invalid {name} target") from None
    except ValueError as err:
        raise AssayConfigError(f"target ({name}): {err}") from None
    if not isinstance(target, Target):
        raise AssayConfigError(
            f"target ({name}): {type(target).__name__} is not a Target "
            "(name, config, run, start, aclose, secrets: subclass assay.targets.BaseTarget)"
        )
    return target
