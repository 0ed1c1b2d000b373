"""The target registry: suite ``target`` settings to a ready ``Target``."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from assay._validation import problems_from
from assay.errors import AssayConfigError, InputFormatError, Location, Problem, did_you_mean
from assay.targets._base import Target


@dataclass(frozen=True)
class TargetType:
    """A registered target type: its settings model and how to build it from them."""

    settings: type[BaseModel]
    build: Callable[[Any, Path | None], Target]


def _builtins() -> dict[str, TargetType]:
    from assay.demo import DemoSettings, DemoTarget
    from assay.targets.function import FunctionSettings, FunctionTarget
    from assay.targets.http import HttpSettings, HttpTarget
    from assay.targets.openai import OpenAISettings, OpenAITarget
    from assay.targets.scripted import ScriptedSettings, ScriptedTarget

    return {
        "demo": TargetType(DemoSettings, DemoTarget.from_settings),
        "function": TargetType(FunctionSettings, FunctionTarget.from_settings),
        "http": TargetType(HttpSettings, HttpTarget.from_settings),
        "openai": TargetType(OpenAISettings, OpenAITarget.from_settings),
        "scripted": TargetType(ScriptedSettings, ScriptedTarget.from_settings),
    }


TARGET_TYPES: dict[str, TargetType] = {}


def register_target(name: str, kind: TargetType) -> None:
    """Make ``type: name`` available in suites."""
    TARGET_TYPES[name] = kind


def target_types() -> dict[str, TargetType]:
    """Every registered target type, built-ins included."""
    for name, kind in _builtins().items():
        TARGET_TYPES.setdefault(name, kind)
    return TARGET_TYPES


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
    kinds = target_types()
    name = settings.get("type")
    if not isinstance(name, str) or name not in kinds:
        shown = f'"{name}"' if isinstance(name, str) else "missing"
        hint = did_you_mean(name, list(kinds)) if isinstance(name, str) else ""
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
    kind = kinds[name]
    try:
        parsed = kind.settings.model_validate(dict(settings))
    except ValidationError as err:
        problems = [
            Problem(_prefixed(p), where(f"target.{p.field}" if p.field else "target"), p.field)
            for p in problems_from(err, None, kind.settings)
        ]
        raise InputFormatError(problems, summary=f"invalid {name} target") from None
    try:
        return kind.build(parsed, base_dir)
    except ValueError as err:
        raise AssayConfigError(f"target ({name}): {err}") from None
