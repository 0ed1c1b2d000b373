"""A scripted judge for tests: an OpenAI-compatible server on 127.0.0.1 (in a thread, so
that a CLI subprocess can reach it) whose replies a test function writes from the request.

``keyword_verdict`` is a simple honest judge: a required fact is present when one of its
phrases is in the answer, a disallowed claim likewise; score 2 when all required facts are
present and no claim is made, 1 when some are present and no claim is made, else 0.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from aiohttp import web
from tests.loopback import threaded_server

Reply = Callable[[dict[str, Any]], str | None]
MARKERS = re.compile(r"<<CANDIDATE-(\w+)>>\n(.*)\n<<END-CANDIDATE-\1>>", re.S)
ITEM = re.compile(r"^(R\d+|D\d+) (?:required fact|disallowed claim): (.*)$", re.M)


def candidate_of(body: dict[str, Any]) -> str:
    """The candidate answer text in a judge request (decoded from its JSON string)."""
    user = body["messages"][-1]["content"]
    found = MARKERS.search(user)
    assert found is not None, "no nonce-delimited candidate block in the request"
    text: str = json.loads(found.group(2))
    return text


def rubric_items(body: dict[str, Any]) -> list[tuple[str, list[str]]]:
    """``(id, phrases)`` for each rubric item of the request, in order."""
    user = body["messages"][-1]["content"]
    items = []
    for ident, rest in ITEM.findall(user):
        head, _, alts = rest.partition(" (")
        phrases = [head]
        if alts:
            inner = alts.rstrip(")").split(": ", 1)[-1]
            phrases += [p.strip() for p in inner.split(";") if p.strip()]
        items.append((ident, phrases))
    return items


def keyword_verdict(body: dict[str, Any]) -> str:
    """An honest keyword judge's reply to ``body`` (see the module docstring)."""
    answer = candidate_of(body)
    low = answer.lower()
    findings = []
    missing = claimed = 0
    for ident, phrases in rubric_items(body):
        hit = next((p for p in phrases if p.lower() in low), None)
        evidence = ""
        if hit is not None:
            start = low.index(hit.lower())
            evidence = answer[start : start + len(hit)]
        findings.append(
            {"id": ident, "verdict": "present" if hit else "absent", "evidence": evidence}
        )
        if ident.startswith("R") and hit is None:
            missing += 1
        if ident.startswith("D") and hit is not None:
            claimed += 1
    required = sum(1 for i, _ in rubric_items(body) if i.startswith("R"))
    if claimed:
        score = 0
    elif missing == 0:
        score = 2
    else:
        score = 1 if missing < required else 0
    reply: dict[str, Any] = {
        "score": score,
        "findings": findings,
        "rationale": f"keyword judge: score {score}",
    }
    system = body["messages"][0]["content"]
    for dimension in ("grounded", "citations_supported"):
        if f'"{dimension}"' in system:
            reply[dimension] = True
    return json.dumps(reply)


@contextmanager
def judge_server(reply: Reply, seen: list[dict[str, Any]] | None = None) -> Iterator[str]:
    """A judge at ``http://127.0.0.1:PORT/v1`` answering each request with ``reply(body)``
    as the message content (None: HTTP 500). Yields the base URL."""

    async def completions(request: web.Request) -> web.Response:
        body = await request.json()
        if seen is not None:
            seen.append(body)
        text = reply(body)
        if text is None:
            return web.json_response({"error": "scripted failure"}, status=500)
        return web.json_response(
            {
                "choices": [{"message": {"role": "assistant", "content": text}}],
                "usage": {"prompt_tokens": 100, "completion_tokens": 20},
            }
        )

    with threaded_server({"/v1/chat/completions": completions}) as url:
        yield f"{url}/v1"
