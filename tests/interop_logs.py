"""Logs of the shapes inspect_ai and promptfoo write, generated at any size for the tests."""

from __future__ import annotations

import json
import struct
import zipfile
import zlib
from pathlib import Path
from typing import Any

import zstandard

DATA = Path(__file__).resolve().parent / "data" / "interop"
ZSTANDARD = 93  # the zip compression method inspect_ai writes its .eval members with


def inspect_sample(
    sample_id: int | str,
    epoch: int = 1,
    *,
    value: Any = "C",
    error: str | None = None,
    scorer: str = "match",
) -> dict[str, Any]:
    """One inspect sample as its logs record it (scores omitted when ``value`` is None)."""
    sample: dict[str, Any] = {
        "id": sample_id,
        "epoch": epoch,
        "input": f"question {sample_id}",
        "target": f"answer {sample_id}",
        "messages": [],
        "output": {
            "model": "m",
            "choices": [{"message": {"role": "assistant", "content": f"reply {sample_id}"}}],
        },
        "scores": {} if value is None else {scorer: {"value": value, "answer": "x"}},
        "metadata": {},
        "model_usage": {"openai/m": {"input_tokens": 10, "output_tokens": 2}},
        "total_time": 0.5,
    }
    if error is not None:
        sample["error"] = {"message": error, "traceback": "Traceback..."}
        sample["scores"] = {}
    return sample


def inspect_log(
    samples: list[dict[str, Any]],
    *,
    sample_ids: list[int | str],
    epochs: int = 1,
    status: str = "success",
    accuracy: float | None = None,
    scorer: str = "match",
) -> dict[str, Any]:
    """A whole inspect log (version 2) holding ``samples``."""
    scored = [s for s in samples if s["scores"]]
    scores = []
    if accuracy is not None:
        scores = [
            {
                "name": scorer,
                "scorer": scorer,
                "scored_samples": len(scored),
                "metrics": {"accuracy": {"name": "accuracy", "value": accuracy}},
            }
        ]
    return {
        "version": 2,
        "status": status,
        "eval": {
            "run_id": "r1",
            "created": "2026-01-02T03:04:05+00:00",
            "task": "generated",
            "dataset": {"name": "generated", "samples": len(sample_ids), "sample_ids": sample_ids},
            "model": "openai/m",
            "config": {"epochs": epochs},
            "packages": {"inspect_ai": "0.3.99"},
            "scorers": [{"name": scorer}],
        },
        "results": {"total_samples": len(samples), "scores": scores},
        "stats": {"started_at": "2026-01-02T03:04:05+00:00"},
        "samples": samples,
    }


def write_json_log(path: Path, log: dict[str, Any]) -> Path:
    """``log`` as an inspect ``.json`` file."""
    path.write_text(json.dumps(log), encoding="utf-8")
    return path


def eval_members(log: dict[str, Any]) -> dict[str, bytes]:
    """The members of ``log`` as an inspect ``.eval`` archive: header.json, one per sample."""
    header = {k: v for k, v in log.items() if k != "samples"}
    members = {"header.json": json.dumps(header).encode()}
    for sample in log["samples"]:
        name = f"samples/{sample['id']}_epoch_{sample['epoch']}.json"
        members[name] = json.dumps(sample).encode()
    return members


def write_eval_log(path: Path, log: dict[str, Any], *, method: int = zipfile.ZIP_DEFLATED) -> Path:
    """``log`` as an inspect ``.eval`` archive whose members use zip compression ``method``:
    deflate or LZMA by ``zipfile``, Zstandard (93) as inspect_ai writes it, any other number
    by ``zip_bytes``."""
    members = eval_members(log)
    if method in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA):
        with zipfile.ZipFile(path, "w", method) as archive:
            for name, data in members.items():
                archive.writestr(name, data)
    else:
        path.write_bytes(zip_bytes(members, method=method))
    return path


