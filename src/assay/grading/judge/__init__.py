"""The rubric judge: a model grades free-text answers, and every failure stays visible."""

from __future__ import annotations

from typing import TYPE_CHECKING

from assay._lazy import lazy_exports

if TYPE_CHECKING:
    from assay.grading.judge._calibration import CalibrationBounds
    from assay.grading.judge._grader import (
        JudgeAnswer,
        JudgeEndpoint,
        JudgeGrader,
    )
    from assay.grading.judge._reply import Rejection, Verdict, parse_judge_reply
    from assay.grading.judge._request import (
        JudgeConfig,
        ResponseMode,
        build_judge_request,
        candidate_quotes,
        candidate_view,
        encode_data,
        reply_schema,
    )
    from assay.grading.judge._rubric import JudgeRubric, rubric_for

# Each name is imported from its module on first use: a command loads only the modules
# whose names it reads.
_WHERE: dict[str, str] = {
    "CalibrationBounds": "assay.grading.judge._calibration",
    "JudgeAnswer": "assay.grading.judge._grader",
    "JudgeEndpoint": "assay.grading.judge._grader",
    "JudgeGrader": "assay.grading.judge._grader",
    "Rejection": "assay.grading.judge._reply",
    "Verdict": "assay.grading.judge._reply",
    "parse_judge_reply": "assay.grading.judge._reply",
    "JudgeConfig": "assay.grading.judge._request",
    "ResponseMode": "assay.grading.judge._request",
    "build_judge_request": "assay.grading.judge._request",
    "candidate_quotes": "assay.grading.judge._request",
    "candidate_view": "assay.grading.judge._request",
    "encode_data": "assay.grading.judge._request",
    "reply_schema": "assay.grading.judge._request",
    "JudgeRubric": "assay.grading.judge._rubric",
    "rubric_for": "assay.grading.judge._rubric",
}

__getattr__, __dir__ = lazy_exports(globals(), _WHERE)


__all__ = [
    "CalibrationBounds",
    "JudgeAnswer",
    "JudgeConfig",
    "JudgeEndpoint",
    "JudgeGrader",
    "JudgeRubric",
    "Rejection",
    "ResponseMode",
    "Verdict",
    "build_judge_request",
    "candidate_quotes",
    "candidate_view",
    "encode_data",
    "parse_judge_reply",
    "reply_schema",
    "rubric_for",
]
