"""Pairing two runs by (case id, trial) over identical case definitions and sources."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import chain
from typing import Any

from assay.cases import FIELD_KINDS, KINDS
from assay.compare._model import Excluded
from assay.errors import AssayInputError
from assay.report import CaseRow, Report, UsageSummary


class ComparisonRefusedError(AssayInputError):
    """The two runs are not over the same case definitions; ``differences`` says how."""

    def __init__(
        self,
        differences: Sequence[str],
        baseline: str,
        candidate: str,
        trials: tuple[int, int] | None = None,
        why: str = "were not run on the same case definitions and source snapshots:",
        remedy: str = "Re-run both on one dataset version, or pass --matching-only to compare "
        "only the cases that match (the rest are listed as excluded).",
    ) -> None:
        self.differences = tuple(differences)
        shown = list(self.differences[:20])
        if len(self.differences) > 20:
            shown.append(f"... and {len(self.differences) - 20} more")
        if trials is not None:
            head = (
                f"cannot compare {baseline} with {candidate}: the baseline ran {trials[0]} "
                f"trial{'s' if trials[0] != 1 else ''} per case and the candidate "
                f"{trials[1]}:"
            )
            advice = (
                "Re-run both with the same number of trials, or pass --matching-only to "
                "compare only the trials both ran (the rest are listed as excluded)."
            )
        else:
            head = f"cannot compare {baseline} with {candidate}: they {why}"
            advice = remedy
        lines = [head, *(f"  {d}" for d in shown), advice]
        super().__init__("\n".join(lines))


@dataclass(frozen=True)
class RunSide:
    """One run as compare needs it: its identity, per case-trial rows and configuration."""

    ref: str
    dataset_name: str
    dataset_version: str
    rows: tuple[CaseRow, ...]
    run_id: str | None = None
    config: Mapping[str, Any] = field(default_factory=dict)
    usage: UsageSummary | None = None
    definitions: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    """Each case's full definition (its canonical record) when known, e.g. from the store;
    lets a refusal name every changed field, not only those a report shows."""

    @classmethod
    def from_report(
        cls, report: Report, ref: str, config: Mapping[str, Any] | None = None
    ) -> RunSide:
        """The side for a report: its rows, dataset and configuration (``config`` when
        given, e.g. from the run store, else what the report's metadata recorded)."""
        recorded: dict[str, Any] = {
            "assay_version": report.assay_version,
            "graders": {g.name: g.version for g in report.graders},
        }
        recorded.update(report.metadata if config is None else config)
        return cls(
            ref=ref,
            dataset_name=report.dataset.name,
            dataset_version=report.dataset.version,
            rows=tuple(report.cases),
            run_id=report.run_id,
            config=recorded,
            usage=report.usage,
        )

    @property
    def trials(self) -> int:
        """The highest trial of a real case (synthetic rows count for nothing), at least 1;
        of any case when there is no real one (a run of synthetic cases alone)."""
        every = max((r.trial for r in self.rows), default=1)
        return max((r.trial for r in self.rows if not r.synthetic), default=every)


@dataclass(frozen=True)
class Pairing:
    """Matched (baseline, candidate) rows and everything left out."""

    pairs: tuple[tuple[CaseRow, CaseRow], ...]
    excluded: tuple[Excluded, ...]


# The parts of a case definition a report row shows; the rest needs the full definitions.
_SHOWN_FIELDS = ("slice", "question", "expected_behavior", "expected_fact", "rationale")


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def changed_fields(before: Mapping[str, Any], after: Mapping[str, Any]) -> str:
    """Which fields differ between two definitions of a case, with both values when short,
    then the kinds of change as ``assay diff-dataset`` names them:
    "expected_fact 'a' -> 'b'; rationale changed [label, wording]"."""
    parts = []
    names = sorted(n for n in before.keys() | after.keys() if before.get(n) != after.get(n))
    found = {FIELD_KINDS.get(n, "other") for n in names}
    kinds = [k for k in KINDS if k in found]
    for name in names:
        old, new = before.get(name), after.get(name)
        if old == new:
            continue
        if isinstance(old, (str, int, float, bool, type(None))) and isinstance(
            new, (str, int, float, bool, type(None))
        ):
            parts.append(f"{name} {_shown(old)} -> {_shown(new)}")
        else:
            parts.append(f"{name} changed")
    return "; ".join(parts) + (f" [{', '.join(kinds)}]" if kinds else "")


def _definition_change(
    cid: str, b: CaseRow, c: CaseRow, baseline: RunSide, candidate: RunSide
) -> str:
    before, after = baseline.definitions.get(cid), candidate.definitions.get(cid)
    if before is not None and after is not None:
        fields = changed_fields(before, after)
    else:
        fields = changed_fields(
            {n: getattr(b, n) for n in _SHOWN_FIELDS}, {n: getattr(c, n) for n in _SHOWN_FIELDS}
        )
        if not fields:
            return (
                "case definition differs in fields the report rows do not show "
                "(compare the stored runs by id to name them)"
            )
    return f"case definition differs: {fields}"


def _case_differences(baseline: RunSide, candidate: RunSide) -> dict[str, str]:
    """Case id -> why the case cannot be paired (only in one run, definition, source)."""
    base, cand = _first_rows(baseline.rows), _first_rows(candidate.rows)
    why: dict[str, str] = {}
    for cid in base.keys() - cand.keys():
        why[cid] = "only in the baseline"
    for cid in cand.keys() - base.keys():
        why[cid] = "only in the candidate"
    for cid in base.keys() & cand.keys():
        b, c = base[cid], cand[cid]
        if b.source_revision != c.source_revision:
            why[cid] = (
                f"source revision differs ({b.source_revision or 'none'} vs "
                f"{c.source_revision or 'none'})"
            )
        elif b.case_hash is None or c.case_hash is None:
            why[cid] = "case definition unknown (report written without case hashes)"
        elif b.case_hash != c.case_hash:
            why[cid] = _definition_change(cid, b, c, baseline, candidate)
    return why


def _first_rows(rows: Sequence[CaseRow]) -> dict[str, CaseRow]:
    found: dict[str, CaseRow] = {}
    for row in rows:
        found.setdefault(row.id, row)
    return found


SYNTHETIC_EXCLUDED = "synthetic case: never counted with real cases"
"""Why a synthetic case is left out of every comparison (``Excluded.reason``)."""


def synthetic_ids(baseline: Sequence[CaseRow], candidate: Sequence[CaseRow]) -> set[str]:
    """The cases synthetic in every run that has them: left out before anything is paired.
    A case synthetic in one run and real in the other is a real case whose definition
    changed, and is checked as one."""
    marked: dict[str, bool] = {}
    for row in chain(baseline, candidate):
        marked[row.id] = marked.get(row.id, True) and row.synthetic
    return {cid for cid, synthetic in marked.items() if synthetic}


def _apart(side: RunSide, cases: set[str]) -> tuple[RunSide, RunSide]:
    """``side`` without the rows of ``cases``, and with those rows alone."""
    kept = tuple(r for r in side.rows if r.id not in cases)
    left = tuple(r for r in side.rows if r.id in cases)
    return replace(side, rows=kept), replace(side, rows=left)


def _differences(
    baseline: RunSide, candidate: RunSide, same_version: bool
) -> tuple[dict[str, str], dict[tuple[str, int], str]]:
    """Why cases cannot be paired (see ``_case_differences``; nothing when the dataset
    versions are equal), and the (case, trial) keys of the other cases run in only one."""
    why = {} if same_version else _case_differences(baseline, candidate)
    base_keys = {(r.id, r.trial) for r in baseline.rows}
    cand_keys = {(r.id, r.trial) for r in candidate.rows}
    trial_gaps = {
        key: "trial only in the baseline" if key in base_keys else "trial only in the candidate"
        for key in base_keys ^ cand_keys
        if key[0] not in why
    }
    return why, trial_gaps


def _synthetic_note(
    cid: str, why: Mapping[str, str], trial_gaps: Mapping[tuple[str, int], str]
) -> str:
    """``SYNTHETIC_EXCLUDED``, with how the case differs between the runs when it does."""
    noted = [why[cid]] if cid in why else []
    noted += [f"trial {t}: {reason}" for (c, t), reason in sorted(trial_gaps.items()) if c == cid]
    return f"{SYNTHETIC_EXCLUDED} ({'; '.join(noted)})" if noted else SYNTHETIC_EXCLUDED


def pair_runs(baseline: RunSide, candidate: RunSide, *, matching_only: bool = False) -> Pairing:
    """Pair rows by (case id, trial).

    Synthetic cases are left out first (never counted with real ones): a synthetic case
    only in one run, changed, or with trials only in one run is noted in its exclusion and
    never refuses. Identical dataset versions pair everything else. Otherwise cases are
    matched on id, content hash and source revision: without ``matching_only`` any
    difference raises ``ComparisonRefusedError`` naming it; with it, unmatched cases and
    trials are excluded with a reason.
    """
    apart = synthetic_ids(baseline.rows, candidate.rows)
    baseline, synthetic_b = _apart(baseline, apart)
    candidate, synthetic_c = _apart(candidate, apart)
    same_version = baseline.dataset_version == candidate.dataset_version
    why, trial_gaps = _differences(baseline, candidate, same_version)
    if (why or trial_gaps) and not matching_only:
        differences = []
        if not same_version:
            differences.append(
                f"dataset version {_short(baseline.dataset_version)} vs "
                f"{_short(candidate.dataset_version)}"
            )
        differences += [f"{cid}: {reason}" for cid, reason in sorted(why.items())]
        differences += [f"{cid} trial {t}: {r}" for (cid, t), r in sorted(trial_gaps.items())]
        trials = (baseline.trials, candidate.trials)
        only_trials = not why and same_version and trials[0] != trials[1]
        raise ComparisonRefusedError(
            differences, baseline.ref, candidate.ref, trials if only_trials else None
        )
    excluded = [Excluded(id=cid, reason=reason) for cid, reason in sorted(why.items())]
    excluded += [
        Excluded(id=cid, trial=t, reason=reason) for (cid, t), reason in sorted(trial_gaps.items())
    ]
    base_rows = {(r.id, r.trial): r for r in baseline.rows}
    cand_rows = {(r.id, r.trial): r for r in candidate.rows}
    pairs: list[tuple[CaseRow, CaseRow]] = []
    for key, b in base_rows.items():
        c = cand_rows.get(key)
        if c is None or key[0] in why:
            continue
        if b.synthetic or c.synthetic:  # marked in one run only, its definition the same
            apart.add(b.id)
            continue
        pairs.append((b, c))
    synthetic_why, synthetic_gaps = _differences(synthetic_b, synthetic_c, same_version)
    excluded += [
        Excluded(id=cid, reason=_synthetic_note(cid, synthetic_why, synthetic_gaps))
        for cid in sorted(apart)
    ]
    return Pairing(pairs=tuple(pairs), excluded=tuple(excluded))


def _short(version: str) -> str:
    return version[:19] if version.startswith("sha256:") else version
