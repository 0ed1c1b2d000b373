"""The stored runs, a dataset's problems, its duplicate clusters, the changes between two
dataset versions and the response cache's contents, as documents (text) or JSON.

Long listings (thousands of problems or clusters) are drawn as ``Preformatted`` lines,
which the text writer writes by hand: rich would take seconds over them.
"""

from __future__ import annotations

import json
from typing import Any

from assay.cases import diff_json, diff_lines
from assay.metrics import percent
from assay.render.document import Column, Document, Lines, Preformatted, table
from assay.render.text_writer import write_text
from assay.report import (
    CacheContents,
    DatasetChanges,
    Duplicates,
    RunListing,
    Validation,
)

Listing = RunListing | Validation | Duplicates | DatasetChanges | CacheContents

RUN_COLUMNS = (
    "Run",
    "Started (UTC)",
    "Suite",
    "Dataset",
    "Target",
    "Split",
    "Status",
    "Task success",
    "Tags",
    "Tokens · cost",
    "Calibration",
)
NO_RUNS = "no stored runs (run a suite with `assay run SUITE`)"
RUNS_WIDTH = 216


def render_listing(listing: Listing, fmt: str, *, color: bool = False) -> str:
    """``listing`` as terminal text (``fmt`` "text") or JSON, ending with a newline."""
    if fmt == "json":
        return _json(listing)
    width = RUNS_WIDTH if isinstance(listing, RunListing) else 120
    return write_text(document(listing), color=color, width=width)


def document(listing: Listing) -> Document:
    """What the text of ``listing`` shows."""
    if isinstance(listing, RunListing):
        return _runs(listing)
    if isinstance(listing, Validation):
        return _validation(listing)
    if isinstance(listing, Duplicates):
        return _duplicates(listing)
    if isinstance(listing, DatasetChanges):
        return _changes(listing)
    return _cache(listing)


def _json(listing: Listing) -> str:
    body: Any
    if isinstance(listing, RunListing):
        return json.dumps([dict(row) for row in listing.rows], indent=2) + "\n"
    if isinstance(listing, CacheContents):
        body = {
            "path": listing.path,
            "entries": listing.entries,
            "bytes": listing.bytes,
            "oldest": listing.oldest,
            "newest": listing.newest,
            "by_key_version": dict(listing.by_key_version),
            "key_version": listing.key_version,
        }
        return json.dumps(body, indent=2) + "\n"
    if isinstance(listing, Validation):
        body = {
            "dataset": listing.dataset,
            "cases": listing.cases,
            "errors": listing.errors,
            "warnings": listing.warnings,
            "strict": listing.strict,
            "problems": [f.as_json() for f in listing.findings],
        }
    elif isinstance(listing, Duplicates):
        body = {
            "dataset": listing.dataset,
            "cases": listing.cases,
            "shingle": listing.shingle,
            "threshold": listing.threshold,
            "clusters": [
                {
                    "kept": c.members[0].case_id,
                    "members": [{"id": m.case_id, "similarity": m.similarity} for m in c.members],
                }
                for c in listing.clusters
            ],
            "duplicates": listing.dropped,
        }
    else:
        sides = {"old": listing.old, "new": listing.new}
        body = {
            **{
                k: {"path": v.path, "version": v.version, "cases": v.cases}
                for k, v in sides.items()
            },
            **diff_json(listing.diff),
        }
    return json.dumps(body, indent=2, ensure_ascii=False) + "\n"


def _runs(listing: RunListing) -> Document:
    if not listing.rows:
        return Document((Lines((NO_RUNS,)),))
    rows = [
        (
            r["id"] + (f" ({r['name']})" if r["name"] else ""),
            r["started_at"][:19].replace("T", " "),
            r["suite_name"] or r["suite"] or "–",
            f"{r['dataset']} {r['dataset_version'].removeprefix('sha256:')[:12]}",
            r["target"],
            r["split_label"] or "–",
            r["status"],
            _success(r),
            ", ".join(r["tags"]) or "–",
            _usage(r),
            _calibration(r),
        )
        for r in listing.rows
    ]
    columns = [Column(name, overflow="ellipsis") for name in RUN_COLUMNS]
    return Document((table(columns, rows, padded=True),))


