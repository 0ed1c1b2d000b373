"""The benchmark kit works: the mock server answers like an OpenAI-compatible endpoint
and the bare-client floor completes a handful of requests. No timing is asserted."""

from __future__ import annotations

import json
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

BENCH = Path(__file__).resolve().parents[3] / "bench"
sys.path.insert(0, str(BENCH))

import floor  # noqa: E402
import workload  # noqa: E402
from _mockproc import mock_server  # noqa: E402

from assay.outcomes import Answer  # noqa: E402
from assay.targets.openai import parse_completion  # noqa: E402

pytestmark = pytest.mark.timeout(60)


def _post(url: str, body: dict[str, Any]) -> tuple[int, dict[str, str], str]:
    data = json.dumps(body).encode()
    request = urllib.request.Request(
        url, data=data, headers={"Content-Type": "application/json"}, method="POST"
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, dict(response.headers), response.read().decode()
    except urllib.error.HTTPError as err:
        return err.code, dict(err.headers), err.read().decode()


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    with mock_server("--latency-ms", "0") as url:
        yield url


def test_mock_replies_a_chat_completion_assay_parses(base_url: str) -> None:
    question = workload.cases(1)[0]["question"]
    status, _, text = _post(base_url + "/chat/completions", workload.chat_request(question))
    assert status == 200
    body = json.loads(text)
    assert body["object"] == "chat.completion"
    assert body["usage"]["prompt_tokens"] > 0
    reply = parse_completion(body, text)
    assert reply.outcome == Answer(fact="f0", text="The answer is f0.")
    assert reply.usage is not None and reply.usage.output_tokens == 17


def test_mock_answers_429_with_retry_after_when_asked() -> None:
    with mock_server("--429-rate", "1", "--retry-after", "2") as url:
        status, headers, _ = _post(url + "/chat/completions", workload.chat_request("q"))
    assert status == 429
    assert headers["Retry-After"] == "2"


def test_floor_runs_ten_requests(base_url: str) -> None:
    measure = floor.run_floor(base_url, 10, 5)
    assert (measure.cases, measure.failures) == (10, 0)
    assert measure.wall_s > 0 and measure.cpu_s > 0


def test_the_matrix_benchmark_counts_no_request_on_the_cached_rerun() -> None:
    import matrix_cache

    m = matrix_cache.measure(n=12, variants=2, c=4, latency_ms=0.0)
    assert m.matrix_requests == 24 and m.matrix_failures == 0
    assert m.cached_requests == 0 and m.cached_served == 24
    lines = matrix_cache.section(m)
    assert lines[0] == matrix_cache.TITLE
    assert any("fully cached rerun of 24 case-trials" in line for line in lines)
