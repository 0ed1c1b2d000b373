"""assay's exception tree: every error a user can cause is an ``AssayError``.

::

    AssayError                      anything assay refuses to do; the CLI prints it, exit 2
    ├── AssayInputError             a file or value the user supplied is wrong
    │   ├── InputFormatError        a file could not be read or parsed (every problem listed)
    │   ├── DuplicateCaseIdError    two cases share an id
    │   ├── UnknownResultIdError    a result names a case the dataset does not have
    │   ├── DuplicateResultError    two results for the same case and trial
    │   └── TrialNumberError        a trial number far beyond what the results hold
    ├── AssayConfigError            a suite, profile or option is wrong
    └── StoreError                  the run store cannot be read or written (damaged, full,
                                    read-only, locked, unreachable)

Messages say what is wrong, where (file and line), and what to do.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Location:
    """Where a value came from: a file and, when known, a 1-based line."""

    file: str
    line: int | None = None

    def __str__(self) -> str:
        return f"{self.file}:{self.line}" if self.line is not None else self.file


@dataclass(frozen=True)
class Problem:
    """One thing wrong with an input, at a location, about a field."""

    message: str
    location: Location | None = None
    field: str | None = None

    def __str__(self) -> str:
        where = f"{self.location}: " if self.location is not None else ""
        return f"{where}{self.message}"


class AssayError(Exception):
    """Base of every error assay raises on purpose."""


class AssayInputError(AssayError):
    """Something the user supplied (a file, a record, a value) is wrong."""


class InputFormatError(AssayInputError):
    """A file could not be parsed; ``problems`` lists every problem found, not just the first."""

    def __init__(self, problems: Sequence[Problem], summary: str | None = None) -> None:
        self.problems = tuple(problems)
        head = summary or f"{len(self.problems)} problem(s) found"
        super().__init__("\n".join([head + ":", *(f"  {p}" for p in self.problems)]))


class _IdsError(AssayInputError):
    """An error about specific case ids, each with the places it was seen."""

    headline = ""
    advice = ""

    def __init__(self, ids: Mapping[str, Sequence[Location | None]]) -> None:
        self.ids = {k: tuple(v) for k, v in ids.items()}
        lines = [f"{self.headline}: {', '.join(sorted(self.ids))}"]
        for case_id in sorted(self.ids):
            places = [str(loc) for loc in self.ids[case_id] if loc is not None]
            if places:
                lines.append(f"  {case_id}: {', '.join(places)}")
        if self.advice:
            lines.append(self.advice)
        super().__init__("\n".join(lines))


class DuplicateCaseIdError(_IdsError):
    """Two or more cases in a dataset share an id; nothing was scored."""

    headline = "Duplicate case ID"
    advice = "Give every case a unique, stable id; nothing was scored."


class UnknownResultIdError(_IdsError):
    """A result names a case id that the dataset does not contain; nothing was scored."""

    headline = "Unknown result ID"
    advice = "Check that the results belong to this dataset; nothing was scored."


class DuplicateResultError(_IdsError):
    """Two or more results were recorded for the same case and trial; nothing was scored."""

    headline = "Duplicate result for the same case and trial"
    advice = "Keep one result per case and trial (set 'trial' for repeats); nothing was scored."


class TrialNumberError(_IdsError):
    """A result's trial number is beyond what its results can number (one stray
    ``trial: 100000`` would make every case missing that many times); nothing was scored."""

    headline = "Trial number beyond what the results can number"

    def __init__(
        self, ids: Mapping[str, Sequence[Location | None]], allowed: int, records: int, cases: int
    ) -> None:
        self.allowed = allowed
        self.advice = (
            f"{records:,} results over {cases:,} cases may number at most {allowed:,} trials "
            f"a case (never more than {MAX_TRIALS:,}); number the trials of each case "
            "from 1; nothing was scored."
        )
        super().__init__(ids)


MAX_TRIALS = 1_000
"""The most trials of a case results may hold (the most a suite may declare)."""


class AssayConfigError(AssayError):
    """A suite, profile, rule or option is invalid."""


class StoreError(AssayError):
    """The run store cannot be read or written; ``kind`` says why: ``damaged``, ``full``,
    ``read_only``, ``locked``, ``cannot_open``, ``absent`` (a reading command found no
    store) or ``failed``. What it already holds is kept."""

    def __init__(self, message: str, kind: str = "failed") -> None:
        super().__init__(message)
        self.kind = kind


def did_you_mean(name: str, choices: Sequence[str]) -> str:
    """A ' (did you mean "x"?)' suffix for the closest choice, or '' when none is close."""
    import difflib

    by_folded = {choice.casefold(): choice for choice in choices}
    if name.casefold() in by_folded:  # 'e2' for 'E2': only the letter case differs
        return f' (did you mean "{by_folded[name.casefold()]}"?)'
    close = difflib.get_close_matches(name, list(choices), n=1, cutoff=0.6)
    return f' (did you mean "{close[0]}"?)' if close else ""
