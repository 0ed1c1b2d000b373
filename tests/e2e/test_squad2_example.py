"""examples/squad2: the converted files match their source, the suite loads, and the
default subset mixes both articles and both kinds of question."""

from __future__ import annotations

import importlib.util
import json
from collections import Counter
from pathlib import Path

import yaml

from assay.load import load_dataset, load_suite

HERE = Path(__file__).resolve().parents[2] / "examples" / "squad2"


def test_the_converted_files_are_fresh() -> None:
    spec = importlib.util.spec_from_file_location("squad2_convert", HERE / "convert.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    squad = json.loads((HERE / "data" / "squad2-dev-subset.json").read_text(encoding="utf-8"))
    cases, sources = module.convert(squad)
    assert yaml.safe_load((HERE / "squad2.yaml").read_text(encoding="utf-8"))["cases"] == cases
    assert yaml.safe_load((HERE / "squad2-sources.yaml").read_text(encoding="utf-8")) == sources


def test_the_dataset_and_suite_load() -> None:
    dataset = load_dataset(HERE / "squad2.yaml")
    assert len(dataset) == 626
    assert sum(c.expected_behavior == "abstain" for c in dataset) == 333
    assert len(dataset.sources.revisions) == 87
    suite = load_suite(HERE / "suite.yaml")
    target = suite.build_target()
    target.use_dataset(dataset)
    first = dataset.cases[0]
    messages = target.body(first)["messages"]
    assert (
        dataset.sources.revisions[first.source_revision or ""][first.source_revision or ""]
        in (messages[1]["content"])
    )
    ids = (HERE / "subset-ids.txt").read_text(encoding="utf-8").split()
    slices = Counter(dataset.get(i).slice for i in ids)  # type: ignore[union-attr]
    assert len(ids) == 40 and len(slices) == 4
