"""Zip members read whatever their compression, and every unreadable archive refused by name."""

from __future__ import annotations

import struct
import zipfile
from pathlib import Path

import pytest
from tests.interop_logs import (
    ZSTANDARD,
    eval_members,
    inspect_log,
    inspect_sample,
    write_eval_log,
    zip_bytes,
)

from assay.errors import AssayInputError
from assay.interop import ScoreRule, import_inspect
from assay.interop._archive import ZipMembers

MEMBERS = {
    "header.json": b'{"version": 2}',
    "samples/1_epoch_1.json": b"x" * 100_000 + "é".encode(),
    "empty.json": b"",
}


def _zip(tmp_path: Path, **options: int) -> Path:
    path = tmp_path / "a.eval"
    path.write_bytes(zip_bytes(MEMBERS, **options))
    return path


def _read_all(path: Path, limit: int = 1 << 20) -> dict[str, bytes]:
    with ZipMembers(path, max_member_bytes=limit) as archive:
        return {name: archive.read(name) for name in archive.names}


@pytest.mark.parametrize("frames", [1, 3])
def test_zstandard_members_read_back_byte_for_byte(tmp_path: Path, frames: int) -> None:
    path = _zip(tmp_path, frames=frames)
    assert {i.compress_type for i in zipfile.ZipFile(path).infolist()} == {ZSTANDARD}
    assert _read_all(path) == MEMBERS


@pytest.mark.parametrize(
    "method", [zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA]
)
def test_the_methods_zipfile_reads_still_read(tmp_path: Path, method: int) -> None:
    path = tmp_path / "a.zip"
    with zipfile.ZipFile(path, "w", method) as archive:
        for name, data in MEMBERS.items():
            archive.writestr(name, data)
    assert _read_all(path) == MEMBERS


def _log() -> dict[str, object]:
    samples = [inspect_sample(1), inspect_sample(2, value="I"), inspect_sample(3, error="boom")]
    return inspect_log(samples, sample_ids=[1, 2, 3, 4], accuracy=0.5)


def test_a_zstandard_log_imports_as_its_deflate_twin(tmp_path: Path) -> None:
    zstd = import_inspect(
        write_eval_log(tmp_path / "z.eval", _log(), method=ZSTANDARD), rule=ScoreRule()
    )
    plain = import_inspect(write_eval_log(tmp_path / "d.eval", _log()), rule=ScoreRule())
    assert len(zstd.records) == 3
    assert zstd.records == plain.records
    assert zstd.judgments == plain.judgments
    assert zstd.dataset.version == plain.dataset.version


@pytest.mark.parametrize(
    ("method", "label"), [(99, "AES-encrypted"), (9, "Deflate64"), (200, "unknown")]
)
def test_a_method_assay_cannot_read_names_file_member_and_method(
    tmp_path: Path, method: int, label: str
) -> None:
    path = write_eval_log(tmp_path / "odd.eval", _log(), method=method)
    with pytest.raises(AssayInputError) as caught:
        import_inspect(path, rule=ScoreRule())
    message = str(caught.value)
    assert message.startswith(f"{path}: member header.json uses zip compression method {method}")
    assert f"({label})" in message
    assert "Zstandard" in message  # what it does read


def _patched(data: bytes, at: int, value: bytes) -> bytes:
    return data[:at] + value + data[at + len(value) :]


def _first_data_offset(data: bytes) -> int:
    name_length, extra_length = struct.unpack("<HH", data[26:30])
    return 30 + name_length + extra_length


def test_damaged_zstandard_data_is_refused_by_member(tmp_path: Path) -> None:
    data = zip_bytes(MEMBERS)
    start = _first_data_offset(data)
    path = tmp_path / "a.eval"
    path.write_bytes(_patched(data, start + 4, b"\xff\xff\xff\xff"))  # inside the frame
    with pytest.raises(AssayInputError, match=r"a\.eval: member header\.json is damaged"):
        _read_all(path)


def test_a_member_larger_than_stated_or_with_a_wrong_crc_is_refused(tmp_path: Path) -> None:
    data = zip_bytes({"m": b"abcdef"})
    directory = data.index(b"PK\x01\x02")
    # the directory entry's CRC-32 at byte 16, its uncompressed size at byte 24
    smaller = _patched(data, directory + 24, struct.pack("<L", 3))
    (tmp_path / "size.zip").write_bytes(smaller)
    with pytest.raises(
        AssayInputError, match="decompresses to more than the 3 bytes the archive states"
    ):
        _read_all(tmp_path / "size.zip")
    larger = _patched(data, directory + 24, struct.pack("<L", 10))
    (tmp_path / "larger.zip").write_bytes(larger)
    with pytest.raises(AssayInputError, match="decompresses to 6 bytes, not the 10 bytes"):
        _read_all(tmp_path / "larger.zip")
    wrong_crc = _patched(data, directory + 16, b"\0\0\0\0")
    (tmp_path / "crc.zip").write_bytes(wrong_crc)
    with pytest.raises(AssayInputError, match="member m is damaged: its CRC-32 does not match"):
        _read_all(tmp_path / "crc.zip")


def test_an_encrypted_member_is_refused(tmp_path: Path) -> None:
    path = _zip(tmp_path, flags=1)
    with pytest.raises(AssayInputError, match=r"member header\.json is encrypted"):
        _read_all(path)


def test_a_member_over_the_limit_is_refused_before_it_is_read(tmp_path: Path) -> None:
    with pytest.raises(AssayInputError, match=r"samples/1_epoch_1\.json is 100002 bytes, over"):
        _read_all(_zip(tmp_path), limit=1000)


@pytest.mark.parametrize("keep", [0.3, 0.6, 0.99])
def test_a_truncated_eval_log_is_refused_not_read_as_json(tmp_path: Path, keep: float) -> None:
    whole = zip_bytes(eval_members(_log()))
    path = tmp_path / "cut.eval"
    path.write_bytes(whole[: int(len(whole) * keep)])
    with pytest.raises(AssayInputError) as caught:
        import_inspect(path, rule=ScoreRule())
    assert str(caught.value) == (
        f"{path}: a damaged or truncated zip archive (its central directory is missing)"
    )


def test_a_directory_entry_pointing_outside_the_archive_is_refused(tmp_path: Path) -> None:
    data = zip_bytes({"m": b"abcdef"})
    directory = data.index(b"PK\x01\x02")
    path = tmp_path / "a.zip"
    path.write_bytes(_patched(data, directory + 42, struct.pack("<L", 5)))  # local header offset
    with pytest.raises(AssayInputError, match="member m is damaged: no local header"):
        _read_all(path)
