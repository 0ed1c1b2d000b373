"""The grader a suite names: ``structured`` (the default), ``composite`` with a profile,
or ``judge``, a model grading free text against a rubric.

A suite writes either a name (``grader: structured``) or a mapping::

    grader:
      type: composite
      profile: profile.yaml     # optional; relative to the suite file, or a built-in
                                # profile's name (default, agent); default: default
      sources: sources.yaml     # optional; added to the sources the dataset header names

    grader:
      type: judge               # every judge setting inline (docs/judge.md) ...
      base_url: http://127.0.0.1:8765/v1
      model: smollm2-135m
      settings: judge.yaml      # ... or in a file, relative to the suite file

Every ``type`` is resolved through the ``assay.graders`` entry-point group: the three above
are assay's own (``STRUCTURED_GRADER``, ``COMPOSITE_GRADER``, ``JUDGE_GRADER``, declared in
assay's ``pyproject.toml``); any other names a ``GraderType`` an installed package declares,
and its other keys are that type's settings.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from assay._fast.modules import loaded
from assay._validation import problems_from
from assay.cases import SourceLibrary
from assay.errors import AssayConfigError, InputFormatError, Location, Problem, did_you_mean
from assay.grading import Grader, GraderType, RepeatVerdict, StructuredGrader
from assay.grading.checks import DEFAULT_PROFILE, CompositeScorer, Profile
from assay.load._checks import builtin_profile, check_registry, load_profile
from assay.load._grader_types import BUILTIN_GRADERS, grader_type, grader_type_names
from assay.load._paths import named_file
from assay.load._sources import load_sources, merge_sources

if TYPE_CHECKING:
    from assay.load._judge import JudgeSettings

GRADERS: dict[str, Callable[[], Grader]] = {
    "structured": StructuredGrader,
    "composite": CompositeScorer,
}
JUDGE = "judge"
FILE_KEYS = ("profile", "sources")


class GraderSettings(BaseModel):
    """The ``grader`` key of a suite (a bare name means ``{type: name}``)."""

    # A judge takes its settings inline: grader_problems checks them, and refuses extra
    # keys for every other grader.
    model_config = ConfigDict(frozen=True, extra="allow", defer_build=True)

    type: str = Field(default="structured", min_length=1)
    profile: str | None = Field(default=None, min_length=1)
    sources: str | None = Field(default=None, min_length=1)
    settings: str | None = Field(default=None, min_length=1)

    def plugin_keys(self) -> dict[str, Any]:
        """Every key but ``type``: a plugin grader's settings."""
        given = self.model_dump(include=set(FILE_KEYS) | {"settings"}, exclude_none=True)
        return given | dict(self.model_extra or {})

    def judge_keys(self) -> dict[str, Any]:
        """The inline judge settings (every key but ``type``, ``sources``, ``settings``)."""
        return dict(self.model_extra or {})

    @model_validator(mode="before")
    @classmethod
    def _from_name(cls, value: Any) -> Any:
        return {"type": value} if isinstance(value, str) else value


Locate = Callable[[str], Location]


def _plugin_settings(
    spec: GraderSettings, kind: GraderType, locate: Callable[[str], Location]
) -> BaseModel:
    try:
        return kind.settings.model_validate(spec.plugin_keys())
    except ValidationError as err:
        problems = [
            Problem(
                f"grader.{p.message}" if p.field and p.message.startswith(p.field) else p.message,
                locate(f"grader.{p.field}" if p.field else "grader"),
                p.field,
            )
            for p in problems_from(err, None, kind.settings)
        ]
        where = locate("grader")
        raise InputFormatError(
            problems, summary=f"{where.file}: invalid {spec.type} grader"
        ) from None


@dataclass(frozen=True)
class SuiteGraderType(GraderType):
    """A built-in grader type, which reads more of the suite than its own keys: ``check``
    says what is wrong with the suite's ``grader`` settings, ``build_in_suite`` builds the
    grader from them, the suite's directory and the sources its dataset names (when
    ``reads_sources``). ``build(settings, base_dir)`` builds it without sources."""

    check: Callable[[GraderSettings, Locate], list[Problem]]
    build_in_suite: Callable[[GraderSettings, Path, Locate, SourceLibrary], Grader]
    reads_sources: bool = False


def grader_problems(spec: GraderSettings, locate: Locate) -> list[Problem]:
    """What is wrong with a suite's grader settings: an unknown type, a file key given to a
    grader that does not read it, a plugin grader's invalid settings."""
    kind = grader_type(spec.type)
    if kind is None:
        names = grader_type_names()
        hint = did_you_mean(spec.type, names)
        where = locate("grader.type")
        message = f'grader "{spec.type}": unknown grader{hint}; choose one of {", ".join(names)}'
        return [Problem(message, where, "grader")]
    if isinstance(kind, SuiteGraderType):
        return kind.check(spec, locate)
    try:
        _plugin_settings(spec, kind, locate)
    except InputFormatError as err:
        return list(err.problems)
    return []


