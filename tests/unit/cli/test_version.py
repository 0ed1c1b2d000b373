"""``assay --version`` prints the version and exits 0, with or without a command."""

from __future__ import annotations

import pytest

from assay._version import __version__
from assay.cli import main


def test_version_prints_and_exits_zero(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out == f"assay {__version__}\n"
