"""The built-in checks: seven of a recorded answer, here, and three of an agent's
trajectory (``path_matches``, ``state_matches``, ``claims_match_tools``, each in its own
module). Each is a pure function of a ``CheckInput``; its docstring says exactly when it
passes. Text is compared after ``normalize`` (case, whitespace and
punctuation ignored), and a required fact is met by the fact or any listed variation."""

from __future__ import annotations

from collections.abc import Iterable

from assay.grading.checks._claims import claims_match_tools
from assay.grading.checks._path import path_matches
from assay.grading.checks._state import state_matches
from assay.grading.checks._text import first_match
from assay.grading.checks._types import CheckInput, CheckResult
from assay.outcomes import Abstain, Answer, Error


def _quoted(items: Iterable[str]) -> str:
    return ", ".join(f"'{item}'" for item in items)


def _said(subject: CheckInput) -> str | None:
    """Every piece of text the outcome carries, or None when it carries none."""
    outcome = subject.outcome
    if isinstance(outcome, Answer):
        return outcome.text
    if isinstance(outcome, Abstain):
        parts = [p for p in (outcome.reason, outcome.text) if p]
        return " ".join(parts) if parts else ""
    return ""


def answer_not_empty(subject: CheckInput) -> CheckResult:
    """Passes when an answer's text has non-whitespace content, or when an abstention
    explains itself (a non-blank ``reason`` or ``text``). An error never passes."""
    outcome = subject.outcome
    if isinstance(outcome, Answer):
        if outcome.text is None:
            return CheckResult.fail("the answer has no text (only a fact key)")
        if outcome.text.strip():
            return CheckResult.ok("the answer has text")
        return CheckResult.fail("the answer text is blank")
    if isinstance(outcome, Abstain):
        if (_said(subject) or "").strip():
            return CheckResult.ok("the abstention explains itself")
        return CheckResult.fail("the abstention gives no explanation")
    return CheckResult.fail("no answer: the system returned an error")


def content_present(subject: CheckInput) -> CheckResult:
    """Passes when every required fact (the fact or one of its variations) appears in the
    answer text. A case that expects an abstention and lists no required facts passes; a
    case that expects an answer but lists none cannot be evaluated."""
    case, outcome = subject.case, subject.outcome
    if not case.required:
        if case.expected_behavior == "abstain":
            return CheckResult.ok("no required facts: the case expects an abstention")
        return CheckResult.cannot("the case lists no required facts")
    facts = [r.fact for r in case.required]
    if isinstance(outcome, Abstain):
        return CheckResult.fail(f"expected {_quoted(facts)} in the answer; the system abstained")
    if isinstance(outcome, Error):
        return CheckResult.fail(f"expected {_quoted(facts)} in the answer; got an error")
    if outcome.text is None:
        return CheckResult.cannot("the answer has no text (only a fact key) to search")
    absent = [r.fact for r in case.required if first_match(outcome.text, r.phrases) is None]
    if absent:
        return CheckResult.fail(f"expected {_quoted(absent)} in the answer; not found")
    return CheckResult.ok(f"found every required fact: {_quoted(facts)}")


def content_absent(subject: CheckInput) -> CheckResult:
    """Passes when no disallowed claim (the claim or one of its variations) appears in any
    text the outcome carries: an answer's text, an abstention's reason and text."""
    case = subject.case
    if not case.disallowed:
        return CheckResult.ok("the case lists no disallowed claims")
    said = _said(subject)
    if said is None:
        return CheckResult.cannot("the answer has no text (only a fact key) to search")
    made = []
    for claim in case.disallowed:
        phrase = first_match(said, claim.phrases)
        if phrase is not None:
            made.append(f"'{claim.claim}'" + (f" (as '{phrase}')" if phrase != claim.claim else ""))
    if made:
        return CheckResult.fail(f"disallowed claim {', '.join(made)} found in the answer")
    return CheckResult.ok(f"none of {_quoted(c.claim for c in case.disallowed)} appears")


