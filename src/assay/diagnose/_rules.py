"""The diagnosis rules: a failed case-trial's spans to the stage that caused the failure.

Rules are tried in order; the first that applies names the stage (docs/diagnose.md):

1. ``passed``: nothing to diagnose. ``missing``: no outcome, so no stage to blame.
2. ``error-span``: the outcome is an error → the stage whose span failed.
3. ``access-boundary``: the answer cites a section of another tenant.
4. ``tool-state``: a tool call failed or was refused while the answer claims otherwise.
5. ``evidence-chain``: follow the case's expected evidence (``metadata.evidence``):
   never among the retrieval candidates, or a candidate that was not selected → retrieval;
   selected but missing from the context → context assembly; in the context, yet the
   answer is wrong → generation.
6. ``unsupported-answer``: the case expects an abstention and the answer rests on no
   section in the context → generation.

A record that carries an agent's trajectory is first put to the agent rules
(``assay.diagnose._agent``), which name the step behind the failure; the span rules
follow when none applies.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from assay.cases import Case
from assay.diagnose._agent import agent_verdict
from assay.diagnose._evidence import Verdict, evidence_chain, got, unsupported_answer
from assay.diagnose._finding import Finding, Stage
from assay.diagnose._spans import Stages, stage_of, strings, text
from assay.grading import Judgment, unjudged_status
from assay.outcomes import Answer, Record, Span, TrajectoryError, span_names, trajectory_of

Rule = Callable[[Case, Record, Stages], Verdict | None]
_STAGE_OF_SPAN: dict[str, Stage] = {
    "retrieval": "retrieval",
    "context_assembly": "context_assembly",
    "generation": "generation",
    "tool_execution": "tool_handling",
}


def _error_span(case: Case, record: Record, stages: Stages) -> Verdict | None:
    if record.outcome.kind != "error":
        return None
    failed = stages.failed()
    if not failed:
        return None
    span = failed[0]
    message = span.status_message or text(span, "exception.message") or "no message"
    evidence = [f"outcome: {got(record)}", f"span {span.name!r} failed: {message}"]
    section = text(span, span_names.SECTION_ID)
    if section:
        evidence.append(f"while fetching section {section}")
    return Verdict(
        _STAGE_OF_SPAN.get(stage_of(span) or ""),
        tuple(evidence),
        f"Reproduce the failing {span.name!r} call and fix what it depends on (the message "
        "above names it); then rerun the case.",
        "error-span",
    )


def _tenant_of(section_id: str) -> str | None:
    return section_id.split("/", 1)[0] if "/" in section_id else None


def _access_boundary(case: Case, record: Record, stages: Stages) -> Verdict | None:
    if not isinstance(record.outcome, Answer):
        return None
    retrieval = stages.first("retrieval")
    tenant = text(retrieval, span_names.TENANT_ID) or case.metadata.get("tenant")
    if not tenant:
        return None
    cited = list(record.outcome.citations)
    for span in stages.all("generation"):
        cited += [c for c in strings(span, span_names.ANSWER_CITATIONS) if c not in cited]
    foreign = [c for c in cited if _tenant_of(c) not in (None, tenant)]
    if not foreign:
        return None
    evidence = [
        f"outcome: {got(record)}",
        f"the answer cites {', '.join(foreign)}, of tenant {_tenant_of(foreign[0])}; "
        f"the request was for tenant {tenant}",
    ]
    if text(retrieval, span_names.RETRIEVAL_TENANT_FILTER) in ("False", "false"):
        evidence.append("retrieval searched every tenant's corpus (tenant filter off)")
    return Verdict(
        "access_boundary",
        tuple(evidence),
        "Restrict retrieval to the requesting tenant's corpus before ranking, and reject "
        "context sections of any other tenant.",
        "access-boundary",
    )


def _tool_state(case: Case, record: Record, stages: Stages) -> Verdict | None:
    if not isinstance(record.outcome, Answer):
        return None
    for span in stages.all("tool_execution"):
        failed = "error" if span.status == "error" else "ok"
        status = text(span, span_names.TOOL_STATUS) or failed
        authoritative = text(span, span_names.TOOL_RESULT_FACT)
        if status == "ok" or authoritative == record.outcome.fact:
            continue
        tool = text(span, span_names.GEN_AI_TOOL_NAME) or span.name
        detail = f": {span.status_message}" if span.status_message else ""
        args = text(span, span_names.TOOL_ARGS_HASH) or "unrecorded"
        evidence = [f"tool {tool} (arguments {args}) ended {status}{detail}"]
        if authoritative:
            evidence.append(
                f"its authoritative state is {authoritative}; the answer says {record.outcome.fact}"
            )
        else:
            evidence.append(f"the answer is {got(record)} although the call did not succeed")
        return Verdict(
            "tool_handling",
            tuple(evidence),
            f"Make the reply report the {tool} result (its status and state), never the "
            "request: a failed or refused call must be reported as such.",
            "tool-state",
        )
    return None


def _agent(case: Case, record: Record) -> Verdict | None:
    """The agent rules' verdict when the record carries a trajectory (``_agent``)."""
    try:
        trajectory = trajectory_of(record)
    except TrajectoryError as err:
        return Verdict(
            None,
            (f"outcome: {got(record)}", f"the record's trajectory cannot be read: {err}"),
            "Rerun the case: its recorded trajectory was changed or written by a faulty target.",
            "bad-trajectory",
        )
    return agent_verdict(case, record, trajectory) if trajectory is not None else None


RULES: tuple[Rule, ...] = (
    _error_span,
    _access_boundary,
    _tool_state,
    evidence_chain,
    unsupported_answer,
)


def diagnose(
    case: Case, record: Record | None, judgment: Judgment | None, spans: Sequence[Span]
) -> Finding:
    """The finding for one case-trial from its record, judgment and spans (pure)."""
    trial = judgment.trial if judgment else record.trial if record else 1
    status = judgment.status if judgment else unjudged_status(record)
    verdict = _verdict(case, record, judgment, status, spans)
    return Finding(
        case=case.id,
        trial=trial,
        status=status,
        stage=verdict.stage,
        evidence=verdict.evidence,
        next_step=verdict.next_step,
        rule=verdict.rule,
        step=verdict.step,
    )


def _verdict(
    case: Case, record: Record | None, judgment: Judgment | None, status: str, spans: Sequence[Span]
) -> Verdict:
    if status == "passed":
        reason = judgment.reason if judgment else "passed"
        return Verdict(None, (f"passed: {reason}",), "Nothing to diagnose.", "passed")
    if record is None:
        return Verdict(
            None,
            ("no outcome was recorded for this case-trial",),
            "Resume the run to record it, and find out why it was lost.",
            "missing",
        )
    acted = _agent(case, record)
    if acted is not None:
        return acted
    if not spans:
        return Verdict(
            None,
            (f"outcome: {got(record)}", "no spans were recorded for this case-trial"),
            "Run with tracing on, and have the target record a span per stage (docs/tracing.md).",
            "no-spans",
        )
    stages = Stages.of(spans)
    for rule in RULES:
        verdict = rule(case, record, stages)
        if verdict is not None:
            return verdict
    reason = judgment.reason if judgment else f"outcome: {got(record)}"
    return Verdict(
        None,
        (reason, "no rule matched the recorded spans"),
        "Read the trace (assay trace RUN CASE); list the sections that support the expected "
        "fact under the case's metadata.evidence so diagnose can follow them.",
        "undetermined",
    )
