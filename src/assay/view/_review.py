"""The review page: a person labels a run's judged answers one at a time, blind to the
judge, and each label is appended to a labels file that ``assay calibrate`` reads.

The only page of the viewer that writes, and then only to the labels file: every POST
carries the server's secret token and comes from the viewer's own pages (its ``Origin``,
else ``Referer``, names the host the request was sent to), or it is refused with 403.
"""

from __future__ import annotations

import hmac
import secrets
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

from pydantic import ValidationError
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from assay.errors import AssayConfigError
from assay.grading.judge import JudgeRubric
from assay.report import HumanLabel
from assay.store import RunInfo, RunStore
from assay.view._judged import JudgedAnswer, judge_rubric, judged_answers, judged_run
from assay.view._labels_file import LabelsFile
from assay.view._pages import error_page, review_page
from assay.view._sample import STRATA, stratified_order

TOKEN_FIELD = "csrf"
TOKEN_HEADER = "x-assay-csrf"
HANDED_OUT_S = 600.0
"""How long an answer shown by ``/review`` is kept from another browser asking for one."""
MAX_FORM_BYTES = 64 * 1024
_HEADERS = {
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",
}


@dataclass
class Review:
    """A review session: the run, its answers in review order, the labels file and the
    labels on it, keyed by case-trial (``trial`` None: every trial of the case)."""

    run: RunInfo
    answers: list[JudgedAnswer]
    labels: LabelsFile
    seed: int
    rubric: JudgeRubric
    reviewer: str | None = None
    unblind: bool = False
    token: str = field(default_factory=lambda: secrets.token_urlsafe(32))
    done: dict[tuple[str, int | None], HumanLabel] = field(default_factory=dict)
    handed: dict[int, float] = field(default_factory=dict)

    def label_of(self, answer: JudgedAnswer) -> HumanLabel | None:
        """The label of ``answer`` on file, if any."""
        return self.done.get(answer.key) or self.done.get((answer.case_id, None))

    def next_position(self, now: float) -> int | None:
        """The first unlabelled answer (1-based) not shown to another browser lately, else
        the first unlabelled one; None when every answer is labelled."""
        open_ = [i for i, a in enumerate(self.answers, 1) if self.label_of(a) is None]
        fresh = [i for i in open_ if now - self.handed.get(i, -HANDED_OUT_S) >= HANDED_OUT_S]
        if not open_:
            return None
        chosen = (fresh or open_)[0]
        self.handed[chosen] = now
        return chosen

    def record(self, label: HumanLabel) -> None:
        """Append ``label`` to the labels file; it is then the answer's label."""
        self.labels.append(label)
        self.done[(label.id, label.trial)] = label

    def summary(self) -> list[str]:
        """What the server says at start: the run, the sample, the labels file."""
        shown = ", ".join(
            f"{s['labelled']}/{s['total']} judge {s['verdict']}" for s in self.progress()
        )
        return [
            f"assay view: reviewing run {self.run.id}: {len(self.answers)} judged answers, "
            f"sample seed {self.seed}; labelled so far: {shown}",
            f"assay view: the review page is /review; labels go to {self.labels.path}",
        ]

    def progress(self) -> list[dict[str, Any]]:
        """Per judge verdict: how many answers of the sample are labelled, of how many."""
        return [
            {
                "verdict": name,
                "labelled": sum(1 for a in self.answers if a.verdict == name and self.label_of(a)),
                "total": sum(1 for a in self.answers if a.verdict == name),
            }
            for name in STRATA
        ]