# The calibration cell's width at most: what differs is cut there in the table (the JSON
# and ``assay report RUN`` give it whole), so the figures beside it keep their width.
_CALIBRATION_WIDTH = 40


def _calibration(row: Any) -> str:
    """'applies', 'stale: the calibration report is for judge v1+…', 'none' or '-'."""
    state = str(row.get("calibration") or "-")
    if len(state) <= _CALIBRATION_WIDTH:
        return state
    return state[: _CALIBRATION_WIDTH - 1] + "…"


def _usage(row: Any) -> str:
    """'in 12,345 / out 1,210 (38 of 40 reported) · $0.0026'; '–' for runs stored before
    usage was summarized, 'n/a' when no case-trial reported usage."""
    n = row["case_trials"]
    if n is None:
        return "–"
    if not row["usage_reported"]:
        text = f"n/a (0 of {n} reported)"
    else:
        tokens = [row["input_tokens"], row["output_tokens"]]
        shown = ["n/a" if t is None else f"{t:,}" for t in tokens]
        text = f"in {shown[0]} / out {shown[1]} ({row['usage_reported']} of {n} reported)"
    cost = row["cost_usd"]
    text += f" · ${cost:.4g}" if cost is not None else ""
    if row["cached"]:
        avoided = row["cost_avoided_usd"]
        saved = f"; ${avoided:.4g} avoided" if avoided is not None else ""
        text += f" · {row['cached']} cached{saved}"
    return text


def _success(row: Any) -> str:
    """'22/44 (50.0%) 95% CI [28.2%, 71.8%]'; runs stored before intervals were kept say
    where to find theirs."""
    value = row["task_success"]
    if value is None:
        return "–" if row["status"] == "running" else "n/a"
    text = f"{row['task_success_fraction']} ({percent(value)})"
    ci, level = row["task_success_ci"], row["task_success_confidence"]
    if ci is None or level is None:
        text = f"{text} (interval: assay report)"
    else:
        text = f"{text} {level:.0%} CI [{percent(ci[0])}, {percent(ci[1])}]"
    if row.get("task_success_policy"):
        text += f" {row['task_success_policy']}; per trial {row['per_trial_task_success_fraction']}"
    return text


def _validation(v: Validation) -> Document:
    lines: list[str] = []
    for f in v.findings:
        where = f"{f.location}: " if f.location is not None else ""
        lines += [f"{where}{f.severity} [{f.code}] {f.message}", f"    fix: {f.fix}"]
    verdict = "clean" if not v.findings else f"{v.errors} error(s), {v.warnings} warning(s)"
    summary = f"assay validate · {v.dataset} · {v.cases} valid case(s) · {verdict}"
    return Document((Preformatted(tuple(lines)), Lines((summary,))))


def _duplicates(d: Duplicates) -> Document:
    head = (
        f"assay dedupe · {d.dataset} · {d.cases} cases · shingle {d.shingle} · "
        f"threshold {d.threshold}"
    )
    lines: list[str] = []
    for n, cluster in enumerate(d.clusters, start=1):
        lines += [f"cluster {n} ({len(cluster.members)} cases):"]
        lines += [f"  {cluster.members[0].case_id}  kept"]
        lines += [f"  {m.case_id}  similarity {m.similarity:.2f}" for m in cluster.members[1:]]
    summary = f"{len(d.clusters)} cluster(s); {d.dropped} case(s) would be dropped"
    return Document((Lines((head,)), Preformatted(tuple(lines)), Lines((summary,))))


def _changes(c: DatasetChanges) -> Document:
    head = (
        f"assay diff-dataset · {c.old.path} ({c.old.version[:19]}) -> "
        f"{c.new.path} ({c.new.version[:19]})"
    )
    return Document((Lines((head,)), Preformatted(tuple(diff_lines(c.diff)))))


def _cache(c: CacheContents) -> Document:
    versions = ", ".join(f"v{k}: {v}" for k, v in c.by_key_version.items()) or "none"
    return Document(
        (
            Lines(
                (
                    f"assay cache · {c.path}",
                    f"entries: {c.entries} ({versions}; current key version {c.key_version})",
                    f"size: {c.bytes} bytes",
                    f"oldest: {c.oldest or '—'}",
                    f"newest: {c.newest or '—'}",
                )
            ),
        )
    )


__all__ = ["Listing", "document", "render_listing"]