def citation_valid(subject: CheckInput) -> CheckResult:
    """Passes when every cited section id exists in the case's source snapshot, and at
    least one is cited when the case has ``requires_citation``. With no citations and none
    required it passes without a snapshot; otherwise a missing snapshot means it cannot
    be evaluated. An abstention passes unless citations are required."""
    case, outcome = subject.case, subject.outcome
    cited = outcome.citations if isinstance(outcome, Answer) else ()
    if not cited:
        if not case.requires_citation:
            return CheckResult.ok("no citations given; none required")
        if isinstance(outcome, Answer):
            return CheckResult.fail("the case requires at least one citation; none given")
        return CheckResult.fail(f"the case requires a citation; got {outcome.kind}")
    if subject.snapshot is None:
        return CheckResult.cannot(subject.missing_snapshot)
    unknown = [c for c in cited if c not in subject.snapshot]
    revision = f" at revision '{case.source_revision}'" if case.source_revision else ""
    if unknown:
        return CheckResult.fail(f"cited {_quoted(unknown)} not in the source snapshot{revision}")
    return CheckResult.ok(f"every cited section exists{revision}: {_quoted(cited)}")


def citation_supports(subject: CheckInput) -> CheckResult:
    """Passes when each required fact (or one of its variations) appears in the text of a
    section the answer cites. A case that expects an abstention and lists no required facts
    passes; an answer that cites nothing fails; an answer case that lists no required facts,
    or cites sections without a source snapshot to read them in, cannot be evaluated."""
    case, outcome = subject.case, subject.outcome
    if not case.required:
        if case.expected_behavior == "abstain":
            return CheckResult.ok("no required facts to support: the case expects an abstention")
        return CheckResult.cannot("the case lists no required facts")
    if not isinstance(outcome, Answer):
        return CheckResult.fail(f"nothing cited: got {outcome.kind}")
    facts = _quoted(r.fact for r in case.required)
    if not outcome.citations:
        return CheckResult.fail(f"no cited section states {facts} (nothing cited)")
    if subject.snapshot is None:
        return CheckResult.cannot(subject.missing_snapshot)
    texts = [subject.snapshot[c] for c in outcome.citations if c in subject.snapshot]
    unsupported = [
        r.fact for r in case.required if not any(first_match(t, r.phrases) for t in texts)
    ]
    if unsupported:
        cited = _quoted(outcome.citations)
        return CheckResult.fail(f"no cited section states {_quoted(unsupported)} ({cited})")
    return CheckResult.ok("every required fact is stated in a cited section")


def abstention_correct(subject: CheckInput) -> CheckResult:
    """Passes when the outcome kind matches ``expected_behavior``: an answer for an answer
    case, an abstention for an abstain case. An error never passes."""
    expected, kind = subject.case.expected_behavior, subject.outcome.kind
    if kind == expected:
        return CheckResult.ok(f"{'answered' if kind == 'answer' else 'abstained'}, as expected")
    wanted = "an answer" if expected == "answer" else "an abstention"
    got = {"answer": "answered", "abstain": "abstained", "error": "got an error"}[kind]
    return CheckResult.fail(f"expected {wanted}; {got}")


def format_valid(subject: CheckInput) -> CheckResult:
    """Passes when the recorded outcome parsed into the structured form the target promised
    (an answer or an abstention). Fails for an error of class ``parse_error``; any other
    error is not a reply to parse, so it cannot be evaluated."""
    outcome = subject.outcome
    if isinstance(outcome, Answer):
        return CheckResult.ok("the reply parsed as an answer")
    if isinstance(outcome, Abstain):
        return CheckResult.ok("the reply parsed as an abstention")
    if outcome.error_class == "parse_error":
        detail = f": {outcome.message}" if outcome.message else ""
        return CheckResult.fail(f"the reply could not be parsed{detail}")
    return CheckResult.cannot(f"the system returned an error ({outcome.error_class or 'error'})")


BUILTIN_CHECKS = {
    "answer_not_empty": answer_not_empty,
    "content_present": content_present,
    "content_absent": content_absent,
    "citation_valid": citation_valid,
    "citation_supports": citation_supports,
    "abstention_correct": abstention_correct,
    "format_valid": format_valid,
    "path_matches": path_matches,
    "state_matches": state_matches,
    "claims_match_tools": claims_match_tools,
}
