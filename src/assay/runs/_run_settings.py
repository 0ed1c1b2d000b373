"""What a stored run says about how it ran and how to judge and count it now: the grader
its records are judged with (the recorded one rebuilt, or one standing for it), the trial
policy its suite stated, the configuration a comparison names, and the metadata its
reports carry."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from assay.cases import Case
from assay.grading import Grader, Judgment, StructuredGrader
from assay.load import grader_from_provenance
from assay.metrics import TrialPolicy
from assay.outcomes import Record
from assay.store import NAME_KEY, TAGS_KEY, RunInfo


class StoredGrader:
    """Returns the judgment stored for a case-trial when ``fallback`` (the grader that
    would judge it now) made it, same name and version; grades afresh with ``fallback``
    when none is stored or the stored one came from another grader or version, so a
    record is graded once per run and a stale judgment is never reused."""

    def __init__(
        self, stored: Sequence[Judgment] | dict[tuple[str, int], Judgment], fallback: Grader
    ) -> None:
        """``stored``: the run's judgments, or those of ``fallback``'s name and version
        already, by (case id, trial)."""
        self.name = fallback.name
        self.version = fallback.version
        self.fallback = fallback
        self.stored = (
            stored
            if isinstance(stored, dict)
            else {
                (j.case_id, j.trial): j
                for j in stored
                if j.grader == self.name and j.grader_version == self.version
            }
        )

    def grade(self, case: Case, record: Record) -> Judgment:
        found = self.stored.get((case.id, record.trial))
        return found if found is not None else self.fallback.grade(case, record)


class UnavailableGrader:
    """Stands for a recorded grader this installation cannot rebuild (a plugin not
    installed, another tool's scorer): its stored judgments are reused, and a case-trial
    it never judged is ``ungraded`` with the reason, never graded by another grader."""

    def __init__(self, name: str, version: str) -> None:
        self.name = name
        self.version = version

    def grade(self, case: Case, record: Record) -> Judgment:
        return Judgment(
            case_id=case.id,
            trial=record.trial,
            status="ungraded",
            reason=f"no stored judgment, and grader {self.name} v{self.version} is not "
            "available here to grade it",
            grader=self.name,
            grader_version=self.version,
        )


def run_grader(info: RunInfo) -> Grader:
    """The grader a stored run's records are judged with now: the recorded one rebuilt,
    an ``UnavailableGrader`` naming it when it cannot be, the structured grader when the
    run recorded none."""
    for entry in info.graders:
        grader = grader_from_provenance(entry, _suite_dir(info))
        if grader is not None:
            return grader
    for entry in info.graders:
        if entry.get("name"):
            return UnavailableGrader(entry["name"], str(entry.get("version", "?")))
    return StructuredGrader()


def _suite_dir(info: RunInfo) -> Path | None:
    return Path(info.suite_path).parent if info.suite_path else None


def run_metadata(info: RunInfo) -> dict[str, Any]:
    """What a report says about the run it came from (never a secret: configs are redacted)."""
    metadata = {k: v for k, v in info.metadata.items() if k != TAGS_KEY}  # tags: not config
    target = {
        k: v
        for k, v in info.target.items()
        if k in ("type", "model", "url", "callable", "base_url")
    }
    return {
        "run": {
            "status": info.status,
            "started_at": info.started_at.isoformat(),
            "ended_at": info.ended_at.isoformat() if info.ended_at else None,
            "suite": info.suite_path,
            "suite_name": info.suite_name,
            "target": target,
            "target_hash": info.target_hash,
            "git_commit": info.git_commit,
            **({"metadata": metadata} if metadata else {}),
        }
    }


def trial_policy(info: RunInfo) -> TrialPolicy | None:
    """The policy the run's suite stated for combining trials (None: the default, mean)."""
    if info.trial_policy in ("", "per-trial"):
        return None
    return TrialPolicy.parse(info.trial_policy, info.trials).resolved(info.trials)


def run_config(info: RunInfo) -> dict[str, Any]:
    """The configuration a stored run ran with, as a comparison names its keys
    (``target.model``, ``graders.structured``, then the run's metadata)."""
    config: dict[str, Any] = {
        "assay_version": info.assay_version,
        "graders": {g["name"]: g["version"] for g in info.graders},
        "target": info.target,
        "target_hash": info.target_hash,
        "trial_policy": info.trial_policy,
        "git_commit": info.git_commit,
    }
    # a run's name and tags label it; they are not how it ran
    config.update({k: v for k, v in info.metadata.items() if k not in (NAME_KEY, TAGS_KEY)})
    return config
