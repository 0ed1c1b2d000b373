"""The package versions a run records are importlib.metadata's, read more cheaply."""

from __future__ import annotations

from importlib import metadata
from pathlib import Path

import pytest

from assay.runner._provenance import (
    PACKAGES,
    GitCommit,
    git_commit,
    installed_version,
    package_versions,
)


def test_every_installed_distribution_reads_as_importlib_metadata_reads_it() -> None:
    names = {d.metadata["Name"] for d in metadata.distributions() if d.metadata["Name"]}
    assert len(names) > 20
    for name in sorted(names):
        assert installed_version(name) == metadata.version(name), name


def test_the_recorded_packages_are_their_versions() -> None:
    found = package_versions()
    for name in PACKAGES:
        try:
            assert found[name] == metadata.version(name)
        except metadata.PackageNotFoundError:
            assert name not in found


def test_an_unknown_package_is_not_found() -> None:
    with pytest.raises(metadata.PackageNotFoundError):
        installed_version("assay-no-such-distribution-anywhere")


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ("Metadata-Version: 2.1\nName: probe\nVersion: 1.2.3\n\nVersion: 9\n", "1.2.3"),
        ("Metadata-Version: 2.1\nName: probe\nVersion:\t 0.1.dev4  \n", "0.1.dev4  "),
        ("Metadata-Version: 2.1\nName: probe\nVersion: 1.0\n  .post1\nSummary: x\n", None),
        ("Metadata-Version: 2.1\nName: probe\nversion: 2.0\n", None),
    ],
)
def test_headers_read_like_the_email_parser(
    headers: str, expected: str | None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    info = tmp_path / "probe-0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(headers)
    monkeypatch.syspath_prepend(str(tmp_path))
    got = installed_version("probe")
    assert got == metadata.version("probe")
    if expected is not None:
        assert got == expected


def test_the_commit_asked_in_a_thread_is_the_commit(tmp_path: Path) -> None:
    here = Path(__file__).resolve().parent
    assert GitCommit(here).result() == git_commit(here)
    assert GitCommit(tmp_path).result() is None  # not a repository
