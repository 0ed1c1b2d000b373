"""Validating option values shared by several commands."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from assay.errors import AssayConfigError, did_you_mean
from assay.metrics import METHODS, IntervalMethod, IntervalSetting
from assay.render import FORMATS
from assay.runs import check_policy as check_policy
from assay.runs import check_policy_text as check_policy_text


def check_format(fmt: str, allowed: tuple[str, ...] = FORMATS) -> str:
    if fmt not in allowed:
        raise AssayConfigError(
            f"--format {fmt}: unknown format{did_you_mean(fmt, allowed)}; "
            f"choose one of {', '.join(allowed)}"
        )
    return fmt


# What an --output file's name says about its format.
EXTENSIONS: dict[str, str] = {
    ".txt": "text",
    ".text": "text",
    ".json": "json",
    ".md": "markdown",
    ".markdown": "markdown",
    ".html": "html",
    ".htm": "html",
    ".xml": "junit",
}


def output_format(
    fmt: str | None,
    output: Path | None,
    allowed: tuple[str, ...] = FORMATS,
    inputs: Sequence[Path] = (),
) -> str:
    """The format to write: ``fmt`` when given, else the one ``output``'s extension names
    (text when printing). A format the extension contradicts, or an extension that names
    no format, is refused rather than guessed; an ``output`` that may not be written (one
    of ``inputs``, a file assay did not write) is refused first, saying why."""
    if fmt is not None:
        check_format(fmt, allowed)
    if output is None:
        return fmt or "text"
    from assay.cli._output import check_output

    check_output(output, inputs)
    suffix = output.suffix.lower()
    implied = EXTENSIONS.get(suffix)
    if implied is not None and implied not in allowed:
        implied = None
    if fmt is None:
        if implied is None:
            known = ", ".join(f"{e} ({f})" for e, f in EXTENSIONS.items() if f in allowed)
            raise AssayConfigError(
                f"--output {output}: cannot tell the format from "
                f"{repr(suffix) if suffix else 'a name without an extension'}; "
                f"give --format ({', '.join(allowed)}) or name the file {known}"
            )
        return implied
    if implied is not None and implied != fmt:
        raise AssayConfigError(
            f"--output {output}: the name says {implied} but --format is {fmt}; "
            f"drop --format, or give the file a matching name"
        )
    return fmt


def check_method(name: str) -> IntervalMethod:
    for method in METHODS:
        if name == method:
            return method
    raise AssayConfigError(
        f"--interval {name}: unknown method{did_you_mean(name, METHODS)}; "
        f"choose one of {', '.join(METHODS)}"
    )


def check_confidence(level: float) -> float:
    if not 0.5 <= level < 1:
        raise AssayConfigError(f"--confidence {level}: must be at least 0.5 and below 1")
    return level


def interval_setting(confidence: float, method: str) -> IntervalSetting:
    """The interval setting ``--confidence`` and ``--interval`` ask for, refused naming the
    option when either is out of range."""
    chosen = check_method(method)
    check_confidence(confidence)
    return IntervalSetting(confidence, chosen)
