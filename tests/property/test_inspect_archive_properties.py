"""A damaged inspect ``.eval`` archive is imported or refused by name, never a traceback."""

from __future__ import annotations

import tempfile
import zipfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from tests.interop_logs import ZSTANDARD, eval_members, inspect_log, inspect_sample, zip_bytes

from assay.errors import AssayInputError
from assay.interop import ScoreRule, import_inspect

_LOG = inspect_log(
    [inspect_sample(1), inspect_sample(2, value="I"), inspect_sample(3, error="boom")],
    sample_ids=[1, 2, 3],
    accuracy=0.5,
)
WHOLE = {
    ZSTANDARD: zip_bytes(eval_members(_LOG)),
    zipfile.ZIP_STORED: zip_bytes(eval_members(_LOG), method=zipfile.ZIP_STORED),
}


@st.composite
def damaged(draw: st.DrawFn) -> bytes:
    """The whole archive cut short, or with up to four bytes overwritten: anywhere, or in its
    central directory, whose damage zipfile itself reports in the most ways."""
    data = bytearray(WHOLE[draw(st.sampled_from(sorted(WHOLE)))])
    if draw(st.booleans()):
        return bytes(data[: draw(st.integers(0, len(data) - 1))])
    start = draw(st.sampled_from([0, data.index(b"PK\x01\x02")]))
    for _ in range(draw(st.integers(1, 4))):
        data[draw(st.integers(start, len(data) - 1))] = draw(st.integers(0, 255))
    return bytes(data)


@settings(max_examples=300)
@given(damaged())
def test_a_damaged_archive_imports_or_is_refused_naming_the_file(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "log.eval"
        path.write_bytes(data)
        try:
            run = import_inspect(path, rule=ScoreRule())
        except AssayInputError as refused:
            assert str(refused).startswith(f"{path}: ")
        else:
            assert len(run.records) <= 3
