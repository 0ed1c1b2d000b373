"""The ``scripted`` target: canned outcomes by case id, the test double of every test.

Each case id maps to one outcome or a list of outcomes, one per trial (the last repeats).
An entry is a flat outcome (``{kind: answer, fact: x}``) plus optional behaviour:

- ``delay_s``: wait this long before replying (a slow system);
- ``fail``: an error class (``timeout``, ``http_429``, ``http_5xx``, …) to reply with, or
  ``raise`` to raise an exception; ``fail_attempts: N`` fails only the first N attempts,
  so retries can succeed; ``retry_after_s`` comes with the failure.

Cases with no entry get ``default`` when one is given, else an ``error`` outcome of class
``not_scripted``. ``results`` names a results file (JSONL) to take outcomes from.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from assay.cases import Case
from assay.outcomes import Outcome
from assay.targets._base import BaseTarget, Reply, TargetContext
from assay.targets._replies import error_reply, outcome_from_mapping

Entry = Mapping[str, Any] | Outcome


class ScriptedSettings(BaseModel):
    """Suite settings of a ``scripted`` target."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    type: str = "scripted"
    outcomes: dict[str, dict[str, Any] | list[dict[str, Any]]] = {}
    results: str | None = None
    default: dict[str, Any] | None = None
    delay_s: float = 0.0


class _Step:
    """One scripted reply with its behaviour, parsed once."""

    def __init__(self, entry: Entry, delay_s: float) -> None:
        spec = dict(entry) if isinstance(entry, Mapping) else {}
        self.delay_s = float(spec.pop("delay_s", delay_s))
        self.fail: str | None = spec.pop("fail", None)
        self.fail_attempts: int | None = spec.pop("fail_attempts", None)
        self.retry_after_s: float | None = spec.pop("retry_after_s", None)
        # ``message`` belongs to the failure when ``fail`` is set, else to an error outcome.
        scripted = spec.pop("message", None) if self.fail is not None else None
        self.message: str = scripted or f"scripted {self.fail}"
        self.outcome: Outcome | None
        if isinstance(entry, Mapping):
            self.outcome = outcome_from_mapping(spec) if spec else None
        else:
            self.outcome = entry

    async def reply(self, attempt: int) -> Reply:
        if self.delay_s > 0:
            await asyncio.sleep(self.delay_s)
        failing = self.fail is not None and (
            self.fail_attempts is None or attempt <= self.fail_attempts
        )
        if failing:
            if self.fail == "raise":
                raise RuntimeError(self.message)
            return error_reply(str(self.fail), self.message, None, self.retry_after_s)
        if self.outcome is None:
            return error_reply("not_scripted", "the script has no outcome for this entry")
        return Reply(self.outcome)


class ScriptedTarget(BaseTarget):
    """Replies with the scripted outcome for each case id (and trial)."""

    name = "scripted"

    def __init__(
        self,
        outcomes: Mapping[str, Entry | Sequence[Entry]],
        *,
        default: Entry | None = None,
        delay_s: float = 0.0,
        settings: dict[str, Any] | None = None,
    ) -> None:
        self._steps: dict[str, list[_Step]] = {}
        for case_id, value in outcomes.items():
            entries: list[Entry] = list(value) if isinstance(value, list | tuple) else [value]  # type: ignore[list-item]
            self._steps[case_id] = [_Step(e, delay_s) for e in entries]
        self._default = _Step(default, delay_s) if default is not None else None
        self._settings = settings or {"type": "scripted", "cases": sorted(self._steps)}
        self.calls: list[tuple[str, int, int]] = []

    @classmethod
    def from_settings(
        cls,
        settings: ScriptedSettings,
        base_dir: Path | None,
        recorded: Mapping[str, Sequence[Outcome]] | None = None,
    ) -> ScriptedTarget:
        """The target for suite settings; ``recorded`` holds the outcomes read from the
        ``results`` file (``assay.load._scripted.SCRIPTED_TARGET`` reads it), which the settings'
        ``outcomes`` override case by case."""
        if settings.results is not None and recorded is None:
            raise ValueError("results: the recorded outcomes were not read")
        outcomes: dict[str, Any] = {k: list(v) for k, v in (recorded or {}).items()}
        outcomes.update(settings.outcomes)
        return cls(
            outcomes,
            default=settings.default,
            delay_s=settings.delay_s,
            settings=settings.model_dump(exclude_defaults=True) | {"type": "scripted"},
        )

    def config(self) -> dict[str, Any]:
        return dict(self._settings)

    async def run(self, case: Case, ctx: TargetContext) -> Reply:
        self.calls.append((case.id, ctx.trial, ctx.attempt))
        steps = self._steps.get(case.id)
        if steps:
            step = steps[min(ctx.trial, len(steps)) - 1]
        elif self._default is not None:
            step = self._default
        else:
            return error_reply("not_scripted", f"no scripted outcome for case {case.id}")
        return await step.reply(ctx.attempt)
