"""The viewer's web application: GET pages over a read-only run store, and the review
page that appends labels to a labels file."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from assay.compare import Comparison, ComparisonRefusedError
from assay.errors import AssayConfigError, AssayError, AssayInputError, StoreError
from assay.metrics import DEFAULT_INTERVAL, IntervalSetting
from assay.render.compare_html import render_compare_html
from assay.render.html import render_html
from assay.render.trend_html import render_trend_html
from assay.report import Report
from assay.runner import parse_since, suite_names, suite_runs, trend_for_suite
from assay.runs import compare_stored, report_for_run
from assay.store import RunStore
from assay.view._hosts import LOOPBACK_NAMES, HostCheck
from assay.view._pages import case_page, error_page, runs_page, suites_page
from assay.view._review import Review, review_routes

_HEADERS = {"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff"}


class _Reports:
    """Reports of stored runs, rebuilt on demand; kept once a run has ended."""

    def __init__(self, reader: RunStore, interval: IntervalSetting) -> None:
        self.reader = reader
        self.level = interval
        self.kept: dict[str, Report] = {}

    def get(self, run_id: str) -> tuple[Any, Report]:
        info = self.reader.get_run(run_id)
        if info.id in self.kept:
            return info, self.kept[info.id]
        report = report_for_run(self.reader, info.id, interval=self.level)
        if info.status != "running":
            self.kept[info.id] = report
        return info, report


@dataclass(frozen=True)
class _Refusal:
    """Why the viewer gives no comparison: the HTTP status, a heading and the message."""

    status: int
    heading: str
    message: str
    here: str


def _run_url(run_id: str) -> str:
    return f"/runs/{quote(run_id, safe='')}"


def _failure(err: Exception) -> tuple[int, str]:
    """The HTTP status and heading of a request that failed with ``err``: 404 for what is
    not in the store (an unknown or ambiguous run id), 500 for what is there but cannot
    be read (a damaged row, a store that fails)."""
    if isinstance(err, AssayInputError):
        return 404, "Not found"
    if isinstance(err, StoreError) and err.kind == "damaged":
        return 500, "Damaged store"
    return 500, "Cannot be read"


def _html(text: str, status: int = 200) -> HTMLResponse:
    return HTMLResponse(text, status_code=status, headers=_HEADERS)


def create_app(
    reader: RunStore,
    *,
    interval: IntervalSetting = DEFAULT_INTERVAL,
    hosts: Collection[str] = LOOPBACK_NAMES,
    review: Review | None = None,
) -> Starlette:
    """The viewer over ``reader`` (a store opened with ``open_store(url, read_only=True)``),
    every interval at ``interval``.
    Every route is a GET and the store is never written, but for the review page when
    ``review`` is given: its POSTs append labels to the review's labels file. Only
    requests whose ``Host`` is one of ``hosts`` (default: the loopback names) are
    answered."""
    reports = _Reports(reader, interval)

    async def runs(request: Request) -> Response:
        rows: list[tuple[Any, Report | None, str | None]] = []
        for info in reader.list_runs():
            try:
                rows.append((info, reports.get(info.id)[1], None))
            except AssayError as err:
                rows.append((info, None, str(err)))
        return _html(runs_page(rows))

    async def run(request: Request) -> Response:
        info, report = reports.get(request.path_params["run_id"])
        links = {
            "All runs": "/",
            "JSON": _run_url(info.id) + "/report.json",
        }
        spans = reader.spans(info.id)
        return _html(render_html(report, spans=spans, links=links, case_link="/case?id="))

    async def run_json(request: Request) -> Response:
        _, report = reports.get(request.path_params["run_id"])
        return JSONResponse(report.model_dump(mode="json"), headers=_HEADERS)

    def comparison_of(request: Request) -> tuple[Comparison, str] | _Refusal:
        """The comparison the query asks for and the page's own URL, or why there is none."""
        baseline = request.query_params.get("baseline", "")
        candidate = request.query_params.get("candidate", "")
        if not baseline or not candidate or baseline == candidate:
            return _Refusal(400, "Cannot compare", "Pick two different runs to compare.", "")
        base_info, base = reports.get(baseline)
        cand_info, cand = reports.get(candidate)
        strict = request.query_params.get("strict") == "1"
        here = f"/compare?baseline={quote(base_info.id)}&candidate={quote(cand_info.id)}"
        try:
            comparison = compare_stored(
                reader,
                base_info.id,
                cand_info.id,
                matching_only=not strict,
                interval=reports.level,
                reports=(base, cand),
            )
        except ComparisonRefusedError as err:
            return _Refusal(409, "Comparison refused", str(err), here)
        return comparison, here

    async def compare(request: Request) -> Response:
        found = comparison_of(request)
        if isinstance(found, _Refusal):
            action = ("Compare the matching cases only, listing the rest as left out", found.here)
            actions = [action] if found.here else []
            page = error_page(found.message, found.heading, actions)
            return _html(page, found.status)
        comparison, here = found
        strict = request.query_params.get("strict") == "1"
        as_json = here.replace("/compare?", "/compare.json?", 1) + ("&strict=1" if strict else "")
        links = {
            "All runs": "/",
            "Baseline": _run_url(comparison.baseline.ref),
            "Candidate": _run_url(comparison.candidate.ref),
            "JSON": as_json,
        }
        # Synthetic cases are left out in either mode; anything else would be refused.
        if not strict and any(not e.reason.startswith("synthetic") for e in comparison.excluded):
            links["Strict: refuse instead"] = here + "&strict=1"
        return _html(render_compare_html(comparison, links=links))

    async def compare_json(request: Request) -> Response:
        found = comparison_of(request)
        if isinstance(found, _Refusal):
            body = {"error": found.message}
            return JSONResponse(body, status_code=found.status, headers=_HEADERS)
        return JSONResponse(found[0].model_dump(mode="json", by_alias=True), headers=_HEADERS)

    async def case(request: Request) -> Response:
        case_id = request.query_params.get("id", "").strip()
        if not case_id:
            return RedirectResponse("/", status_code=303)
        found = []
        unread: AssayError | None = None
        for info in reader.list_runs():
            try:
                report = reports.get(info.id)[1]
            except AssayError as err:
                unread = unread or err
                continue
            found += [(info, row) for row in report.cases if row.id == case_id]
        if not found and unread is not None:
            raise unread  # not "not found": a run that may hold the case cannot be read
        return _html(case_page(case_id, found), 200 if found else 404)

    def suite_trend(request: Request) -> Any:
        from datetime import UTC, datetime

        name = request.path_params["name"]
        since_text = request.query_params.get("since", "").strip()
        since = parse_since(since_text, datetime.now(UTC)) if since_text else None
        built = {info.id: reports.get(info.id)[1] for info in suite_runs(reader, name, since)}
        metric = request.query_params.get("metric", "task_success")
        return trend_for_suite(
            reader,
            name,
            metric,
            since=since,
            interval=reports.level,
            reports=built,
        )

    async def suites(request: Request) -> Response:
        rows = [(name, suite_runs(reader, name)) for name in suite_names(reader)]
        return _html(suites_page(rows))

    async def suite(request: Request) -> Response:
        try:
            trend = suite_trend(request)
        except AssayConfigError as err:  # a bad ?metric= or ?since=
            return _html(error_page(str(err), "Bad request"), 400)
        here = f"/suites/{quote(trend.suite, safe='')}"
        query = request.url.query
        links = {
            "All runs": "/",
            "Suites": "/suites",
            "JSON": f"{here}/trend.json" + (f"?{query}" if query else ""),
        }
        return _html(render_trend_html(trend, in_viewer=True, links=links))

    async def suite_json(request: Request) -> Response:
        try:
            trend = suite_trend(request)
        except AssayConfigError as err:
            return JSONResponse({"error": str(err)}, status_code=400, headers=_HEADERS)
        return JSONResponse(trend.model_dump(mode="json"), headers=_HEADERS)

    async def on_error(request: Request, exc: Exception) -> Response:
        status, heading = _failure(exc)
        if request.url.path.endswith(".json"):
            return JSONResponse({"error": str(exc)}, status_code=status, headers=_HEADERS)
        return _html(error_page(str(exc), heading), status)

    return Starlette(
        routes=[
            Route("/", runs),
            Route("/runs/{run_id}", run),
            Route("/runs/{run_id}/report.json", run_json),
            Route("/compare", compare),
            Route("/compare.json", compare_json),
            Route("/case", case),
            Route("/suites", suites),
            Route("/suites/{name}", suite),
            Route("/suites/{name}/trend.json", suite_json),
            *(review_routes(review) if review is not None else ()),
        ],
        exception_handlers={AssayError: on_error},
        middleware=[Middleware(HostCheck, allowed=hosts)],
    )
