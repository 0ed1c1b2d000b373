"""Output already written to a file, to be copied into the output as it is."""

from __future__ import annotations

from typing import IO, NamedTuple


class WrittenText(NamedTuple):
    """A piece of output already written to ``file`` (from its start), as UTF-8 with its
    control characters escaped (``escape_controls``): ``emit`` copies it as it is."""

    file: IO[bytes]
