"""The members of a zip archive, Zstandard-compressed ones included, read without a traceback.

Python's ``zipfile`` reads stored, deflate, bzip2 and LZMA members; inspect_ai writes its
``.eval`` logs with Zstandard members (zip method 93), which it cannot. Those are read here
from their raw bytes and decompressed with ``zstandard``; ``zipfile`` itself is left as it is.
Every way an archive can fail to be read is an :class:`AssayInputError` naming the file and
the member.
"""

from __future__ import annotations

import io
import struct
import zipfile
import zlib
from pathlib import Path
from types import TracebackType
from typing import IO, Self

import zstandard

from assay.errors import AssayInputError

ZIP_ZSTANDARD = 93
READ_BY_ZIPFILE = {
    zipfile.ZIP_STORED: "stored",
    zipfile.ZIP_DEFLATED: "deflate",
    zipfile.ZIP_BZIP2: "bzip2",
    zipfile.ZIP_LZMA: "LZMA",
}
READABLE = (*READ_BY_ZIPFILE.values(), "Zstandard")
_KNOWN_METHODS = {  # names for the message about a method assay does not read
    1: "shrunk",
    6: "imploded",
    9: "Deflate64",
    18: "IBM TERSE",
    19: "IBM LZ77",
    95: "XZ",
    96: "JPEG",
    97: "WavPack",
    98: "PPMd",
    99: "AES-encrypted",
}
_LOCAL_HEADER = struct.Struct("<4s5H3L2H")  # the 30 bytes before a member's name
_LOCAL_MAGIC = b"PK\x03\x04"
_ENCRYPTED = 0x1
_CHUNK = 1 << 20
_DAMAGED: tuple[type[Exception], ...] = (zipfile.BadZipFile, zlib.error, EOFError, OSError)
try:
    import lzma

    _DAMAGED = (*_DAMAGED, lzma.LZMAError)
except ImportError:  # a Python built without lzma: zipfile says so for an LZMA member
    pass


def looks_like_zip(path: Path) -> bool:
    """Whether the file starts as a zip archive does, whole or not."""
    with path.open("rb") as handle:
        return handle.read(4) in (_LOCAL_MAGIC, b"PK\x05\x06")


class ZipMembers:
    """The members of the zip archive at ``path``, each read whole up to ``max_member_bytes``.

    >>> with ZipMembers(Path("log.eval"), max_member_bytes=1 << 20) as archive:  # doctest: +SKIP
    ...     header = archive.read("header.json")
    """

    def __init__(self, path: Path, *, max_member_bytes: int) -> None:
        self.path = path
        self.max_member_bytes = max_member_bytes
        self._archive: zipfile.ZipFile | None = None
        self._raw: IO[bytes] | None = None

    def __enter__(self) -> Self:
        try:
            self._archive = zipfile.ZipFile(self.path)
        except (zipfile.BadZipFile, EOFError, ValueError) as exc:
            raise self._bad(f"a damaged zip archive ({exc})") from None
        except NotImplementedError as exc:  # a directory entry asks for a newer zip format
            raise self._bad(f"a zip archive assay cannot read ({exc})") from None
        try:
            self._raw = self.path.open("rb")
        except OSError:
            self._archive.close()
            raise
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._raw is not None:
            self._raw.close()
        if self._archive is not None:
            self._archive.close()

    @property
    def names(self) -> list[str]:
        """Every member's name, in the archive's order."""
        return self._open().namelist()

    def read(self, name: str) -> bytes:
        """The member ``name``, decompressed and checked against its CRC-32."""
        info = self._open().getinfo(name)
        if info.file_size > self.max_member_bytes:
            raise self._bad(
                f"member {name} is {info.file_size} bytes, over the {self.max_member_bytes} limit"
            )
        if info.flag_bits & _ENCRYPTED:
            raise self._bad(f"member {name} is encrypted; assay reads no encrypted members")
        if info.compress_type == ZIP_ZSTANDARD:
            return self._read_zstandard(info)
        if info.compress_type not in READ_BY_ZIPFILE:
            method = info.compress_type
            label = _KNOWN_METHODS.get(method, "unknown")
            raise self._bad(
                f"member {name} uses zip compression method {method} ({label}), which assay "
                f"cannot read; it reads {', '.join(READABLE)} members"
            )
        try:
            return self._open().read(info)
        except _DAMAGED as exc:
            raise self._bad(f"member {name} is damaged ({exc})") from None
        except RuntimeError as exc:  # a compression module missing from this Python
            raise self._bad(f"member {name} cannot be read here ({exc})") from None

    def _read_zstandard(self, info: zipfile.ZipInfo) -> bytes:
        name = info.filename
        compressed = self._raw_bytes(info)
        reader = zstandard.ZstdDecompressor().stream_reader(
            io.BytesIO(compressed), read_across_frames=True
        )
        parts: list[bytes] = []
        size = 0
        try:
            while size <= info.file_size:  # one byte past the stated size shows a lie
                part = reader.read(min(_CHUNK, info.file_size + 1 - size))
                if not part:
                    break
                parts.append(part)
                size += len(part)
        except zstandard.ZstdError as exc:
            raise self._bad(f"member {name} is damaged (Zstandard: {exc})") from None
        data = b"".join(parts)
        if len(data) != info.file_size:
            found = "more than" if len(data) > info.file_size else f"{len(data)} bytes, not"
            raise self._bad(
                f"member {name} is damaged: it decompresses to {found} the {info.file_size} "
                "bytes the archive states"
            )
        if zlib.crc32(data) != info.CRC:
            raise self._bad(f"member {name} is damaged: its CRC-32 does not match")
        return data

    def _raw_bytes(self, info: zipfile.ZipInfo) -> bytes:
        """The member's compressed bytes, found through its local header."""
        if info.compress_size > self.max_member_bytes:
            raise self._bad(
                f"member {info.filename} is {info.compress_size} bytes compressed, over the "
                f"{self.max_member_bytes} limit"
            )
        raw = self._raw
        assert raw is not None, "read inside `with`"
        if info.header_offset < 0:
            raise self._bad(f"member {info.filename} is damaged: it starts before the archive")
        raw.seek(info.header_offset)
        header = raw.read(_LOCAL_HEADER.size)
        if len(header) < _LOCAL_HEADER.size or not header.startswith(_LOCAL_MAGIC):
            raise self._bad(f"member {info.filename} is damaged: no local header where it starts")
        fields = _LOCAL_HEADER.unpack(header)
        if fields[3] != ZIP_ZSTANDARD:
            raise self._bad(
                f"member {info.filename} is damaged: its local header states compression "
                f"method {fields[3]}, its directory entry {ZIP_ZSTANDARD}"
            )
        name_length, extra_length = fields[-2:]
        raw.seek(info.header_offset + _LOCAL_HEADER.size + name_length + extra_length)
        compressed = raw.read(info.compress_size)
        if len(compressed) < info.compress_size:
            raise self._bad(f"member {info.filename} is truncated")
        return compressed

    def _open(self) -> zipfile.ZipFile:
        assert self._archive is not None, "read inside `with`"
        return self._archive

    def _bad(self, message: str) -> AssayInputError:
        return AssayInputError(f"{self.path}: {message}")
