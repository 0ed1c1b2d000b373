"""Converts the SQuAD 2.0 subset (data/squad2-dev-subset.json) into assay files:

- squad2-sources.yaml: one source revision per paragraph (its id, e.g. normans-p07, holds
  the paragraph as its one section);
- squad2.yaml: one case per question. An answerable question expects an answer that states
  one of its accepted answer texts (a required fact whose variations are the other texts);
  an unanswerable one expects an abstention. Slices are article/answerable and
  article/unanswerable; the paragraph is the case's group and source revision;
- subset-ids.txt: the 40 cases `make demo-real` runs by default (every 16th question, so
  both articles and both kinds are in it).

Run it from anywhere: python examples/squad2/convert.py
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "data" / "squad2-dev-subset.json"
ARTICLES = {"Normans": "normans", "Computational_complexity_theory": "complexity"}
SUBSET_STEP = 16


def _distinct(texts: list[str]) -> list[str]:
    seen: dict[str, None] = {}
    for text in texts:
        seen.setdefault(text.strip(), None)
    return [t for t in seen if t]


def convert(squad: dict[str, Any]) -> tuple[list[dict[str, Any]], dict[str, dict[str, str]]]:
    """The cases and the source snapshots of a SQuAD v2 document."""
    cases: list[dict[str, Any]] = []
    sources: dict[str, dict[str, str]] = {}
    for article in squad["data"]:
        slug = ARTICLES[article["title"]]
        for p, paragraph in enumerate(article["paragraphs"]):
            revision = f"{slug}-p{p:02d}"
            sources[revision] = {revision: paragraph["context"]}
            for q, qa in enumerate(paragraph["qas"], 1):
                case: dict[str, Any] = {
                    "id": f"{revision}-q{q}",
                    "slice": f"{slug}/{'unanswerable' if qa['is_impossible'] else 'answerable'}",
                    "question": qa["question"].strip(),
                    "source_revision": revision,
                    "group": revision,
                }
                if qa["is_impossible"]:
                    case["expected_behavior"] = "abstain"
                    plausible = _distinct([a["text"] for a in qa.get("plausible_answers", [])])
                    case["rationale"] = (
                        "SQuAD 2.0 marks it unanswerable from the paragraph"
                        + (f" (a plausible but wrong answer: {plausible[0]!r})" if plausible else "")
                    )
                else:
                    texts = _distinct([a["text"] for a in qa["answers"]])
                    case["expected_behavior"] = "answer"
                    case["expected_fact"] = texts[0]
                    if texts[1:]:
                        case["accepted_facts"] = texts[1:]
                    case["rationale"] = "SQuAD 2.0 annotators' answer spans in the paragraph"
                    required: dict[str, Any] = {"fact": texts[0]}
                    if texts[1:]:
                        required["variations"] = texts[1:]
                    case["required"] = [required]
                case["metadata"] = {"squad_id": qa["id"], "article": article["title"]}
                cases.append(case)
    return cases, sources


def main() -> None:
    squad = json.loads(SOURCE.read_text(encoding="utf-8"))
    cases, sources = convert(squad)
    notice = (
        "# Derived from data/squad2-dev-subset.json by convert.py: SQuAD 2.0 (Rajpurkar, Jia &\n"
        "# Liang 2018), CC BY-SA 4.0; see data/README.md. Do not edit: re-run convert.py.\n"
    )
    dump = {"allow_unicode": True, "sort_keys": False, "width": 100}
    (HERE / "squad2-sources.yaml").write_text(
        notice + yaml.safe_dump(sources, **dump), encoding="utf-8"
    )
    dataset = {
        "name": "squad2-dev-subset",
        "description": "SQuAD 2.0 dev, articles Normans and Computational_complexity_theory",
        "sources": "squad2-sources.yaml",
        "cases": cases,
    }
    (HERE / "squad2.yaml").write_text(notice + yaml.safe_dump(dataset, **dump), encoding="utf-8")
    subset = [c["id"] for c in cases[::SUBSET_STEP]]
    (HERE / "subset-ids.txt").write_text("\n".join(subset) + "\n", encoding="utf-8")
    kinds = sum(c["expected_behavior"] == "abstain" for c in cases)
    print(f"{len(cases)} cases ({kinds} unanswerable), {len(sources)} paragraphs, "
          f"subset of {len(subset)}")


if __name__ == "__main__":
    main()
