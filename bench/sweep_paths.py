"""Run assay command lines naming a path the system refuses; count exits and tracebacks.

Every place a command or a suite names a path gets a 300-character file name (longer than
any file system allows) and a path under a file; a clean refusal is exit 2 with one
message and no traceback. Run from a copy of examples/policy:

    cp -r examples/policy /tmp/sweep && cd /tmp/sweep
    PYTHONPATH=<checkout>/src <venv>/bin/python <checkout>/bench/sweep_paths.py
"""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

L = "n" * 300


def suite(name, **kv):
    lines = [
        "dataset: " + kv.pop("dataset", "policy.jsonl"),
        "target:",
        "  type: function",
        "  callable: keyword_assistant:answer",
    ]
    for k, v in kv.items():
        lines.append(f"{k}: {v}")
    Path(name).write_text("\n".join(lines) + "\n", encoding="utf-8")


cases = []
for tag, bad in (("long", L), ("under-file", "policy.jsonl/x")):
    suite(f"s-{tag}-dataset.yaml", dataset=bad + ".jsonl")
    suite(f"s-{tag}-profile.yaml", grader=f"{{type: composite, profile: {bad}.yaml}}")
    suite(f"s-{tag}-gsources.yaml", grader=f"{{type: composite, sources: {bad}.yaml}}")
    suite(f"s-{tag}-settings.yaml", grader=f"{{type: judge, settings: {bad}.yaml}}")
    suite(f"s-{tag}-prices.yaml", prices=f"{bad}.yaml")
    suite(f"s-{tag}-cache.yaml", cache=f"{{path: {bad}.db}}")
    Path(f"d-{tag}-sources.yaml").write_text(
        f"sources: {bad}.yaml\ncases:\n  - {{id: E1, question: q, expected: answer, fact: f}}\n",
        encoding="utf-8",
    )
    for field in ("dataset", "profile", "gsources", "settings", "prices", "cache"):
        cases.append(["run", f"s-{tag}-{field}.yaml", "--store", "sqlite:///st.db"])
        cases.append(["run", f"s-{tag}-{field}.yaml", "--dry-run"])
        cases.append(["coverage", f"s-{tag}-{field}.yaml"])
    cases.append(["validate", f"d-{tag}-sources.yaml"])
    cases.append(["score", f"d-{tag}-sources.yaml", "results.jsonl"])
    p = bad + ".jsonl"
    cases += [
        ["validate", p],
        ["dedupe", p],
        ["coverage", p],
        ["split", p, "--seed", "1"],
        ["split", "policy.jsonl", "--seed", "1", "-o", p],
        ["dedupe", "policy.jsonl", "--write", p],
        ["diff-dataset", p, "policy.jsonl"],
        ["diff-dataset", "policy.jsonl", p],
        ["run", bad + ".yaml"],
        ["run", "suite.yaml", "--prices", bad + ".yaml", "--store", "sqlite:///st.db"],
        ["run", "suite.yaml", "--cache", "--cache-path", bad + ".db", "--store", "sqlite:///st.db"],
        ["run", "suite.yaml", "-o", bad + ".txt", "--store", "sqlite:///st.db"],
        ["score", p, "results.jsonl"],
        ["score", "policy.jsonl", p],
        ["score", "policy.jsonl", "results.jsonl", "--grader", bad + ".yaml"],
        ["composite", p, "results.jsonl"],
        ["composite", "policy.jsonl", "results.jsonl", "-p", bad + ".yaml"],
        ["composite", "policy.jsonl", "results.jsonl", "--sources", bad + ".yaml"],
        ["calibrate", p, "r.json"],
        ["calibrate", "policy.jsonl", bad + ".json"],
        ["compare", bad + ".json", bad + ".json"],
        ["gate", bad + ".json", "-r", "task_success>=0"],
        ["gate", "x.json", "-r", "task_success>=0", "--junit", bad + ".xml"],
        ["cases", "add", p, "--who", "a", "--why", "b"],
        ["import", "inspect", bad + ".eval"],
        ["export", "r-1", "-f", "inspect", "-o", bad + ".eval", "--store", "sqlite:///st.db"],
        ["cache", "stats", "--cache-path", bad + ".db"],
        ["cache", "clear", "--cache-path", bad + ".db"],
        ["init", bad],
        ["trend", bad + ".yaml", "--store", "sqlite:///st.db"],
    ]
env = dict(os.environ)
stats = {"total": 0, "exit2": 0, "other": 0, "traceback": 0, "slow": 0}
bad_ones = []
for args in cases:
    t = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "assay", *args], capture_output=True, text=True, env=env, timeout=120
    )
    dt = time.perf_counter() - t
    stats["total"] += 1
    tb = "Traceback" in done.stderr
    stats["traceback"] += tb
    stats["slow"] += dt > 10
    if done.returncode == 2 and not tb:
        stats["exit2"] += 1
    else:
        stats["other"] += 1
        bad_ones.append(
            (
                args[:2] + [a[:40] for a in args[2:]],
                done.returncode,
                tb,
                done.stderr.strip().splitlines()[-1][:200]
                if done.stderr.strip()
                else done.stdout[-200:],
            )
        )
print(json.dumps(stats))
for b in bad_ones:
    print(b)