def open_review(
    reader: RunStore,
    ref: str,
    labels: Path,
    *,
    seed: int | None = None,
    wanted: int | None = None,
    reviewer: str | None = None,
    unblind: bool = False,
) -> Review:
    """The review of run (or suite) ``ref``'s judged answers: ``wanted`` of them (default
    all) in the order stratified by the judge's verdict and drawn by ``seed`` (default: the
    seed the labels on file record, else 0); labels go to ``labels`` (JSON Lines, read now:
    a bad file is refused before serving, and its labels are done)."""
    labels_file = LabelsFile(labels)
    on_file = labels_file.read()
    recorded = next((lab.seed for lab in reversed(on_file) if lab.seed is not None), None)
    if seed is None:
        seed = 0 if recorded is None else recorded
    elif recorded is not None and recorded != seed:
        raise AssayConfigError(
            f"--seed {seed}: the labels in {labels} were drawn with seed {recorded}; give "
            f"--seed {recorded} to go on with that sample, or another labels file"
        )
    info = judged_run(reader, ref)
    answers = {a.key: a for a in judged_answers(reader, info)}
    strata = {name: [k for k, a in answers.items() if a.verdict == name] for name in STRATA}
    other = [
        f"{a.case_id}#{a.trial}"
        for a in answers.values()
        if (found := _on_file_label(on_file, a)) is not None
        and found.answer not in (None, a.digest)
    ]
    if other:
        shown = ", ".join(other[:5]) + (f" and {len(other) - 5} more" if len(other) > 5 else "")
        raise AssayConfigError(
            f"--labels {labels}: it labels other answers to {len(other)} of run {info.id}'s "
            f"case-trials ({shown}), from a run whose answers differ; label this run's "
            "answers in another labels file"
        )
    order = stratified_order(strata, seed, wanted)
    return Review(
        run=info,
        answers=[answers[k] for k in order],
        labels=labels_file,
        seed=seed,
        rubric=judge_rubric(info),
        reviewer=reviewer,
        unblind=unblind,
        done={(lab.id, lab.trial): lab for lab in on_file},
    )


def _on_file_label(on_file: list[HumanLabel], answer: JudgedAnswer) -> HumanLabel | None:
    """The last label on file of ``answer``'s case-trial (or of its whole case)."""
    return next(
        (
            lab
            for lab in reversed(on_file)
            if lab.id == answer.case_id and lab.trial in (None, answer.trial)
        ),
        None,
    )


def _html(text: str, status: int = 200) -> HTMLResponse:
    return HTMLResponse(text, status_code=status, headers=_HEADERS)


def _refused(why: str) -> HTMLResponse:
    return _html(error_page(why, "Forbidden"), 403)


def _same_origin(request: Request) -> bool:
    """Whether the request's ``Origin`` (else ``Referer``) names the host it was sent to."""
    host = request.headers.get("host", "").lower()
    origin = request.headers.get("origin") or request.headers.get("referer") or ""
    parts = urlsplit(origin)
    return bool(host) and parts.scheme in ("http", "https") and parts.netloc.lower() == host


def _with_reviewer(url: str, reviewer: str | None) -> str:
    return url + (f"?reviewer={quote(reviewer, safe='')}" if reviewer else "")


def review_routes(review: Review) -> list[Route]:
    """The review page's routes: ``/review`` (the next answer to label), ``/review/N``
    (answer N: GET shows it, POST labels it) and ``/review/progress``."""

    def reviewer_of(request: Request) -> str:
        return (request.query_params.get("reviewer") or review.reviewer or "").strip()

    def page(request: Request, position: int, problem: str = "", status: int = 200) -> Response:
        answer = review.answers[position - 1]
        label = review.label_of(answer)
        reveal = review.unblind or (label is not None and request.query_params.get("reveal") == "1")
        labelled = sum(1 for a in review.answers if review.label_of(a))
        text = review_page(
            run_id=review.run.id,
            answer=answer,
            position=position,
            count=len(review.answers),
            labelled=labelled,
            label=label,
            reveal=reveal,
            reviewer=reviewer_of(request),
            seed=review.seed,
            token=review.token,
            pass_minimum=review.rubric.pass_minimum,
            problem=problem,
        )
        return _html(text, status)

    async def next_answer(request: Request) -> Response:
        position = review.next_position(time.monotonic())
        if position is None:
            return RedirectResponse(_with_reviewer("/review/progress", reviewer_of(request)), 303)
        url = _with_reviewer(f"/review/{position}", reviewer_of(request))
        return RedirectResponse(url, 303, headers=_HEADERS)

    async def progress(request: Request) -> Response:
        labelled = sum(1 for a in review.answers if review.label_of(a))
        text = review_page(
            run_id=review.run.id,
            answer=None,
            position=0,
            count=len(review.answers),
            labelled=labelled,
            label=None,
            reveal=False,
            reviewer=reviewer_of(request),
            seed=review.seed,
            token=review.token,
            pass_minimum=review.rubric.pass_minimum,
            strata=review.progress(),
        )
        return _html(text)

    def position_of(request: Request) -> int | None:
        text = request.path_params["position"]
        if not text.isdigit() or not 1 <= int(text) <= len(review.answers):
            return None
        return int(text)

    async def show(request: Request) -> Response:
        position = position_of(request)
        if position is None:
            return _html(error_page(f"no answer {request.path_params['position']} to review"), 404)
        return page(request, position)

    async def label(request: Request) -> Response:
        if not _same_origin(request):
            return _refused("a label must be sent from the review page itself (Origin)")
        body = await request.body()
        if len(body) > MAX_FORM_BYTES:
            return _html(error_page("the form is too large", "Bad request"), 413)
        form = {k: v[-1] for k, v in parse_qs(body.decode("utf-8", "replace")).items()}
        sent = form.get(TOKEN_FIELD) or request.headers.get(TOKEN_HEADER, "")
        if not hmac.compare_digest(sent.encode(), review.token.encode()):
            return _refused("the form's token is missing or not this server's: reload the page")
        position = position_of(request)
        if position is None:
            return _html(error_page(f"no answer {request.path_params['position']} to review"), 404)
        answer = review.answers[position - 1]
        if form.get("case") != answer.case_id or form.get("trial") != str(answer.trial):
            return page(request, position, "this page was for another answer: label it again", 409)
        made = _label(form, answer, review)
        if isinstance(made, str):
            return page(request, position, made, 400)
        earlier = review.label_of(answer)
        if earlier is not None and earlier.reviewer != made.reviewer:
            who = earlier.reviewer or "someone"
            return page(request, position, f"already labelled by {who}: not labelled again", 409)
        review.record(made)
        return RedirectResponse(_with_reviewer("/review", made.reviewer), 303, headers=_HEADERS)

    return [
        Route("/review", next_answer),
        Route("/review/progress", progress),
        Route("/review/{position}", show, methods=["GET"]),
        Route("/review/{position}", label, methods=["POST"]),
    ]


def _label(form: dict[str, str], answer: JudgedAnswer, review: Review) -> HumanLabel | str:
    """The label the form gives ``answer``, or what is missing from it."""
    reviewer = form.get("reviewer", "").strip() or review.reviewer
    if not reviewer:
        return "name the reviewer"
    verdict = form.get("verdict", "")
    if verdict not in ("0", "1", "2", "pass", "fail"):
        return "choose the answer's score (0, 1 or 2) or pass / fail"
    items = {ident: form.get(f"item-{ident}", "") for ident, _, _ in answer.items}
    unanswered = [ident for ident, value in items.items() if value not in ("present", "absent")]
    if unanswered:
        return f"say whether each rubric item is present: {', '.join(unanswered)}"
    found: dict[str, Any] = {
        "id": answer.case_id,
        "trial": answer.trial,
        "reviewer": reviewer,
        "note": form.get("note", "").strip() or None,
        "items": items or None,
        "labelled_at": datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
        "seed": review.seed,
        "answer": answer.digest,
    }
    found["human_score" if verdict.isdigit() else "human"] = (
        int(verdict) if verdict.isdigit() else verdict
    )
    try:
        return HumanLabel.model_validate(found)
    except ValidationError as err:
        return str(err.errors()[0]["msg"])
