"""A third-party plugin as a user would write it: one target type and one grader type in one
file, each made available to suites by one entry-point line (see tests/unit/test_plugins.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from assay.cases import Case
from assay.grading import GraderType, Judgment
from assay.outcomes import Abstain, Answer, Record
from assay.targets import BaseTarget, Reply, TargetContext, TargetType


class EchoSettings(BaseModel):
    """``target: {type: echo, wrong: [E2]}``: answers every case right except those listed."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    type: str = "echo"
    wrong: list[str] = []


class EchoTarget(BaseTarget):
    """Replies with each case's expected fact (or abstains when it expects an abstention)."""

    name = "echo"

    def __init__(self, settings: EchoSettings) -> None:
        self.settings = settings
        self.started = False

    def config(self) -> dict[str, Any]:
        return self.settings.model_dump()

    async def start(self) -> None:
        self.started = True

    async def run(self, case: Case, ctx: TargetContext) -> Reply:
        if not self.started:
            raise RuntimeError("run before start")
        if case.id in self.settings.wrong:
            return Reply(Answer(fact="wrong", text="a wrong answer"))
        if case.expected_fact is None:
            return Reply(Abstain(reason="not in the sources"))
        return Reply(Answer(fact=case.expected_fact, text=case.expected_fact))


def build_echo(settings: EchoSettings, base_dir: Path | None) -> EchoTarget:
    return EchoTarget(settings)


ECHO = TargetType(EchoSettings, build_echo)


class FactLengthSettings(BaseModel):
    """``grader: {type: fact_length, max_chars: 40}``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    max_chars: int


class FactLengthGrader:
    """Passes an answer whose fact is at most ``max_chars`` long (abstentions fail)."""

    name = "fact_length"
    version = "1"

    def __init__(self, max_chars: int) -> None:
        self.max_chars = max_chars

    def grade(self, case: Case, record: Record) -> Judgment:
        fact = getattr(record.outcome, "fact", None)
        ok = fact is not None and len(fact) <= self.max_chars
        reason = f"fact of {len(fact)} chars" if fact is not None else "no fact"
        return Judgment(
            case_id=case.id,
            trial=record.trial,
            status="passed" if ok else "failed",
            reason=reason,
            grader=self.name,
            grader_version=self.version,
        )


def build_fact_length(settings: FactLengthSettings, base_dir: Path) -> FactLengthGrader:
    return FactLengthGrader(settings.max_chars)


FACT_LENGTH = GraderType(FactLengthSettings, build_fact_length)
