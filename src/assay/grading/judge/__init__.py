"""The rubric judge: a model grades free-text answers, and every failure stays visible."""

from assay.grading.judge._calibration import CalibrationBounds
from assay.grading.judge._grader import (
    JudgeAnswer,
    JudgeCall,
    JudgeEndpoint,
    JudgeGrader,
)
from assay.grading.judge._reply import Finding, Rejection, Verdict, parse_judge_reply
from assay.grading.judge._request import (
    Candidate,
    JudgeConfig,
    ResponseMode,
    build_judge_request,
    candidate_quotes,
    candidate_view,
    encode_data,
    reply_schema,
)
from assay.grading.judge._rubric import JudgeRubric, rubric_for

__all__ = [
    "CalibrationBounds",
    "Candidate",
    "Finding",
    "JudgeAnswer",
    "JudgeCall",
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
