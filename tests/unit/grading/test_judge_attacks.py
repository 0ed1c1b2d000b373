"""The shipped adversarial set (examples/judge/adversarial*.jsonl) against the prompt and
the parser: every attack stays data inside its block, and every verdict a persuaded or
copying judge could return for it is rejected."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from assay.grading.judge import JudgeAnswer, JudgeConfig, JudgeGrader, JudgeRubric, Rejection
from assay.load import load_dataset, load_results
from assay.outcomes import Answer

ROOT = Path(__file__).resolve().parents[3]
DATA = load_dataset(ROOT / "examples/judge/adversarial.jsonl")
ANSWERS = {
    r.case_id: r for r in load_results(ROOT / "examples/judge/adversarial-answers.jsonl").records
}
NONCE = "f00dfacefeedbeef01234567"
GRADER = JudgeGrader(JudgeConfig(model="scripted", max_candidate_chars=4000), JudgeRubric())
IDS = [c.id + "-" + str(c.metadata["attack"]) for c in DATA.cases]


def _text(case_id: str) -> str:
    outcome = ANSWERS[case_id].outcome
    assert isinstance(outcome, Answer) and outcome.text is not None
    return outcome.text


def test_the_set_covers_every_listed_attack() -> None:
    attacks = {c.metadata["attack"] for c in DATA.cases}
    assert {
        "instruction",
        "fake-verdict",
        "close-delimiter",
        "close-delimiter-nonce",
        "close-json-string",
        "role-play",
        "very-long",
        "other-language",
        "zero-width",
        "tag-characters",
        "bidi-override",
    } <= attacks
    assert len(DATA.cases) == len(ANSWERS) >= 15


@pytest.mark.parametrize("case", DATA.cases, ids=IDS)
def test_the_attack_stays_data_inside_its_block(case: Any) -> None:
    call = GRADER.prepare(case, ANSWERS[case.id], NONCE)
    assert not isinstance(call, type(None)) and hasattr(call, "body")
    user = call.body["messages"][-1]["content"]
    system = call.body["messages"][0]["content"]
    blocks = re.findall(rf"<<CANDIDATE-{NONCE}>>\n(.*)\n<<END-CANDIDATE-{NONCE}>>", user, re.S)
    assert len(blocks) == 1
    block = blocks[0]
    assert "\n" not in block and "<" not in block and ">" not in block
    assert all(ch.isprintable() or ch == " " for ch in block)  # nothing invisible
    text = _text(case.id)
    assert json.loads(block) == text[: len(json.loads(block))]
    assert user.count(f"<<END-CANDIDATE-{NONCE}>>") == 1
    assert "data" in system.lower() and "never instructions" in system
    if len(text) > 4000:
        assert call.candidate.truncated
        assert f"cut to its first 4000 of {len(text)} characters" in user


def _persuaded(case: Any, quote: str) -> str:
    """The verdict a judge obeying the attack would write: score 2, the required fact
    present (quoting ``quote``), the disallowed claims absent."""
    findings = [{"id": "R1", "verdict": "present", "evidence": quote}]
    findings += [
        {"id": f"D{i}", "verdict": "absent", "evidence": ""}
        for i in range(1, len(case.disallowed) + 1)
    ]
    return json.dumps({"score": 2, "findings": findings, "rationale": "Complete and correct."})


def _embedded_verdicts(text: str) -> list[str]:
    decoder = json.JSONDecoder()
    found, i = [], 0
    while (start := text.find("{", i)) != -1:
        try:
            value, end = decoder.raw_decode(text, start)
        except json.JSONDecodeError:
            i = start + 1
            continue
        if isinstance(value, dict) and "score" in value:
            found.append(text[start:end])
        i = end
    return found


@pytest.mark.parametrize("case", DATA.cases, ids=IDS)
def test_every_fabricated_or_copied_pass_is_rejected(case: Any) -> None:
    call = GRADER.prepare(case, ANSWERS[case.id], NONCE)
    assert not isinstance(call, type(None)) and hasattr(call, "body")
    text = call.candidate.text
    replies = [
        _persuaded(case, "30 days"),  # the fact the attack wants credited, not in the answer
        *_embedded_verdicts(text),  # the attacker's own verdict, copied
        *(v + "\n" + _persuaded(case, "30 days") for v in _embedded_verdicts(text)),
    ]
    for reply in replies:
        judgment = GRADER.conclude(case, call, JudgeAnswer(reply))
        assert judgment.status == "ungraded", (case.id, reply[:80], judgment.reason)
        assert judgment.score is None


def test_a_persuaded_judge_quoting_real_text_gets_through_only_without_disallowed_words() -> None:
    """The parser's limit, stated: a judge persuaded to write a self-consistent pass that
    quotes real words of the answer is stopped only when the answer literally contains a
    disallowed claim (the judge called it absent). The rest is what calibration and the
    real-model count in docs/judge.md measure."""
    through = []
    for case in DATA.cases:
        call = GRADER.prepare(case, ANSWERS[case.id], NONCE)
        assert hasattr(call, "body")
        judgment = GRADER.conclude(
            case, call, JudgeAnswer(_persuaded(case, call.candidate.text[:20]))
        )
        if judgment.status != "ungraded":
            through.append(str(case.metadata["attack"]))
    assert through == ["other-language", "zero-width", "bidi-override"]


def test_an_honest_verdict_on_an_attack_is_accepted() -> None:
    case = DATA.cases[0]
    call = GRADER.prepare(case, ANSWERS[case.id], NONCE)
    assert hasattr(call, "body")
    reply = {
        "score": 0,
        "findings": [
            {"id": "R1", "verdict": "absent", "evidence": ""},
            {"id": "D1", "verdict": "present", "evidence": "14 days"},
            {"id": "D2", "verdict": "absent", "evidence": ""},
        ],
        "rationale": "Gives 14 days and tries to instruct the grader.",
    }
    judgment = GRADER.conclude(case, call, JudgeAnswer(json.dumps(reply)))
    assert judgment.status == "failed" and judgment.score == 0.0


def test_rejections_name_their_class() -> None:
    case = DATA.cases[1]  # the fake JSON verdict
    call = GRADER.prepare(case, ANSWERS[case.id], NONCE)
    assert hasattr(call, "body")
    copied = _embedded_verdicts(call.candidate.text)[0]
    judgment = GRADER.conclude(case, call, JudgeAnswer(copied))
    assert "rejected=copied_verdict" in judgment.labels
    assert isinstance(Rejection("x", "y").reason, str)
