"""The check registry: check names to checks, each loaded only when first used."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from assay.errors import AssayConfigError, did_you_mean
from assay.grading.checks._builtin import BUILTIN_CHECKS
from assay.grading.checks._types import Check

CheckLoader = Callable[[], Check]
ENTRY_POINT_GROUP = "assay.checks"


def _constant(check: Check) -> CheckLoader:
    return lambda: check


class CheckRegistry:
    """Names -> checks. Built-in and third-party checks arrive the same way: as loaders
    (an entry point's ``load``) that run the first time a check is asked for.

    >>> CheckRegistry.builtin().get("content_present").__name__
    'content_present'
    """

    def __init__(
        self, loaders: Mapping[str, CheckLoader], origins: Mapping[str, str] | None = None
    ) -> None:
        self._loaders = dict(loaders)
        self._origins = dict(origins or {})
        self._loaded: dict[str, Check] = {}

    @classmethod
    def builtin(cls) -> CheckRegistry:
        """A registry of the built-in checks only."""
        return cls({name: _constant(fn) for name, fn in BUILTIN_CHECKS.items()})

    def with_checks(self, checks: Mapping[str, Check]) -> CheckRegistry:
        """This registry plus ``checks`` (which replace any of the same name)."""
        loaders = {**self._loaders, **{n: _constant(c) for n, c in checks.items()}}
        return CheckRegistry(loaders, self._origins)

    @property
    def names(self) -> tuple[str, ...]:
        """Every registered name, sorted."""
        return tuple(sorted(self._loaders))

    def __contains__(self, name: object) -> bool:
        return name in self._loaders

    def unknown_message(self, name: str) -> str:
        """'unknown check "x" (did you mean "y"?); known checks: ...'."""
        return (
            f'unknown check "{name}"{did_you_mean(name, self.names)}; '
            f"known checks: {', '.join(self.names)}"
        )

    def get(self, name: str) -> Check:
        """The check called ``name``; ``AssayConfigError`` (with "did you mean") if unknown
        or if its plugin cannot be loaded."""
        if name in self._loaded:
            return self._loaded[name]
        if name not in self._loaders:
            raise AssayConfigError(self.unknown_message(name))
        try:
            check = self._loaders[name]()
        except Exception as err:  # a broken plugin is the user's to fix: say which one
            origin = self._origins.get(name, name)
            raise AssayConfigError(
                f'check "{name}" ({origin}) could not be loaded: {type(err).__name__}: {err}'
            ) from err
        if not callable(check):
            raise AssayConfigError(f'check "{name}" is not callable: {check!r}')
        self._loaded[name] = check
        return check

    def resolve(self, names: Iterable[str]) -> dict[str, Check]:
        """``{name: check}`` for every name, in the given order."""
        return {name: self.get(name) for name in names}
