"""A prompt without template syntax renders, without Jinja2, exactly as Jinja2 renders it."""

from __future__ import annotations

import subprocess
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from assay.targets._prompt import LiteralTemplate, _environment, is_literal, template_problem

# Text with the characters that matter to Jinja2's lexer (line endings, braces' neighbours,
# block/comment markers without the brace) mixed into arbitrary text.
PIECES = st.sampled_from(["\n", "\r\n", "\r", "%", "#", "}", "}}", "%}", "#}", " ", "\t", "-"])
TEXT = st.lists(st.one_of(PIECES, st.text(max_size=8)), max_size=12).map("".join)


@settings(max_examples=300, deadline=None)
@given(TEXT.filter(is_literal))
def test_literal_text_renders_as_jinja_renders_it(text: str) -> None:
    rendered = _environment().from_string(text).render({})
    assert LiteralTemplate(text).text == rendered
    assert template_problem(text) is None


def test_text_with_a_brace_is_a_template() -> None:
    assert not is_literal("Answer {{ question }}")
    assert not is_literal("{# note #}")
    assert is_literal("Reply with the JSON outcome only.\n")
    assert template_problem("{{ nope }}") is not None


def test_a_plain_text_prompt_does_not_import_jinja2() -> None:
    code = (
        "import sys\n"
        "from assay.cases import Case\n"
        "from assay.targets._prompt import Prompt, PromptSettings\n"
        "p = Prompt(PromptSettings(system='Answer briefly.\\n'), {})\n"
        "case = Case(id='c', slice='s', question='Why?', expected_behavior='answer',"
        " expected_fact='f')\n"
        "out = p.render(case, None, [])\n"
        "assert out == [{'role': 'system', 'content': 'Answer briefly.'},"
        " {'role': 'user', 'content': 'Why?'}], out\n"
        "assert 'jinja2' not in sys.modules\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
