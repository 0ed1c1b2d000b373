"""The demo assistant as a ``Target``: selectable in a suite as ``{type: demo, config: v1}``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from opentelemetry.trace import NoOpTracer
from pydantic import BaseModel, ConfigDict

from assay.cases import Case
from assay.demo._assistant import RemoteModel, ask
from assay.demo._config import DemoConfig, configuration
from assay.targets import BaseTarget, Reply, TargetContext, TargetType
from assay.targets.openai import OpenAISettings, OpenAITarget

DEFAULT_TENANT = "acme"


class DemoSettings(BaseModel):
    """Suite settings of a ``demo`` target: which configuration to run."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    type: str = "demo"
    config: str = "v1"
    openai: OpenAISettings | None = None


class DemoTarget(BaseTarget):
    """The fictional policy assistant under one named configuration.

    The case's tenant is ``metadata.tenant`` (default ``acme``).
    """

    name = "demo"

    def __init__(
        self, config: str | DemoConfig = "v1", openai: OpenAISettings | None = None
    ) -> None:
        self.settings = configuration(config) if isinstance(config, str) else config
        self.llm = OpenAITarget(openai) if openai is not None else None

    @classmethod
    def from_settings(cls, settings: DemoSettings, base_dir: Path | None = None) -> DemoTarget:
        """The target a suite's ``{type: demo, config: NAME}`` describes."""
        return cls(settings.config, settings.openai)

    async def start(self) -> None:
        if self.llm is not None:
            await self.llm.start()

    async def aclose(self) -> None:
        if self.llm is not None:
            await self.llm.aclose()

    def config(self) -> dict[str, Any]:
        found = {"type": "demo", "config": self.settings.name, **self.settings.model_dump()}
        if self.llm is not None:
            found["openai"] = self.llm.config()
        return found

    async def run(self, case: Case, ctx: TargetContext) -> Reply:
        tracer = ctx.tracer if ctx.tracer is not None else NoOpTracer()
        tenant = str(case.metadata.get("tenant", DEFAULT_TENANT))
        model = RemoteModel(self.llm, ctx.traceparent) if self.llm is not None else None
        result = await ask(case.prompt, tenant, self.settings, tracer, model)
        return Reply(
            result.outcome,
            usage=result.usage,
            extra={
                "demo_config": self.settings.name,
                "prompt_version": self.settings.prompt_version,
            },
        )


DEMO_TARGET = TargetType(DemoSettings, DemoTarget.from_settings)
