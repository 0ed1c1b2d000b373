"""``assay score`` on a generated dataset of 5,000 cases × 2 trials writes exactly the
bytes it wrote before the per-case memory work: the digests below were taken from the
reports of the earlier implementation (the assay version normalised). The JSON digest was
taken again when split blocks gained ``case_ids`` and usage gained ``cached`` and
``cost_avoided_usd``, and when the report gained ``judge_usage`` (null here): each diff
added those keys and nothing else."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from tests.golden._scale import write_scale_inputs

from assay._version import __version__
from assay.cli import main

# sha256 of the report with the assay version written as 0.0.0+golden.
DIGESTS = {
    "json": "1ae4a706ed69690d5b2495e5825b021c59aa6e5d771dfc39b8d4b569c9159c4b",
    "text": "58b1756652cd1e7bce7dd6fbf03081b0555c540044d9c2afbd8a83d8c13f052c",
    "markdown": "efcafd749edb6fce4f23dd8867f5346f8dbb77ad15c32e76656eb2e3345e8947",
}


def normalised_digest(text: str, version: str) -> str:
    """The digest of a report with ``version`` (the assay version) replaced."""
    for before, after in (
        (f'"assay_version": "{version}"', '"assay_version": "0.0.0+golden"'),
        (f"assay {version}", "assay 0.0.0+golden"),
    ):
        text = text.replace(before, after)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@pytest.fixture(scope="module")
def scale_inputs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return write_scale_inputs(tmp_path_factory.mktemp("scale"))


@pytest.mark.parametrize("fmt", sorted(DIGESTS))
def test_score_report_bytes_are_unchanged(
    fmt: str, scale_inputs: tuple[Path, Path], tmp_path: Path
) -> None:
    cases, results = scale_inputs
    out = tmp_path / f"report.{fmt}"
    with pytest.raises(SystemExit) as ended:
        main(["score", str(cases), str(results), "-f", fmt, "-o", str(out)])
    assert ended.value.code in (0, None)
    assert normalised_digest(out.read_text(encoding="utf-8"), __version__) == DIGESTS[fmt]
