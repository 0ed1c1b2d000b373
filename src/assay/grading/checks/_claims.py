"""The ``claims_match_tools`` check: the final answer must not claim that an operation
succeeded when the tool's last result for it failed or was refused.

What a tool did is read from the recorded trajectory; only whether the answer *claims*
success is read from its words. A claim is found by success-claim patterns, per tool:

- by default, from the tool's name: ``issue_refund`` is the verb ``issue`` (participle
  ``issued``) and the object ``refund``, and a claim is "(your|the) refund (has been |was
  |is )issued" (the object may carry up to two short phrases of its own, "your refund
  of $60.00 for order A4 was issued"), "refund issued", "I('ve| have) issued your
  refund", or "your refund is (complete|completed|done|confirmed|processed|successful)";
  a name of one word (``refund``) gives "(has been|was|I've) refunded" and
  "successfully refunded". A reading verb (``get``, ``lookup``, ``search``…) has no
  success to claim: no patterns;
- in place of those, the regular expressions a case lists under ``success_claims`` for
  the tool, or those given to ``claims_check`` for a check of one's own.

Patterns are matched without regard to case in the answer's text (an abstention's reason
and text) and in its structured ``fact`` read with ``_`` as spaces (``return_started``
claims "return started"). A match is not a claim when, in its clause (text between
``.!?;,`` or a line break, or after "but"/"however"), a negation or a condition comes
before or inside it: "not", "no", "never", "cannot", "n't", "unable", "failed",
"unsuccessful", "unfortunately", "if", "when", "once", "until", "will", "would", "could",
"should", "may", "might" ("once the service is back, your refund will be issued" claims
nothing).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence

from assay.cases import SuccessClaims
from assay.grading.checks._path import numbered_tools
from assay.grading.checks._types import Check, CheckInput, CheckResult
from assay.outcomes import Abstain, Answer, ToolStep

_PARTICIPLES = {
    "add": "added",
    "apply": "applied",
    "book": "booked",
    "cancel": "cancel(?:l)?ed",
    "file": "filed",
    "make": "made",
    "pay": "paid",
    "put": "put",
    "rebook": "rebooked",
    "reset": "reset",
    "run": "run",
    "send": "sent",
    "set": "set",
    "ship": "shipped",
    "submit": "submitted",
    "transfer": "transferred",
    "write": "written",
}
READING_VERBS = frozenset(
    {"check", "count", "describe", "fetch", "find", "get", "list", "look", "lookup"}
    | {"query", "read", "retrieve", "search", "show", "view"}
)
"""Verbs of tools that only read: they have no default success-claim pattern."""

_DETERMINER = r"(?:(?:your|the|a|an|this|that|my|our)\s+)?"
_BEEN = r"(?:has\s+(?:now\s+)?been|have\s+(?:now\s+)?been|was|were|is(?:\s+now)?|are|got)"
# What may qualify the operation's object before its verb: up to two phrases of one to
# three words each, opened by a preposition ("for order A4", "of $60.00").
_QUALIFIER = r"(?:\s+(?:for|of|on|to|from|with)(?:\s+[^\s!?;,]*[^\s.!?;,]){1,3}){0,2}"
_DONE = r"(?:successful|complete|completed|done|confirmed|processed)"
_CUES = re.compile(
    r"\b(?:not|no|never|cannot|unable|failed|fail|unsuccessful|unfortunately|if|when"
    r"|once|until|will|would|could|should|may|might)\b|n't\b",
    re.IGNORECASE,
)
_CLAUSE_END = re.compile(r"[.!?;,\n]|\bbut\b|\bhowever\b", re.IGNORECASE)


def _words(tool: str) -> list[str]:
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", tool)
    return [w for w in re.split(r"[^A-Za-z0-9]+", spaced.lower()) if w]


def participle(verb: str) -> str:
    """The past participle of ``verb`` as a regular expression (``issue`` -> ``issued``).

    >>> participle("issue"), participle("apply"), participle("send")
    ('issued', 'applied', 'sent')
    """
    if verb in _PARTICIPLES:
        return _PARTICIPLES[verb]
    if verb.endswith("e"):
        return verb + "d"
    if verb.endswith("y") and len(verb) > 1 and verb[-2] not in "aeiou":
        return verb[:-1] + "ied"
    return verb + "ed"


def default_patterns(tool: str) -> tuple[str, ...]:
    """The default success-claim patterns of ``tool`` (see the module); none for a tool
    whose name starts with a reading verb or has no word."""
    words = _words(tool)
    if not words or words[0] in READING_VERBS:
        return ()
    done = participle(words[0])
    if len(words) == 1:
        return (
            rf"\b(?:{_BEEN}|(?:i|we)(?:'ve|\s+have)?)\s+(?:successfully\s+)?{done}\b",
            rf"\bsuccessfully\s+{done}\b",
        )
    thing = "".join(rf"(?:{w}\s+)?" for w in words[1:-1]) + re.escape(words[-1])
    return (
        rf"\b{_DETERMINER}{thing}{_QUALIFIER}\s+{_BEEN}\s+(?:successfully\s+)?{done}\b",
        rf"\b{_DETERMINER}{thing}\s+{done}\b",
        rf"\b(?:i|we)(?:'ve|\s+have)?(?:\s+now|\s+just)?\s+(?:successfully\s+)?{done}\s+"
        rf"{_DETERMINER}{thing}\b",
        rf"\b{_DETERMINER}{thing}{_QUALIFIER}\s+{_BEEN}\s+{_DONE}\b",
    )


def claim_in(text: str, patterns: Sequence[str]) -> str | None:
    """The first phrase of ``text`` that claims success by one of ``patterns`` (ignoring
    case; a match after a negation or a condition in its clause is no claim), or None."""
    for pattern in patterns:
        for found in re.finditer(pattern, text, re.IGNORECASE):
            start = max((m.end() for m in _CLAUSE_END.finditer(text, 0, found.start())), default=0)
            if _CUES.search(text, start, found.end()) is None:
                return found.group(0)
    return None


def _said(outcome: object) -> tuple[str, str | None]:
    """The outcome's words (an answer's text; an abstention's reason and text) and its
    structured fact, if any."""
    if isinstance(outcome, Answer):
        return outcome.text or "", outcome.fact
    if isinstance(outcome, Abstain):
        return " ".join(p for p in (outcome.reason, outcome.text) if p), None
    return "", None


_HOW = {
    "error": "returned error",
    "refused": "was refused",
    "malformed": "was called with malformed arguments",
    "unknown_tool": "is not a known tool",
}


def _failure(number: int, step: ToolStep) -> str:
    detail = step.error
    if detail is None and step.result is not None:
        detail = step.result if isinstance(step.result, str) else json.dumps(step.result)
    shown = f" '{detail[:120]}'" if detail else ""
    return f"step {number}: {step.tool} {_HOW.get(step.status, step.status)}{shown}"


def _claim(outcome: object, patterns: Sequence[str]) -> str | None:
    text, fact = _said(outcome)
    phrase = claim_in(text, patterns) if text else None
    if phrase is not None:
        return f"the answer says '{phrase}'"
    if fact is not None and claim_in(fact.replace("_", " "), patterns) is not None:
        return f"the answer's fact is '{fact}'"
    return None


def claims_check(patterns: Mapping[str, Sequence[str]]) -> Check:
    """``claims_match_tools`` with ``patterns`` (tool -> regular expressions) in place of
    the default patterns of those tools; a case's ``success_claims`` still come first.
    Register the result under a name of your own (an ``assay.checks`` entry point)."""
    given = {tool: tuple(p) for tool, p in patterns.items()}

    def check(subject: CheckInput) -> CheckResult:
        if subject.trajectory is None:
            return CheckResult.cannot(subject.missing_trajectory)
        case_patterns = {**given}
        for expected in subject.case.expect:
            if isinstance(expected, SuccessClaims):
                case_patterns.update(expected.success_claims)
        last = {step.tool: (n, step) for n, step in numbered_tools(subject.trajectory)}
        failed = sorted(((n, s) for n, s in last.values() if s.failed), key=lambda f: f[0])
        if not failed:
            return CheckResult.ok("no tool's last result failed")
        claims = []
        for number, step in failed:
            found = _claim(
                subject.outcome, case_patterns.get(step.tool) or default_patterns(step.tool)
            )
            if found is not None:
                claims.append(f"{_failure(number, step)}; {found}")
        if claims:
            return CheckResult.fail(" — ".join(claims))
        names = ", ".join(f"{s.tool} (step {n})" for n, s in failed)
        return CheckResult.ok(f"the answer claims no success for the failed {names}")

    check.__name__ = "claims_match_tools"
    check.__doc__ = claims_match_tools.__doc__
    return check


def claims_match_tools(subject: CheckInput) -> CheckResult:
    """Passes when the answer claims no success (by the tool's success-claim patterns)
    for any tool whose last execution in the trajectory failed, was refused, was
    malformed or named an unknown tool. Without a trajectory it cannot be evaluated."""
    return _DEFAULT(subject)


_DEFAULT = claims_check({})
