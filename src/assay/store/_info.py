"""``RunInfo``: what a stored run records about itself besides its records."""

from __future__ import annotations

from datetime import datetime
from pathlib import PurePath
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

RunStatus = Literal["running", "completed", "interrupted", "failed"]
RUN_STATUSES: tuple[str, ...] = ("running", "completed", "interrupted", "failed")

_SECRET_WORDS = ("api_key", "apikey", "password", "secret", "token", "authorization")


class RunInfo(BaseModel):
    """One run's identity, configuration and provenance (never its secrets).

    ``suite`` and ``target`` are configuration dictionaries with secret-looking values
    removed; ``target_hash`` is the content hash of ``target``; ``dataset_version`` is the
    version of the cases as run (after any selection). ``summary`` holds headline figures
    for listings once the run has ended.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    id: str
    started_at: datetime
    ended_at: datetime | None = None
    status: RunStatus = "running"
    suite_path: str | None = None
    suite: dict[str, Any] = Field(default_factory=dict)
    dataset_name: str
    dataset_version: str
    target: dict[str, Any] = Field(default_factory=dict)
    target_hash: str = ""
    graders: list[dict[str, str]] = Field(default_factory=list)
    trials: int = Field(default=1, ge=1)
    trial_policy: str = "per-trial"
    assay_version: str
    git_commit: str | None = None
    packages: dict[str, str] = Field(default_factory=dict)
    metadata: dict[str, Any] = Field(default_factory=dict)
    summary: dict[str, Any] | None = None

    @property
    def suite_name(self) -> str | None:
        """The suite this run belongs to: its ``name:`` when the suite file gave one, else
        the suite file's stem; None for a run not started from a suite file."""
        named = self.suite.get("name")
        if isinstance(named, str) and named.strip():
            return named.strip()
        return PurePath(self.suite_path).stem if self.suite_path else None

    @property
    def name(self) -> str | None:
        """The run's name (``assay run --name``), which finds it wherever an id does."""
        found = self.metadata.get(NAME_KEY)
        return found if isinstance(found, str) else None

    @property
    def tags(self) -> list[str]:
        """The names this run is tagged with (``assay runs tag``), e.g. ``baseline``."""
        found = self.metadata.get(TAGS_KEY, [])
        return [str(t) for t in found] if isinstance(found, list) else []


NAME_KEY = "assay.name"
"""The key of ``RunInfo.metadata`` holding the run's name (``assay run --name``)."""

TAGS_KEY = "assay.tags"
"""The key of ``RunInfo.metadata`` holding the run's tags (not configuration; named so no
suite's own ``metadata:`` key can collide with it)."""


def _is_secret(key: str) -> bool:
    lowered = key.lower().replace("-", "_")
    if lowered.endswith("_env"):
        return False  # the *name* of an environment variable is not a secret
    return any(word in lowered for word in _SECRET_WORDS)


def redact(value: Any) -> Any:
    """``value`` with every secret-looking mapping value replaced by ``"<redacted>"``."""
    if isinstance(value, dict):
        return {k: ("<redacted>" if _is_secret(str(k)) else redact(v)) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [redact(v) for v in value]
    return value