def _unread_keys(spec: GraderSettings, locate: Locate) -> list[Problem]:
    """The inline keys and the judge's settings file, given to a grader that reads neither."""
    known = ["type", *FILE_KEYS]
    extra = [
        Problem(f'unknown field "grader.{key}"{did_you_mean(key, known)}', locate(f"grader.{key}"))
        for key in spec.judge_keys()
    ]
    if spec.settings is not None:
        extra.append(Problem("grader.settings: only the judge reads it", locate("grader.settings")))
    return extra


def _structured_problems(spec: GraderSettings, locate: Locate) -> list[Problem]:
    return _unread_keys(spec, locate) + [
        Problem(f"grader.{key}: only the composite grader reads it", locate(f"grader.{key}"))
        for key in FILE_KEYS
        if getattr(spec, key) is not None
    ]


def _judge_problems(spec: GraderSettings, locate: Locate) -> list[Problem]:
    problems = []
    if spec.profile is not None:
        problems.append(
            Problem("grader.profile: the judge reads no profile", locate("grader.profile"))
        )
    if spec.settings is None:
        try:
            _inline_judge(spec, locate)
        except InputFormatError as err:
            problems.extend(err.problems)
    return problems


def _inline_judge(spec: GraderSettings, locate: Callable[[str], Location]) -> JudgeSettings:
    # deferred: the judge's settings and calibration, which a suite without a judge never needs
    from assay.load._judge import judge_settings

    where = locate("grader")
    return judge_settings(
        spec.judge_keys(), locate, f"{where.file}: invalid judge settings", prefix="grader."
    )


def _suite_file(value: str, base_dir: Path, where: Location, key: str) -> Path:
    return named_file(value, base_dir, where, f"grader.{key}", "suite")


def build_grader(
    spec: GraderSettings,
    base_dir: Path,
    locate: Locate,
    sources: SourceLibrary,
) -> Grader:
    """The grader the settings name; a composite scorer reads its profile (files relative to
    ``base_dir``) and ``sources`` plus any sources file of its own."""
    kind = grader_type(spec.type)
    if kind is None:
        raise InputFormatError(grader_problems(spec, locate), summary="invalid grader")
    if isinstance(kind, SuiteGraderType):
        return kind.build_in_suite(spec, base_dir, locate, sources)
    try:
        return kind.build(_plugin_settings(spec, kind, locate), base_dir)
    except ValueError as err:
        raise AssayConfigError(f"grader ({spec.type}): {err}") from None


def reads_sources(spec: GraderSettings) -> bool:
    """Whether the grader the settings name reads the sources its suite's dataset names."""
    kind = grader_type(spec.type)
    return isinstance(kind, SuiteGraderType) and kind.reads_sources


def _structured(
    spec: GraderSettings, base_dir: Path, locate: Locate, sources: SourceLibrary
) -> Grader:
    return StructuredGrader()


def _composite(
    spec: GraderSettings, base_dir: Path, locate: Locate, sources: SourceLibrary
) -> Grader:
    registry = check_registry()
    profile = DEFAULT_PROFILE
    builtin = (
        None if spec.profile is None else builtin_profile(spec.profile, base_dir / spec.profile)
    )
    if builtin is not None:
        profile = builtin
    elif spec.profile is not None:
        path = _suite_file(spec.profile, base_dir, locate("grader.profile"), "profile")
        profile = load_profile(path, registry)
    if spec.sources is not None:
        path = _suite_file(spec.sources, base_dir, locate("grader.sources"), "sources")
        sources = merge_sources(sources, load_sources(path))
    return CompositeScorer(profile, registry.resolve(profile.checks), sources)


def _judge(spec: GraderSettings, base_dir: Path, locate: Locate, sources: SourceLibrary) -> Grader:
    # deferred: the judge's settings and calibration, which a suite without a judge never needs
    from assay.load._judge import load_judge

    if spec.sources is not None:
        path = _suite_file(spec.sources, base_dir, locate("grader.sources"), "sources")
        sources = merge_sources(sources, load_sources(path))
    if spec.settings is not None:
        path = _suite_file(spec.settings, base_dir, locate("grader.settings"), "settings")
        return load_judge(path).grader(sources, path.parent)
    return _inline_judge(spec, locate).grader(sources, base_dir)


def _type_of(
    check: Callable[[GraderSettings, Locate], list[Problem]],
    build: Callable[[GraderSettings, Path, Locate, SourceLibrary], Grader],
    *,
    reads_sources: bool = False,
) -> SuiteGraderType:
    def without_suite(settings: GraderSettings, base_dir: Path) -> Grader:
        return build(settings, base_dir, lambda _key: Location("grader"), SourceLibrary())

    return SuiteGraderType(GraderSettings, without_suite, check, build, reads_sources)


STRUCTURED_GRADER = _type_of(_structured_problems, _structured)
COMPOSITE_GRADER = _type_of(_unread_keys, _composite, reads_sources=True)
JUDGE_GRADER = _type_of(_judge_problems, _judge, reads_sources=True)


def grader_provenance(grader: Grader, spec: GraderSettings | None = None) -> dict[str, str]:
    """What a run records about its grader: name and version, and a composite scorer's
    profile (as JSON) and the content hash of its source snapshots, if it has any. A plugin
    grader (``spec`` names a type assay does not build in) also records its registered
    ``type`` and its validated ``settings`` (as JSON, secret-looking keys redacted), from
    which ``grader_from_provenance`` builds it again."""
    # A judge grader exists only once its module is loaded: no other grader loads it.
    judge = loaded("assay.grading.judge._grader")
    entry = {"name": grader.name, "version": grader.version}
    if spec is not None and spec.type not in BUILTIN_GRADERS:
        kind = grader_type(spec.type)
        if kind is not None and not isinstance(kind, SuiteGraderType):
            # deferred: the store loads SQLAlchemy, which only a plugin grader's settings need here
            from assay.store import redact

            settings = kind.settings.model_validate(spec.plugin_keys())
            entry["type"] = spec.type
            entry["settings"] = json.dumps(redact(settings.model_dump(mode="json")))
        return entry
    if judge is not None and isinstance(grader, judge.JudgeGrader):
        entry.update({k: str(v) for k, v in grader.identity().items()})
        entry["config"] = grader.config.model_dump_json()
        entry["rubric"] = grader.rubric.model_dump_json()
        if grader.repeats > 1 or grader.verdict != "first":
            entry.update({"repeats": str(grader.repeats), "verdict": grader.verdict})
        return entry
    if isinstance(grader, CompositeScorer):
        entry["profile"] = grader.profile.model_dump_json()
        if grader.sources.version is not None:
            entry["sources_version"] = grader.sources.version
    return entry


class PluginNotInstalled(LookupError):
    """A stored run's grader is a plugin type no installed package declares here."""

    def __init__(self, name: str, version: str, kind: str) -> None:
        self.name, self.version, self.kind = name, version, kind
        super().__init__(
            f'grader "{name}" v{version} (grader type "{kind}") is a plugin that is not '
            f'installed here: install the package declaring "{kind}" in its '
            '"assay.graders" entry points'
        )


def plugin_grader(entry: dict[str, str], base_dir: Path) -> Grader:
    """The plugin grader a run recorded (``type`` and ``settings`` in its provenance),
    built again by its registered type; ``PluginNotInstalled`` when no installed package
    declares that type, ``AssayConfigError`` when the recorded settings no longer fit it
    or held a secret (recorded redacted)."""
    name, kind_name = entry.get("name", "?"), entry["type"]
    kind = grader_type(kind_name)
    if kind is None or isinstance(kind, SuiteGraderType):
        raise PluginNotInstalled(name, entry.get("version", "?"), kind_name)
    recorded = entry.get("settings", "{}")
    if '"<redacted>"' in recorded:
        raise AssayConfigError(
            f'grader "{name}" (grader type "{kind_name}"): a secret in its settings was not '
            "recorded, so it cannot be built again from the run; read secrets from an "
            "environment variable the settings name"
        )
    try:
        settings = kind.settings.model_validate_json(recorded)
        return kind.build(settings, base_dir)
    except ValueError as err:
        first = str(err).splitlines()[0]
        if isinstance(err, ValidationError) and err.errors():
            problem = err.errors()[0]
            first = f"{'.'.join(map(str, problem['loc'])) or 'settings'}: {problem['msg']}"
        raise AssayConfigError(
            f'grader "{name}" (grader type "{kind_name}"): its recorded settings cannot '
            f"build it here: {first}"
        ) from None


def grader_from_provenance(entry: dict[str, str], base_dir: Path | None = None) -> Grader | None:
    """A grader rebuilt from ``grader_provenance`` (a composite scorer with the recorded
    profile, without source snapshots: its citation checks cannot be evaluated; a plugin
    grader by its registered type and recorded settings, with paths relative to
    ``base_dir``), or None for an unknown grader or a plugin not installed here."""
    if "type" in entry:
        try:
            return plugin_grader(entry, base_dir or Path("."))
        except (PluginNotInstalled, AssayConfigError):
            return None
    if entry.get("name") == JUDGE and "config" in entry:
        # deferred: the judge, which a run graded without one never loads
        from assay.grading.judge import JudgeConfig, JudgeGrader, JudgeRubric

        config = JudgeConfig.model_validate_json(entry["config"])
        rubric = JudgeRubric.model_validate_json(entry.get("rubric", "{}"))
        verdict: RepeatVerdict = "majority" if entry.get("verdict") == "majority" else "first"
        repeats = int(entry["repeats"]) if entry.get("repeats", "").isdigit() else 1
        return JudgeGrader(config, rubric, repeats=max(repeats, 1), verdict=verdict)
    make = GRADERS.get(entry.get("name", ""))
    if make is None:
        return None
    if make is not CompositeScorer or "profile" not in entry:
        return make()

    profile = Profile.model_validate(json.loads(entry["profile"]))
    return CompositeScorer(profile, check_registry().resolve(profile.checks))
