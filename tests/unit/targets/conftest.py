"""The case every target test sends (loopback servers: the ``serve`` fixture of tests/)."""

from __future__ import annotations

import pytest

from assay.cases import Case


@pytest.fixture
def case() -> Case:
    return Case(
        id="E1",
        slice="standard",
        question="How many days do I have to return an item?",
        expected_behavior="answer",
        expected_fact="return_window_30_days",
        metadata={"lang": "en"},
    )
