"""Prompt templates of the ``openai`` target: Jinja2 (sandboxed, strict) messages rendered
from a case, the text of its source sections, the allowed fact keys and user variables.

A syntax error or an unknown variable is found when the suite is loaded, with the
template's key and line; a missing attribute (``case.metadata.nope``) when the run starts,
because every case's prompt is rendered before the first call.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from assay.cases import Case, content_hash
from assay.errors import did_you_mean

VARIABLES = ("question", "case", "context", "sections", "facts", "vars", "messages", "schema")
"""The names a template may use (see docs/running.md, "Prompt templates")."""


class MessageTemplate(BaseModel):
    """One message of a prompt: its role and a Jinja2 template for its content."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    role: Literal["system", "user", "assistant"]
    content: str

    @field_validator("content")
    @classmethod
    def _usable(cls, value: str) -> str:
        return usable_template(value)


class PromptSettings(BaseModel):
    """A prompt: ``system`` and/or ``user`` templates, or a list of ``messages``."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    system: str | None = None
    user: str | None = None
    messages: tuple[MessageTemplate, ...] | None = Field(default=None, min_length=1)

    @field_validator("system", "user")
    @classmethod
    def _usable(cls, value: str | None) -> str | None:
        return None if value is None else usable_template(value)

    @model_validator(mode="after")
    def _one_form(self) -> PromptSettings:
        if self.messages is not None and (self.system is not None or self.user is not None):
            raise ValueError("give either messages or system/user, not both")
        if self.messages is None and self.system is None and self.user is None:
            raise ValueError("give system and/or user templates, or messages")
        return self


def _environment() -> Any:
    from jinja2 import StrictUndefined
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    return ImmutableSandboxedEnvironment(
        undefined=StrictUndefined, keep_trailing_newline=False, autoescape=False
    )


def is_literal(text: str) -> bool:
    """Whether ``text`` holds no template syntax at all: every Jinja2 tag, expression and
    comment starts with ``{``, so without one the template renders to its own text."""
    return "{" not in text


_NEWLINES = re.compile(r"\r\n|\r|\n")


class LiteralTemplate:
    """A template without any ``{``: rendered without Jinja2, to what Jinja2 gives for it
    (line endings written as ``\\n``, one trailing newline dropped)."""

    def __init__(self, text: str) -> None:
        lines = _NEWLINES.split(text)
        if lines[-1] == "":
            lines.pop()
        self.text = "\n".join(lines)


def _compile(env: Any, text: str) -> Any:
    return LiteralTemplate(text) if is_literal(text) else env.from_string(text)


def _fill(role: str, template: Any, values: Mapping[str, Any]) -> str:
    if isinstance(template, LiteralTemplate):
        return template.text
    from jinja2 import TemplateError

    try:
        return str(template.render(values))
    except TemplateError as err:
        raise ValueError(f"{role} template: {err}") from None


def usable_template(text: str) -> str:
    """``text`` when it is a usable template; raises ``ValueError`` saying why not."""
    problem = template_problem(text)
    if problem is not None:
        raise ValueError(problem)
    return text


def template_problem(text: str) -> str | None:
    """Why ``text`` is not a usable template (syntax error, unknown variable), or None."""
    if is_literal(text):
        return None
    from jinja2 import TemplateSyntaxError, meta

    env = _environment()
    try:
        tree = env.parse(text)
    except TemplateSyntaxError as err:
        return f"template syntax error at line {err.lineno} of the template: {err.message}"
    unknown = sorted(meta.find_undeclared_variables(tree) - set(VARIABLES))
    if unknown:
        name = unknown[0]
        line = next((i for i, row in enumerate(text.splitlines(), 1) if name in row), 1)
        return (
            f"unknown template variable {name!r} at line {line} of the template"
            f"{did_you_mean(name, list(VARIABLES))}; the variables are {', '.join(VARIABLES)}"
        )
    return None


def context_text(sections: Mapping[str, str] | None) -> str:
    """The sections a case points to as one text: ``[id]`` then the text, blank-line apart."""
    if not sections:
        return ""
    return "\n\n".join(f"[{key}]\n{text}" for key, text in sections.items())


@dataclass(frozen=True)
class Prompt:
    """A compiled prompt: renders the messages for one case."""

    settings: PromptSettings
    variables: Mapping[str, Any]
    schema: str = ""

    @cached_property
    def _compiled(self) -> list[tuple[str, Any]]:
        s = self.settings
        texts = [(m.role, m.content) for m in s.messages] if s.messages is not None else []
        if s.messages is None and s.system is not None:
            texts.append(("system", s.system))
        if s.messages is None and s.user is not None:
            texts.append(("user", s.user))
        # Jinja2 is imported only when some message is a template.
        env = None if all(is_literal(text) for _, text in texts) else _environment()
        return [(role, _compile(env, text)) for role, text in texts]

    @cached_property
    def _literal(self) -> bool:
        return all(isinstance(template, LiteralTemplate) for _, template in self._compiled)

    @property
    def version(self) -> str:
        """The hash of the templates, the variables and the schema instruction."""
        return content_hash(
            {
                "prompt": self.settings.model_dump(mode="json", exclude_none=True),
                "vars": dict(self.variables),
                "schema": self.schema,
            }
        )

    def render(
        self, case: Case, sections: Mapping[str, str] | None, facts: list[str]
    ) -> list[dict[str, str]]:
        """The messages for ``case``; raises ``ValueError`` naming what failed."""
        convo = [{"role": m.role, "content": m.content} for m in case.messages or ()]
        values: dict[str, Any] = {}
        if not self._literal:  # a template fills in case data; plain text needs none
            values = {
                "question": case.prompt,
                "case": case.model_dump(mode="json"),
                "context": context_text(sections),
                "sections": dict(sections or {}),
                "facts": facts,
                "vars": dict(self.variables),
                "messages": convo,
                "schema": self.schema,
            }
        rendered = [
            {"role": role, "content": _fill(role, template, values)}
            for role, template in self._compiled
        ]
        if self.settings.messages is None and self.settings.user is None:
            rendered.extend(convo or [{"role": "user", "content": case.prompt}])
        return rendered
