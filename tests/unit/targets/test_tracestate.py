"""The W3C ``tracestate`` an HTTP target sends: the suite's members first, then the trace's."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from aiohttp import web

from assay.cases import Case
from assay.errors import InputFormatError
from assay.targets import TargetContext, build_target
from assay.targets._tracestate import MAX_MEMBERS, merge_tracestate, tracestate_members

PARENT = "00-" + "a" * 32 + "-" + "b" * 16 + "-01"


def test_members_follow_the_w3c_grammar() -> None:
    assert tracestate_members("rojo=00f067aa0ba902b7, congo=t61rcWkgMzE,,") == [
        ("rojo", "00f067aa0ba902b7"),
        ("congo", "t61rcWkgMzE"),
    ]
    assert tracestate_members("tenant7@acme=x y") == [("tenant7@acme", "x y")]
    for bad in ("Acme=x", "acme", "acme=a=b", "acme=", "a=b,a=c", "acme=x\ty"):
        with pytest.raises(ValueError):
            tracestate_members(bad)
    with pytest.raises(ValueError, match="at most 32"):
        tracestate_members(",".join(f"k{i}=v" for i in range(33)))


def test_configured_members_come_first_and_replace_the_same_key() -> None:
    assert merge_tracestate("acme=tenant-7", "congo=t61,acme=old") == "acme=tenant-7,congo=t61"
    assert merge_tracestate(None, "congo=t61") == "congo=t61"
    assert merge_tracestate("acme=1", None) == "acme=1"
    assert merge_tracestate(None, None) is None
    # a malformed incoming value is dropped whole, never half-forwarded
    assert merge_tracestate("acme=1", "congo=ok,Bad Key=x") == "acme=1"
    many = ",".join(f"k{i}=v" for i in range(MAX_MEMBERS))
    merged = merge_tracestate("acme=1", many)
    assert merged is not None and len(merged.split(",")) == MAX_MEMBERS
    assert merged.startswith("acme=1,k0=v") and "k31=v" not in merged


def test_a_malformed_configured_tracestate_is_refused_when_the_suite_is_read() -> None:
    with pytest.raises(InputFormatError, match=r"target\.tracestate: 'Acme=x' is not a W3C"):
        build_target({"type": "http", "url": "http://127.0.0.1:1/ask", "tracestate": "Acme=x"})


def _headers(serve: Any, settings: dict[str, Any], ctx: TargetContext, case: Case) -> list[Any]:
    seen: list[Any] = []

    async def handler(request: web.Request) -> web.Response:
        seen.append((request.headers.get("traceparent"), request.headers.get("tracestate")))
        return web.json_response({"kind": "answer", "fact": "f"})

    async def scenario() -> None:
        async with serve(handler) as base:
            target = build_target({"type": "http", "url": f"{base}/ask", **settings})
            await target.start()  # type: ignore[attr-defined]
            try:
                await target.run(case, ctx)
            finally:
                await target.aclose()  # type: ignore[attr-defined]

    asyncio.run(scenario())
    return seen


def test_the_header_goes_with_traceparent_and_never_alone(serve: Any, case: Case) -> None:
    traced = TargetContext(run_id="r1", traceparent=PARENT, tracestate="congo=t61")
    assert _headers(serve, {"tracestate": "acme=tenant-7"}, traced, case) == [
        (PARENT, "acme=tenant-7,congo=t61")
    ]
    plain = TargetContext(run_id="r1", traceparent=PARENT)
    assert _headers(serve, {}, plain, case) == [(PARENT, None)]
    untraced = TargetContext(run_id="r1", tracestate="congo=t61")
    assert _headers(serve, {"tracestate": "acme=1"}, untraced, case) == [(None, None)]
