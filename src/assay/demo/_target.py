"""The demo assistant as a ``Target``: selectable in a suite as ``{type: demo, config: v1}``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from opentelemetry.trace import NoOpTracer
from pydantic import BaseModel, ConfigDict

from assay.cases import Case
from assay.demo._assistant import ask
from assay.demo._config import DemoConfig, configuration
from assay.targets._base import Reply, TargetContext

DEFAULT_TENANT = "acme"


class DemoSettings(BaseModel):
    """Suite settings of a ``demo`` target: which configuration to run."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    type: str = "demo"
    config: str = "v1"


class DemoTarget:
    """The fictional policy assistant under one named configuration.

    The case's tenant is ``metadata.tenant`` (default ``acme``).
    """

    name = "demo"

    def __init__(self, config: str | DemoConfig = "v1") -> None:
        self.settings = configuration(config) if isinstance(config, str) else config

    @classmethod
    def from_settings(cls, settings: DemoSettings, base_dir: Path | None = None) -> DemoTarget:
        """The target a suite's ``{type: demo, config: NAME}`` describes."""
        return cls(settings.config)

    def config(self) -> dict[str, Any]:
        return {"type": "demo", "config": self.settings.name, **self.settings.model_dump()}

    async def run(self, case: Case, ctx: TargetContext) -> Reply:
        tracer = ctx.tracer if ctx.tracer is not None else NoOpTracer()
        tenant = str(case.metadata.get("tenant", DEFAULT_TENANT))
        result = await ask(case.prompt, tenant, self.settings, tracer)
        return Reply(
            result.outcome,
            usage=result.usage,
            extra={
                "demo_config": self.settings.name,
                "prompt_version": self.settings.prompt_version,
            },
        )
