"""What ``assay diagnose`` finds, as documents: one case-trial's stage and evidence, or
every not-passed case-trial grouped by the stage implicated."""

from __future__ import annotations

import json
from typing import Any

from assay.diagnose import Diagnosis, Finding, group_by_stage
from assay.render.document import Block, BulletList, Document, Gap, Paragraph
from assay.render.text_writer import write_text


def _stage(finding: Finding) -> str:
    if finding.stage is not None:
        return finding.stage
    # A passed or unrecorded case-trial implicates no stage; otherwise the spans could not tell.
    return "none" if finding.rule in ("passed", "missing") else "undetermined"


def _at_step(finding: Finding) -> str:
    return f", step {finding.step}" if finding.step is not None else ""


def finding_document(finding: Finding) -> Document:
    """Status, stage (and the rule that named it), evidence, next step."""
    return Document(
        (
            Paragraph.of(
                f"{finding.case} (trial {finding.trial}): {finding.status}", layout="whole"
            ),
            Paragraph.of(
                f"stage: {_stage(finding)}{_at_step(finding)}  (rule: {finding.rule})",
                layout="whole",
            ),
            BulletList(tuple(finding.evidence), "evidence:", layout="whole", marker="  - "),
            Paragraph.of(f"next step: {finding.next_step}", layout="whole"),
        )
    )


def _headline(finding: Finding) -> str:
    # The observation that names the stage: the first after the outcome line, when any.
    return finding.evidence[1] if len(finding.evidence) > 1 else finding.evidence[0]


def groups_document(run_id: str, findings: list[Finding]) -> Document:
    """Every not-passed case-trial, grouped by implicated stage, one line each."""
    groups = group_by_stage(findings)
    failed = sum(len(g) for g in groups.values())
    blocks: list[Block] = [
        Paragraph.of(
            f"run {run_id}: {failed} of {len(findings)} case-trials not passed", layout="whole"
        )
    ]
    for stage, members in groups.items():
        lines = tuple(
            f"{f.case if f.trial == 1 else f'{f.case}#{f.trial}':<8} {f.status:<8} {_headline(f)}"
            for f in members
        )
        title = f"{stage or 'undetermined'} ({len(members)})"
        blocks += [Gap(), BulletList(lines, title, layout="whole", marker="  ")]
    if failed:
        blocks += [
            Gap(),
            Paragraph.of(
                f"assay diagnose {run_id} CASE shows the evidence and the next step.",
                layout="whole",
            ),
        ]
    return Document(tuple(blocks))


def render_finding(finding: Finding) -> str:
    """One finding as terminal text."""
    return write_text(finding_document(finding))


def render_groups(run_id: str, findings: list[Finding]) -> str:
    """Every not-passed case-trial, grouped by implicated stage, as terminal text."""
    return write_text(groups_document(run_id, findings))


def _groups_json(diagnosis: Diagnosis) -> dict[str, Any]:
    findings = list(diagnosis.findings)
    groups = group_by_stage(findings)
    return {
        "run": diagnosis.run_id,
        "case_trials": len(findings),
        "not_passed": sum(len(g) for g in groups.values()),
        "groups": [
            {"stage": stage, "cases": [{**f.contract(), "trial": f.trial} for f in members]}
            for stage, members in groups.items()
        ],
    }


def render_diagnosis(found: Finding | Diagnosis, fmt: str) -> str:
    """One finding, or a run's findings grouped by stage, as text or JSON."""
    if isinstance(found, Diagnosis):
        if fmt == "json":
            return json.dumps(_groups_json(found), indent=2) + "\n"
        return render_groups(found.run_id, list(found.findings))
    if fmt == "json":
        return json.dumps(found.contract(), indent=2) + "\n"
    return render_finding(found)


__all__ = [
    "finding_document",
    "groups_document",
    "render_diagnosis",
    "render_finding",
    "render_groups",
]
