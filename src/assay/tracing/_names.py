"""Span and attribute names: OpenTelemetry GenAI conventions where one exists, ``assay.*``
otherwise. docs/tracing.md is the reference; these constants keep code and docs aligned."""

from __future__ import annotations

# Span names
REQUEST = "assay.request"
EVALUATION = "assay.evaluation"
RETRIEVAL = "retrieval"
CONTEXT_ASSEMBLY = "context_assembly"

# Attributes that tie a span to a run and a record
RUN_ID = "assay.run.id"
CASE_ID = "assay.case.id"
TRIAL = "assay.trial"
CONFIG_VERSION = "assay.config.version"
STAGE = "assay.stage"

# Retrieval
CANDIDATE_IDS = "assay.retrieval.candidate_ids"
CANDIDATE_SCORES = "assay.retrieval.candidate_scores"
SELECTED_IDS = "assay.retrieval.selected_ids"
CORPUS_VERSION = "assay.corpus.version"
TENANT_ID = "assay.tenant.id"

# Context assembly
CONTEXT_IDS = "assay.context.section_ids"
CONTEXT_DROPPED = "assay.context.dropped"

# Generation (GenAI semantic conventions)
OPERATION = "gen_ai.operation.name"
REQUEST_MODEL = "gen_ai.request.model"
INPUT_TOKENS = "gen_ai.usage.input_tokens"
OUTPUT_TOKENS = "gen_ai.usage.output_tokens"
FINISH_REASONS = "gen_ai.response.finish_reasons"
PROMPT_VERSION = "assay.prompt.version"
ANSWER_FACT = "assay.answer.fact"
ANSWER_CITATIONS = "assay.answer.citations"

# Tool execution
TOOL_NAME = "gen_ai.tool.name"
TOOL_ARGS_HASH = "assay.tool.args_hash"
TOOL_STATUS = "assay.tool.status"
TOOL_RESULT_FACT = "assay.tool.result.fact"

# Evaluation
GRADER_NAME = "assay.grader.name"
GRADER_VERSION = "assay.grader.version"
JUDGMENT_STATUS = "assay.judgment.status"
