"""``assay score`` on a generated dataset of 5,000 cases × 2 trials writes exactly the bytes it
wrote before the per-case memory work: the digests below were taken from the reports of the
earlier implementation (the assay version normalised). The JSON digest was taken again when
split blocks gained ``case_ids`` and usage gained ``cached`` and ``cost_avoided_usd``, and
when the report gained ``judge_usage`` (null here): each diff added those keys and nothing
else. The text and Markdown digests were taken again when both reports came to be drawn from
one document: Markdown now escapes every piece of text (``\\[``, ``\\&``), titles the slices
table, puts the trial lines before it and groups a long list of cases as text does; the
by-split table is headed with the interval's name; the synthetic cases follow the grouped
list under their banner. All three were taken again when a report with error, missing or
ungraded case-trials gained task success's worst and best case over them (the JSON's
``unknown_bounds``, a line under the statuses), and the JSON again when each interval gained
``ci`` beside its former name ``ci95``, when a report gained its ``sequential`` section
(null for a fixed run), and when it gained the agents' ``agent`` section and each row its
``agent`` and ``trajectory`` (null without a trajectory): each diff added those and nothing
else. The JSON digest was taken again when a block that does not apply came to be omitted
rather than written as null: the diff removed the null ``sequential``, ``budget``, ``cache``,
``agent``, ``judge_usage`` and ``dataset.change``, and each row's null ``transcript``,
``judge``, ``agent`` and ``trajectory``, and nothing else. All three again when each split
block gained its own worst and best case over its unknowns (the block's ``unknown_bounds``,
a line each under the split statuses): the diff added those and nothing else."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from tests.golden._scale import write_scale_inputs

from assay._version import __version__
from assay.cli import main

# sha256 of the report with the assay version written as 0.0.0+golden.
DIGESTS = {
    "json": "605a4bef2e226eebdba06ef2eb34d6a0ce13095a70250b730f82ecaf61b1e949",
    "text": "fffb0739da9971f36cf99b35ce7ad929e0eebff89eff15b758494812590ccb2f",
    "markdown": "ce6d0bd4b828fd35a475eccfde8bfa3cada3e3a29b06ad9dbc847173576bc8bd",
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
