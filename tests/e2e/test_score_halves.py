"""``assay score`` with the dataset's cases scored half by a second process writes (or
prints) what it writes scoring them all here, byte for byte, in every format (to a file
or to stdout), and says the same about a file it cannot score. A second process that
fails while it renders its rows (JUnit XML, HTML) has them made here, or the command
fails clearly. Run in this process (``run_cli``), whatever ``ASSAY_TEST_PROCESS`` says:
the thresholds are patched."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.inprocess import run_cli

from assay.load import _aside
from assay.render import html, junit, packed
from assay.scoring import _files
from assay.scoring import _second_rows as _halved_rows
from assay.scoring import _two_processes as _halves

RunAssay = Callable[..., subprocess.CompletedProcess[str]]
HALVED = _halves.halved_json
LISTED = _halves.halved_listed
WHOLE = _halves.halved_whole

WAYS: list[tuple[str, ...]] = [
    ("-f", "json", "-o", "out.json"),
    ("-f", "json"),
    (),  # the text report on stdout: the command as a user types it
    ("-f", "text", "-o", "out.txt"),
    ("-f", "markdown"),
    ("-f", "markdown", "-o", "out.md"),
    ("-f", "junit", "-o", "out.xml"),
    ("-f", "junit"),
    ("-f", "html", "-o", "out.html"),
]
"""How the report is asked for: the formats scored by two processes, to stdout or a file."""

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="forks on Linux")

KINDS: list[dict[str, Any]] = [
    {"kind": "answer", "fact": "f"},
    {"kind": "answer", "fact": "g", "text": "said g"},
    {"kind": "abstain", "reason": "unsure"},
    {"kind": "abstain", "text": "no idea"},
    {"kind": "error", "class": "timeout", "message": "after 30 s"},
    {"kind": "error", "error_class": "http_500", "raw": "<html>"},
    {"kind": "answer", "text": "free"},
    {"kind": "answer", "fact": "h"},
]


def _case(i: int) -> dict[str, Any]:
    abstain = i % 4 == 0
    case: dict[str, Any] = {"id": f"C{i}", "slice": f"s{i % 3}", "question": f"q {i}? é"}
    case |= {"expected_behavior": "abstain" if abstain else "answer"}
    case |= {"expected_fact": None if abstain else "f"}
    if i % 5 == 1:
        case["rationale"] = "policy ✓"
    if i % 7 == 2:
        case["source_revision"] = f"rev-{i % 3}"
    if i % 11 == 3:
        case["synthetic"] = True
    if i % 6 == 4:
        case["split"] = "heldout"
    if i % 9 == 5:
        case["group"] = f"g{i % 2}"
    if i % 13 == 6:
        case["question"] += " \u2028 \x85 \u202e"  # written escaped to a report file
    return case


def _inputs(
    directory: Path, cases: int = 3_000, extra_case: str = "", extra_result: str = ""
) -> tuple[Path, Path]:
    """A dataset (``extra_case`` appended) and its results (``extra_result`` appended)."""
    dataset, results = directory / "cases.jsonl", directory / "results.jsonl"
    with dataset.open("w") as c, results.open("w") as r:
        for i in range(cases):
            c.write(json.dumps(_case(i), ensure_ascii=False) + "\n")
            if i % 17:
                r.write(json.dumps({"id": f"C{i}", **KINDS[i % len(KINDS)]}) + "\n")
        c.write(extra_case)
        r.write(extra_result)
    return dataset, results


def _score(
    directory: Path,
    halves: bool,
    monkeypatch: pytest.MonkeyPatch,
    made: list[bool],
    way: tuple[str, ...] = WAYS[0],
) -> tuple[subprocess.CompletedProcess[str], bytes | None]:
    """``assay score`` of the inputs in ``directory`` asked for ``way`` (by two processes
    when ``halves`` and they are the usual ones; ``made`` says whether they were), and the
    file written (if ``way`` names one)."""
    out = directory / way[-1] if "-o" in way else None
    if out is not None:
        out.unlink(missing_ok=True)
    monkeypatch.setattr(_aside, "ASIDE_BYTES", 0 if halves else 2**62)
    monkeypatch.setattr(_halves, "HALVES_BYTES", 0 if halves else 2**62)
    monkeypatch.setattr(
        _files, "halved_json", lambda *a: made.append((m := HALVED(*a)) is not None) or m
    )
    monkeypatch.setattr(
        _files, "halved_listed", lambda *a: made.append((m := LISTED(*a)) is not None) or m
    )
    monkeypatch.setattr(
        _files, "halved_whole", lambda *a: made.append((m := WHOLE(*a)) is not None) or m
    )
    done = run_cli("score", "cases.jsonl", "results.jsonl", *way, cwd=directory)
    return done, out.read_bytes() if out is not None and out.exists() else None


def _same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, usual: bool, way: tuple[str, ...] = WAYS[0]
) -> int:
    made: list[bool] = []
    here, written_here = _score(tmp_path, False, monkeypatch, made, way)
    halved, written = _score(tmp_path, True, monkeypatch, made, way)
    assert any(made) is usual and len(made) <= 1, halved.stderr
    assert halved.returncode == here.returncode, halved.stderr
    assert halved.stdout == here.stdout
    assert halved.stderr == here.stderr
    assert written == written_here
    assert "Traceback" not in halved.stderr
    return halved.returncode


def test_the_usual_files_give_the_report_written_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _inputs(tmp_path)
    assert _same(tmp_path, monkeypatch, usual=True) == 0
    written = (tmp_path / "out.json").read_text(encoding="utf-8")
    assert "\\u2028" in written and "\u2028" not in written
    report = json.loads(written)
    assert len(report["cases"]) == 3_000
    assert report["synthetic"] and report["splits"] and report["dataset"]["source_revisions"]


@pytest.mark.parametrize("way", WAYS[1:])
def test_every_format_it_serves_gives_the_report_made_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, way: tuple[str, ...]
) -> None:
    _inputs(tmp_path)
    assert _same(tmp_path, monkeypatch, usual=True, way=way) == 0
    if way[-1:] == ("out.txt",):
        text = (tmp_path / "out.txt").read_text(encoding="utf-8")
        assert "grouped by status and reason" in text and "\\u2028" not in text
        assert "Synthetic" in text or "synthetic case(s)" in text


@pytest.mark.parametrize(
    "way", [("-f", "text", "-o", "out.txt"), ("-f", "markdown", "-o", "out.md")]
)
def test_a_short_list_of_cases_not_passed_is_the_table_made_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, way: tuple[str, ...]
) -> None:
    """Few cases not passed (some in each part) are drawn as a table of their rows."""
    with (tmp_path / "cases.jsonl").open("w") as c, (tmp_path / "results.jsonl").open("w") as r:
        for i in range(2_000):
            c.write(_line(_case(i)))
            right = {"kind": "abstain"} if i % 4 == 0 else {"kind": "answer", "fact": "f"}
            wrong = {"kind": "error", "class": "timeout", "raw": f"<{i}>"}
            r.write(json.dumps({"id": f"C{i}", **(wrong if i % 40 == 7 else right)}) + "\n")
    assert _same(tmp_path, monkeypatch, usual=True, way=way) == 0
    shown = (tmp_path / way[-1]).read_text(encoding="utf-8")
    assert "Cases not passed" in shown and "grouped" not in shown
    assert "C7" in shown and "C1967" in shown  # of each part


FALLBACK_WAYS = [WAYS[0], WAYS[2], WAYS[6]]
"""A way each of ``halved_json``, ``halved_listed`` and ``halved_whole`` serves."""


@pytest.mark.parametrize("way", FALLBACK_WAYS)
@pytest.mark.parametrize(
    "extra_result",
    [
        '{"id": "C9999", "kind": "answer", "fact": "f"}\n',  # an unknown case
        '{"id": "C1", "kind": "answer", "fact": "f"}\n',  # a repeated one of the first half
        '{"id": "C2998", "kind": "abstain"}\n',  # a repeated one of the second half
        '{"id": "C17", "kind": "answer", "fact": "f", "trial": 1}\n',  # not the usual line
        '{"id": "C17", "kind": "answer", "fact": "f", "latency_ms": 12.5}\n',
        '{"id": "C17", "kind": "answer"}\n',  # no fact
        "{not json\n",
    ],
)
def test_results_it_does_not_cover_are_scored_or_refused_alike(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, extra_result: str, way: tuple[str, ...]
) -> None:
    _inputs(tmp_path, extra_result=extra_result)
    _same(tmp_path, monkeypatch, usual=False, way=way)


def _line(case: dict[str, Any]) -> str:
    return json.dumps(case, ensure_ascii=False) + "\n"


@pytest.mark.parametrize("way", FALLBACK_WAYS)
@pytest.mark.parametrize(
    ("extra_case", "usual"),
    [
        (_line(_case(5_000)) + "\n   \n", True),  # blank lines are skipped alike
        (_line(_case(5_000) | {"metadata": {"a": 1}}), False),  # not the usual case line
        (_line(_case(5_000) | {"accepted_facts": ["g"]}), False),
        (_line(_case(5_000) | {"question": 'a "quoted"\n question'}), False),
        (_line(_case(5_000) | {"synthetic": "yes"}), False),
        (_line(_case(1)), False),  # an id of the first half repeated in the second
        (_line(_case(2_999)), False),  # one of the second half repeated
        ('{"id": "C5000", "slice": "s"}\n', False),  # no label
        ('{"id": "C5000", "slice": "s", "question": "q", "expected_behavior": "maybe"}\n', False),
        ("{not json\n", False),
        ("[1, 2]\n", False),
    ],
)
def test_datasets_it_does_not_cover_are_scored_or_refused_alike(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    extra_case: str,
    usual: bool,
    way: tuple[str, ...],
) -> None:
    _inputs(tmp_path, extra_case=extra_case)
    _same(tmp_path, monkeypatch, usual=usual, way=way)


@pytest.mark.parametrize("way", FALLBACK_WAYS)
def test_a_dataset_with_a_changelog_is_scored_the_usual_way(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, way: tuple[str, ...]
) -> None:
    _inputs(tmp_path)
    entry = {"version": "sha256:x", "date": "2026-01-01", "author": "a", "reason": "r"}
    (tmp_path / "cases.jsonl.changelog.jsonl").write_text(json.dumps(entry) + "\n")
    _same(tmp_path, monkeypatch, usual=False, way=way)


@pytest.mark.parametrize("fmt", ["json", "text", "markdown", "junit", "html"])
def test_an_existing_file_that_is_no_report_is_never_replaced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fmt: str
) -> None:
    _inputs(tmp_path)
    monkeypatch.setattr(_aside, "ASIDE_BYTES", 0)
    monkeypatch.setattr(_halves, "HALVES_BYTES", 0)
    notes = tmp_path / "notes.json"
    notes.write_text('{"mine": true}\n')
    done = run_cli("score", "cases.jsonl", "results.jsonl", "-f", fmt, "-o", notes, cwd=tmp_path)
    assert done.returncode == 2
    assert "not an assay report" in done.stderr and "Traceback" not in done.stderr
    assert notes.read_text() == '{"mine": true}\n'


cases_of = st.fixed_dictionaries(
    {
        "slice": st.sampled_from(["a", "b", "ü"]),
        "abstain": st.booleans(),
        "synthetic": st.booleans(),
        "split": st.sampled_from([None, "dev", "heldout"]),
        "revision": st.sampled_from([None, "r1", "r2"]),
        "result": st.sampled_from([None, *range(len(KINDS))]),
    }
)


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    st.lists(cases_of, min_size=2, max_size=60),
    st.randoms(use_true_random=False),
    st.sampled_from(WAYS),
)
def test_any_usual_files_give_the_report_written_here(
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
    drawn: list[dict[str, Any]],
    order: Any,
    way: tuple[str, ...],
) -> None:
    directory = tmp_path_factory.mktemp("halves")
    lines = []
    with (directory / "cases.jsonl").open("w") as c:
        for i, d in enumerate(drawn):
            case = {"id": f"K{i}", "slice": d["slice"], "question": f"q{i}"}
            case |= {"expected_behavior": "abstain" if d["abstain"] else "answer"}
            case |= {"expected_fact": None if d["abstain"] else "f"}
            case |= {"synthetic": d["synthetic"]} if d["synthetic"] else {}
            case |= {"split": d["split"]} if d["split"] else {}
            case |= {"source_revision": d["revision"]} if d["revision"] else {}
            c.write(_line(case))
            if d["result"] is not None:
                lines.append(json.dumps({"id": f"K{i}", **KINDS[d["result"]]}) + "\n")
    order.shuffle(lines)  # results in any order
    (directory / "results.jsonl").write_text("".join(lines))
    if not lines:
        return  # an empty results file is not read aside
    with monkeypatch.context() as patched:
        _same(directory, patched, usual=True, way=way)


CHUNKED_WAYS = [WAYS[6], WAYS[7], WAYS[8], ("-f", "html")]
"""JUnit XML and HTML, to a file and to stdout: the formats whose rows the second process
renders."""


def _small_chunks(monkeypatch: pytest.MonkeyPatch, size: int) -> None:
    """Renderers reading rows ``size`` at a time (HTML: packed, parts of half as many)."""
    monkeypatch.setattr(junit, "_ROWS_PER_PART", size)
    monkeypatch.setattr(html, "PACKED_ABOVE", 0)
    monkeypatch.setattr(packed, "SEARCH_PART_ROWS", 2 * size)
    monkeypatch.setattr(packed, "PACKED_PART_ROWS", size)


def _made_here(monkeypatch: pytest.MonkeyPatch, fails: bool = False) -> list[int]:
    """How many rows the command made here again of the second process's, each time it
    did (``fails``: it could not)."""
    made: list[int] = []
    again = _halves._made_again

    def counted(*args: Any) -> list[tuple[Any, ...]]:
        if fails:
            made.append(0)
            raise OSError("the second half of the case rows could not be made")
        rows = again(*args)
        made.append(len(rows))
        return rows

    monkeypatch.setattr(_halves, "_made_again", counted)
    return made


@pytest.mark.parametrize("way", CHUNKED_WAYS)
@pytest.mark.parametrize("size", [7, 64, 500, 5_000])
def test_the_rows_the_second_process_renders_are_those_rendered_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, way: tuple[str, ...], size: int
) -> None:
    """Whatever the chunk size (one part's rows rarely fill their last chunk; 5,000 is
    more rows than the dataset has), the chunks are those one process renders."""
    _inputs(tmp_path)
    _small_chunks(monkeypatch, size)
    again = _made_here(monkeypatch)
    assert _same(tmp_path, monkeypatch, usual=True, way=way) == 0
    assert again == []  # the second process rendered (or handed back) its own rows


def test_a_renderer_that_does_not_pickle_has_the_rows_handed_back_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _inputs(tmp_path)
    _small_chunks(monkeypatch, 64)

    def refused(self: Any, protocol: int) -> Any:
        raise TypeError("not picklable")

    monkeypatch.setattr(junit._HeldCases, "__reduce_ex__", refused)
    again = _made_here(monkeypatch)
    assert _same(tmp_path, monkeypatch, usual=True, way=WAYS[6]) == 0
    assert again == []


WRITE_ASKED = _halves._write_asked


def _dies(how: str, after: int) -> Callable[..., None]:
    """``_write_asked`` in a second process that dies (``how``: by a signal, of an
    exception) once it has written the rows it hands back and ``after`` of its chunks."""

    def dying(rows: list[tuple[Any, ...]], asked: _halved_rows.Asked, out: Any) -> None:
        WRITE_ASKED(rows[: asked.handed + after * asked.size], asked, out)
        if how == "signal":
            os.kill(os.getpid(), signal.SIGKILL)
        raise RuntimeError("failed while rendering")

    return dying


@pytest.mark.parametrize("way", CHUNKED_WAYS)
@pytest.mark.parametrize(("how", "after"), [("signal", 0), ("signal", 3), ("exception", 5)])
def test_a_second_process_that_fails_while_rendering_has_its_rows_made_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, way: tuple[str, ...], how: str, after: int
) -> None:
    _inputs(tmp_path)
    _small_chunks(monkeypatch, 64)
    monkeypatch.setattr(_halves, "_write_asked", _dies(how, after))
    again = _made_here(monkeypatch)
    assert _same(tmp_path, monkeypatch, usual=True, way=way) == 0
    assert len(again) == 1 and again[0] > 1_000  # every row of the second part, once


@pytest.mark.parametrize("way", [WAYS[6], WAYS[8]])
def test_a_second_process_gone_before_it_is_asked_has_its_rows_made_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, way: tuple[str, ...]
) -> None:
    _inputs(tmp_path)
    _small_chunks(monkeypatch, 64)
    ask = _halves._SecondHalf.ask

    def gone(self: Any, asked: _halved_rows.Asked) -> bool:
        os.kill(self._child.pid, signal.SIGKILL)
        return ask(self, asked)

    monkeypatch.setattr(_halves._SecondHalf, "ask", gone)
    again = _made_here(monkeypatch)
    assert _same(tmp_path, monkeypatch, usual=True, way=way) == 0
    assert len(again) == 1 and again[0] > 1_000


@pytest.mark.parametrize("fmt", ["junit", "html"])
def test_rows_that_cannot_be_made_at_all_fail_clearly_and_replace_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fmt: str
) -> None:
    """The second process killed while it renders, and its rows not made here either:
    the command says so and leaves the report written before as it was."""
    _inputs(tmp_path)
    _small_chunks(monkeypatch, 64)
    report = tmp_path / f"out.{fmt}"
    args = ("score", "cases.jsonl", "results.jsonl", "-f", fmt, "-o", report.name)
    assert run_cli(*args, cwd=tmp_path).returncode == 0
    written = report.read_bytes()
    monkeypatch.setattr(_aside, "ASIDE_BYTES", 0)
    monkeypatch.setattr(_halves, "HALVES_BYTES", 0)
    monkeypatch.setattr(_halves, "_write_asked", _dies("signal", 2))
    again = _made_here(monkeypatch, fails=True)
    done = run_cli(*args, cwd=tmp_path)
    assert done.returncode == 2 and again == [0], done.stderr
    assert "could not be made" in done.stderr and "Traceback" not in done.stderr
    assert report.read_bytes() == written
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []
