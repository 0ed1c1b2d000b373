"""The ``scripted`` target type as suites name it: its ``results`` file read as recorded
outcomes, replayed case by case."""

from __future__ import annotations

from pathlib import Path

from assay.load._files import load_results
from assay.outcomes import Outcome
from assay.targets import TargetType
from assay.targets.scripted import ScriptedSettings, ScriptedTarget


def build_scripted(settings: ScriptedSettings, base_dir: Path | None) -> ScriptedTarget:
    """The scripted target for suite settings, its ``results`` (relative to ``base_dir``)
    read here."""
    if settings.results is None:
        return ScriptedTarget.from_settings(settings, base_dir)
    path = Path(settings.results)
    if base_dir is not None and not path.is_absolute():
        path = base_dir / path
    by_case: dict[str, dict[int, Outcome]] = {}
    for record in load_results(path).records:
        by_case.setdefault(record.case_id, {})[record.trial] = record.outcome
    recorded = {case_id: [t[n] for n in sorted(t)] for case_id, t in by_case.items()}
    return ScriptedTarget.from_settings(settings, base_dir, recorded)


SCRIPTED_TARGET = TargetType(ScriptedSettings, build_scripted)
