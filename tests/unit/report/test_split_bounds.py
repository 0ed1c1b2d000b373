"""The dev and held-out blocks' worst and best case over their unknowns: ``rate_bounds`` of
each block's own counts, shown in every format, absent from a block that has none."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

from tests.unit.report.conftest import EXAMPLES

from assay.cases import Dataset
from assay.grading import grade_all
from assay.load import load_dataset, load_results
from assay.render import render
from assay.render.text import render_text
from assay.report import Report, build_report
from assay.report._correction import rate_bounds

HELD_OUT = ("E5", "E6", "E7")  # E5 an error, E7 missing: the held-out split's unknowns


def _split_report() -> Report:
    data = load_dataset(EXAMPLES / "policy-e7.jsonl")
    cases = tuple(
        c.model_copy(update={"split": "heldout" if c.id in HELD_OUT else "dev"}) for c in data.cases
    )
    split = Dataset(name=data.name, cases=cases)
    return build_report(split, grade_all(split, load_results(EXAMPLES / "results.jsonl")))


def test_each_split_has_the_bounds_of_its_own_counts() -> None:
    report = _split_report()
    assert report.splits is not None
    dev, held = report.splits
    assert dev.unknown_bounds is None  # no unknowns in dev
    assert held.unknown_bounds is not None
    assert held.unknown_bounds.task_success == rate_bounds(held.task_success, 2)
    t = held.unknown_bounds.task_success
    assert (t.unknown, t.worst.numerator, t.best.numerator, t.worst.denominator) == (2, 0, 2, 3)
    assert t.worst.denominator_name == "cases in the held-out split"
    coverage = held.unknown_bounds.answer_coverage
    assert coverage == rate_bounds(held.answer_coverage, 2, held.answered_unknown)


def test_the_bounds_are_in_the_json_only_where_they_apply_and_read_back() -> None:
    report = _split_report()
    written = json.loads(render(report, "json"))
    dev, held = written["splits"]
    assert "unknown_bounds" not in dev and "answered_unknown" not in dev
    assert held["unknown_bounds"]["task_success"]["best"]["numerator"] == 2
    again = Report.model_validate(written)
    assert again.splits == report.splits
    del held["unknown_bounds"]  # a report written before split blocks had bounds
    derived = Report.model_validate(written).splits[1].unknown_bounds  # type: ignore[index]
    assert derived is not None and report.splits is not None
    assert derived.task_success == rate_bounds(report.splits[1].task_success, 2)
    assert derived.answer_coverage is None  # without the count of unknown answers


def test_every_format_shows_the_held_out_bounds() -> None:
    report = _split_report()
    said = (
        "heldout · Unknowns: 2 of 3 cases are error, missing or ungraded: task success is "
        "0.0% [0.0%, 70.8%] if all failed (worst case), 66.7% [9.4%, 99.2%] if all passed"
    )
    text = render_text(report, width=400)
    assert said in text and "dev · Unknowns" not in text
    assert said.replace("[", "\\[").replace("]", "\\]") in render(report, "markdown")
    assert said in render(report, "html")
    xml = render(report, "junit")
    suites = {s.get("name", ""): s for s in ET.fromstring(xml).iter("testsuite")}
    held = suites[f"assay cases: {report.dataset.name} (HELD-OUT)"]
    props = {p.get("name"): p.get("value") for p in held.iter("property")}
    assert props["split.task_success.worst"] == "0/3"
    assert props["split.task_success.best"] == "2/3"
    assert (props["split.task_success.bounds"] or "").startswith(said)
    dev = suites[f"assay cases: {report.dataset.name} (dev)"]
    assert "split.task_success.worst" not in {p.get("name") for p in dev.iter("property")}
