"""Finding checks (entry points) and reading scoring profiles and composite results files."""

from __future__ import annotations

from collections.abc import Collection, Iterable
from functools import lru_cache
from importlib.metadata import EntryPoint
from pathlib import Path

from assay._plugins import installed_entry_points
from assay.errors import AssayConfigError, InputFormatError, Location, Problem
from assay.grading.checks import (
    BUILTIN_CHECKS,
    ENTRY_POINT_GROUP,
    PROFILES,
    CheckLoader,
    CheckRegistry,
    CompositeInputs,
    Profile,
    make_profile,
    parse_composite_results,
)
from assay.load._files import refuse_trials_beyond
from assay.load._records import read_records, read_yaml


def registry_from(points: Iterable[EntryPoint]) -> CheckRegistry:
    """A registry of the given entry points; each is imported only when its check is used.

    Built-in checks are declared in assay's own ``assay.checks`` entry points, like any
    plugin's. A source checkout whose installed metadata predates a built-in still gets it
    from ``BUILTIN_CHECKS``, so a stale install never hides a built-in check.
    """
    loaders: dict[str, CheckLoader] = {}
    origins: dict[str, str] = {}
    for point in points:
        loaders[point.name] = point.load
        origins[point.name] = f"entry point {point.value}"
    for name, fn in BUILTIN_CHECKS.items():
        if name not in loaders:
            loaders[name] = _constant(fn)
            origins[name] = "built-in"
    return CheckRegistry(loaders, origins)


def _constant(fn: object) -> CheckLoader:
    return lambda: fn  # type: ignore[return-value]


@lru_cache(maxsize=1)
def check_registry() -> CheckRegistry:
    """Every check installed in this environment under the ``assay.checks`` group."""
    return registry_from(installed_entry_points(ENTRY_POINT_GROUP))


def load_profile(
    path: str | Path, registry: CheckRegistry | None = None, recorded: Collection[str] = ()
) -> Profile:
    """A scoring profile from a YAML (or JSON) file, validated against the known checks;
    or a built-in profile (``default``, ``agent``) named when no such file exists.

    The profile's name defaults to the file's stem. ``recorded`` are further check names
    it may weigh: results another tool recorded (an imported run's assertions).

    Example::

        name: default
        threshold: 0.85
        critical: [content_present, content_absent]
        weights: {answer_not_empty: 0.05, content_present: 0.25, ...}
    """
    p = Path(path)
    builtin = builtin_profile(str(path), p)
    if builtin is not None:
        return builtin
    data = read_yaml(p, "profile")
    if not isinstance(data, dict):
        raise AssayConfigError(f"{p}: a profile is a mapping with weights, critical, threshold")
    known = [*(registry or check_registry()).names, *recorded]
    return make_profile({"name": p.stem, **data}, known, str(p))


def builtin_profile(name: str, path: Path) -> Profile | None:
    """The built-in profile ``name`` when nothing is at ``path`` (the file it would
    otherwise name), else None."""
    if name not in PROFILES or path.exists():
        return None
    return PROFILES[name]


def load_composite_results(path: str | Path, checks: Collection[str]) -> CompositeInputs:
    """Free-text outcomes and recorded check results (``{"id", "checks": {...}}``) from one
    results file; ``checks`` are the check names a checks line may use. An empty file is
    valid: nothing was recorded, and every case is missing."""
    p = Path(path)
    records, header = read_records(p, "results", allow_empty=True)
    problems = [
        Problem(f'unknown top-level field "{k}"', Location(str(p), 1), k)
        for k in sorted(set(header) - {"columns"})
    ]
    if problems:
        raise InputFormatError(problems, summary=f"{p}: invalid results")
    inputs = parse_composite_results(records, str(p), checks)
    refuse_trials_beyond(*inputs.lines, p)
    return inputs