def zip_bytes(
    members: dict[str, bytes],
    *,
    method: int = ZSTANDARD,
    frames: int = 1,
    flags: int = 0,
) -> bytes:
    """A zip archive of ``members`` built byte by byte, as ``zipfile`` cannot write it:
    method 93 compresses each member with Zstandard (in ``frames`` frames, the content size
    left out of each frame's header as a streaming writer leaves it); any other method stores
    the bytes as they are under that method's number."""
    local_header = struct.Struct("<4s5H3L2H")
    directory_entry = struct.Struct("<4s6H3L5H2L")
    end = struct.Struct("<4s4H2LH")
    body, directory = bytearray(), bytearray()
    for name, data in members.items():
        stored = data
        if method == ZSTANDARD:
            step = -(-len(data) // frames) or 1
            chunks = [data[i : i + step] for i in range(0, len(data), step)] or [b""]
            compressor = zstandard.ZstdCompressor(write_content_size=False)
            stored = b"".join(compressor.compress(chunk) for chunk in chunks)
        encoded, crc = name.encode(), zlib.crc32(data)
        offset = len(body)
        version = 63  # 6.3: the version of the zip format that names Zstandard
        body += local_header.pack(
            b"PK\x03\x04",
            version,
            flags,
            method,
            0,
            0x21,
            crc,
            len(stored),
            len(data),
            len(encoded),
            0,
        )
        body += encoded + stored
        directory += directory_entry.pack(
            b"PK\x01\x02",
            version,
            version,
            flags,
            method,
            0,
            0x21,
            crc,
            len(stored),
            len(data),
            len(encoded),
            0,
            0,
            0,
            0,
            0,
            offset,
        )
        directory += encoded
    count = len(members)
    tail = end.pack(b"PK\x05\x06", 0, 0, count, count, len(directory), len(body), 0)
    return bytes(body + directory + tail)


def promptfoo_row(
    test: int,
    provider: str,
    *,
    success: bool = True,
    error: str | None = None,
    components: list[dict[str, Any]] | None = None,
    prompt: str = "p1",
    column: int = 0,
    test_idx: int | None = None,
) -> dict[str, Any]:
    """One promptfoo result row (version 3) of test ``test`` (its vars and assertions),
    prompt ``prompt`` and results column ``column`` (``promptIdx``). ``test_idx`` is the
    row's ``testIdx`` when not ``test`` (promptfoo numbers each repeat of a test apart)."""
    components = components or [
        {
            "pass": success,
            "score": 1 if success else 0,
            "reason": "ok" if success else "no",
            "assertion": {"type": "contains", "value": "x"},
        }
    ]
    row: dict[str, Any] = {
        "testIdx": test if test_idx is None else test_idx,
        "promptIdx": column,
        "promptId": prompt,
        "prompt": (
            {"raw": f"question {test}", "label": "Q: {{q}}"}
            if prompt == "p1"
            else {"raw": f"{prompt}: question {test}", "label": prompt}
        ),
        "provider": {"id": provider, "label": ""},
        "vars": {"q": f"question {test}"},
        "testCase": {
            "vars": {"q": f"question {test}"},
            "assert": [{"type": "contains", "value": "x"}],
        },
        "response": {"output": f"answer {test}", "tokenUsage": {"prompt": 5, "completion": 3}},
        "success": success,
        "score": 1.0 if success else 0.0,
        "latencyMs": 100,
        "gradingResult": {
            "pass": success,
            "score": 1.0 if success else 0.0,
            "componentResults": components,
        },
        "failureReason": 0 if success else 1,
    }
    if error is not None:
        row.update(
            success=False,
            error=error,
            failureReason=2,
            response={"error": error},
            gradingResult=None,
        )
    return row


def promptfoo_export(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """A whole ``promptfoo export`` holding ``rows``."""
    return {
        "evalId": "eval-1",
        "results": {
            "version": 3,
            "timestamp": "2026-01-02T03:04:05Z",
            "prompts": [],
            "results": rows,
            "stats": {},
        },
        "config": {},
        "metadata": {"promptfooVersion": "0.118.10"},
    }


def promptfoo_columns(path: Path) -> dict[str, dict[str, int]]:
    """A promptfoo file's own counts per results column (``[provider] prompt label`` from
    its ``prompts`` table, read by ``promptIdx``): rows, passed, errors (failureReason 2)
    and failed (the rest)."""
    results = json.loads(path.read_text(encoding="utf-8"))["results"]
    heads = [f"[{p['provider']}] {p['label']}" for p in results["prompts"]]
    columns: dict[str, dict[str, int]] = {}
    for row in results["results"]:
        counts = columns.setdefault(
            heads[row["promptIdx"]], dict.fromkeys(("rows", "passed", "errors", "failed"), 0)
        )
        counts["rows"] += 1
        if row["success"] is True:
            counts["passed"] += 1
        elif row.get("failureReason") == 2:
            counts["errors"] += 1
        else:
            counts["failed"] += 1
    return columns
