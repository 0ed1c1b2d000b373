"""Helpers shared by the dataset commands: near-duplicate options, a progress bar, and
writing a new dataset file without ever replacing one.

Only typer is imported at load time; `assay --help` must stay fast.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from assay.load import path_exists

if TYPE_CHECKING:
    from assay.cases import NearSettings

SHINGLE = typer.Option(5, "--shingle", help="Characters per shingle of the normalised input.")
THRESHOLD = typer.Option(
    0.8, "--threshold", help="Jaccard similarity at or above which inputs are near-duplicates."
)


def near_settings(shingle: int, threshold: float) -> NearSettings:
    """The near-duplicate settings, or a clear error for a bad value."""
    from assay.cases import NearSettings
    from assay.errors import AssayConfigError

    try:
        return NearSettings(shingle=shingle, threshold=threshold)
    except ValueError as err:
        raise AssayConfigError(f"--shingle/--threshold: {err}") from None


@contextmanager
def progress_bar(label: str, total: int) -> Iterator[Callable[[int], None] | None]:
    """A rich progress bar on an interactive stderr (nothing elsewhere); yields ``advance``."""
    if total < 1000 or not sys.stderr.isatty():
        yield None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    from assay.cli._terminal import raw_stream
    from assay.render import SafeConsole

    # stderr, never stdout: the report (or JSON) on stdout must stay clean when piped
    console = SafeConsole(file=raw_stream("stderr"))
    with Progress(
        label,
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        transient=True,
        console=console,
        refresh_per_second=4,  # a redraw costs CPU the comparison could use
    ) as bar:
        task = bar.add_task(label, total=total)
        yield lambda n: bar.update(task, advance=n)


class SizedLater:
    """A progress bar whose total is known only once the input is read: ``size(total)``
    draws it (when ``progress_bar`` would), then calling it advances it."""

    def __init__(self, label: str, stack: ExitStack) -> None:
        self.label = label
        self._stack = stack
        self._advance: Callable[[int], None] | None = None

    def size(self, total: int) -> None:
        self._advance = self._stack.enter_context(progress_bar(self.label, total))

    def __call__(self, n: int) -> None:
        if self._advance is not None:
            self._advance(n)


@contextmanager
def progress_sized_later(label: str) -> Iterator[SizedLater]:
    """``SizedLater`` for ``label``; the bar, if drawn, is removed when the block ends."""
    with ExitStack() as stack:
        yield SizedLater(label, stack)


def refuse_existing(output: Path, inputs: Sequence[Path] = ()) -> None:
    """Refuse to write a dataset over any existing file: a dataset is never replaced."""
    from assay.errors import AssayConfigError

    if path_exists(output, "--output") or any(output.resolve() == i.resolve() for i in inputs):
        raise AssayConfigError(
            f"--output {output}: the file exists; assay never replaces a dataset. "
            "Choose a new file name."
        )
    if output.suffix.lower() not in (".jsonl", ".yaml", ".yml"):
        raise AssayConfigError(f"--output {output}: write a .jsonl or .yaml dataset")


def dataset_text(records: Sequence[dict[str, Any]], output: Path, header: dict[str, Any]) -> str:
    """JSON Lines, or YAML with ``header`` (name, description, sources) before the cases."""
    if output.suffix.lower() == ".jsonl":
        return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
    import yaml

    body = {**header, "cases": list(records)}
    return yaml.safe_dump(body, sort_keys=False, allow_unicode=True, width=100)


def write_dataset(
    records: Sequence[dict[str, Any]],
    output: Path,
    header: dict[str, Any] | None = None,
    inputs: Sequence[Path] = (),
) -> None:
    """Write a new dataset file whole (through a temporary file); never over an existing one."""
    from assay.errors import AssayConfigError

    refuse_existing(output, inputs)
    text = dataset_text(records, output, header or {})
    try:
        output.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{output.name[:100]}.", dir=output.parent)
    except OSError as err:  # a parent that is a file, a read-only folder
        raise AssayConfigError(
            f"--output {output}: cannot be written: {err.strerror or err}"
        ) from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        # link, not replace: if the file appeared meanwhile, fail instead of overwriting it
        os.link(tmp, output)
    except FileExistsError:
        raise AssayConfigError(
            f"--output {output}: the file appeared meanwhile; not replaced"
        ) from None
    except OSError as err:  # a full disk
        raise AssayConfigError(
            f"--output {output}: cannot be written: {err.strerror or err}"
        ) from None
    finally:
        Path(tmp).unlink(missing_ok=True)


def raw_cases(path: Path) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The dataset's records as written (for rewriting with a field changed), and the header
    to keep (name, description, sources made relative to nothing: kept as written)."""
    from assay.load import read_records

    records, header = read_records(path, "cases")
    rows = [dict(raw) for _, raw in records if isinstance(raw, dict)]
    if path.suffix.lower() == ".csv":
        from assay.load import csv_case

        rows = [csv_case(r) for r in rows]
        header = {}
    kept: dict[str, Any] = {k: header[k] for k in ("name", "description", "sources") if k in header}
    return rows, kept


def rebase_sources(header: dict[str, Any], source: Path, output: Path) -> dict[str, Any]:
    """``header`` with a relative ``sources`` path rewritten relative to ``output``'s folder."""
    value = header.get("sources")
    if not isinstance(value, str) or Path(value).is_absolute():
        return header
    target = (source.parent / value).resolve()
    try:
        rel = Path(os.path.relpath(target, output.parent.resolve())).as_posix()
    except ValueError:
        rel = str(target)
    return {**header, "sources": rel}
