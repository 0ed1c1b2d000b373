"""The tools a user would pick instead of assay, installed and run as whole processes.

Each peer is installed by this module into its own environment under ``bench/.peers/``
(gitignored), at a pinned version, the first time it is needed: inspect_ai and
lm-evaluation-harness into their own virtualenvs, promptfoo with npm (Node.js from the
system's packages: ``apt-get install -y nodejs npm``). Every peer runs the workload of
``workload.py`` against the same mock server as assay, as its own command line would:

- inspect_ai: ``inspect eval`` of a task over the workload's samples (``includes()`` scorer)
- lm-evaluation-harness: ``lm_eval --model local-chat-completions`` on a task of the
  workload's questions (exact match of the fact after a regex filter)
- promptfoo: ``promptfoo eval`` of a config with the OpenAI chat provider pointed at the mock
  (a ``contains`` assertion on the fact)

    .venv/bin/python bench/peers.py --install     # install (or check) every peer
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from workload import MODEL, SYSTEM_PROMPT, cases

BENCH = Path(__file__).resolve().parent
PEERS = BENCH / ".peers"
KEY = "bench-not-a-secret"

INSPECT_PINS = ("inspect-ai==0.3.285", "openai==3.57.0")
LM_EVAL_PINS = ("lm-eval[api]==0.4.13",)
PROMPTFOO_PIN = "promptfoo@0.121.17"  # the newest that runs on Debian's Node.js 20


@dataclass(frozen=True)
class Peer:
    """One installed peer: how to run it over a workload folder, and its version."""

    name: str
    version: str
    prepare: str  # the function of this module that writes the peer's inputs

    def command(self, folder: Path, base_url: str, n: int, c: int) -> list[str]:
        """The command line that runs the workload written in ``folder``."""
        return COMMANDS[self.name](folder, base_url, n, c)

    def env(self, folder: Path) -> dict[str, str]:
        """The environment of the peer's process (API key, no telemetry, files in folder)."""
        return {
            **os.environ,
            "OPENAI_API_KEY": KEY,
            "MOCK_API_KEY": KEY,
            "INSPECT_LOG_DIR": str(folder / "logs"),
            "INSPECT_DISPLAY": "none",
            "PROMPTFOO_DISABLE_TELEMETRY": "1",
            "PROMPTFOO_DISABLE_UPDATE": "1",
            "PROMPTFOO_CONFIG_DIR": str(folder / "promptfoo-home"),
            "PROMPTFOO_CACHE_ENABLED": "false",
            "HF_HUB_OFFLINE": "1",
            "HF_DATASETS_OFFLINE": "1",
            "HF_HOME": str(folder / "hf-home"),
            "TOKENIZERS_PARALLELISM": "false",
        }


def _run(step: list[str], log: list[str], cwd: Path | None = None) -> str | None:
    """Run one installation step; None when it worked, else why not."""
    log.append(" ".join(step))
    done = subprocess.run(step, capture_output=True, text=True, cwd=cwd, timeout=1200)
    if done.returncode == 0:
        return None
    tail = " / ".join((done.stderr or done.stdout).strip().splitlines()[-3:])
    return f"`{' '.join(step)}` failed: {tail}"


def _pinned_probe(pins: tuple[str, ...]) -> str:
    """Python code that fails unless every ``name[extra]==version`` pin is installed."""
    checks = []
    for pin in pins:
        name, version = pin.split("==")
        checks.append(f"assert m.version({name.split('[')[0]!r}) == {version!r}")
    return "import importlib.metadata as m\n" + "\n".join(checks)


def _venv(name: str, pins: tuple[str, ...], log: list[str]) -> tuple[Path | None, str]:
    """A virtualenv under ``.peers/`` with ``pins`` installed; its python or None and why."""
    home = PEERS / name
    python = home / "bin" / "python"
    probe = [str(python), "-c", _pinned_probe(pins)]
    if python.exists() and subprocess.run(probe, capture_output=True).returncode == 0:
        return python, ""
    for step in (
        [sys.executable, "-m", "venv", "--clear", str(home)],
        [str(python), "-m", "pip", "install", "--quiet", *pins],
    ):
        why = _run(step, log)
        if why is not None:
            return None, why
    return python, ""


def _version(python: Path, package: str) -> str:
    code = f"import importlib.metadata as m; print(m.version({package!r}))"
    done = subprocess.run([str(python), "-c", code], capture_output=True, text=True)
    return done.stdout.strip() or "unknown"


def install(log: list[str]) -> tuple[list[Peer], dict[str, str]]:
    """Every peer that is (or could now be) installed, and why any other is missing."""
    found: list[Peer] = []
    missing: dict[str, str] = {}
    python, why = _venv("inspect", INSPECT_PINS, log)
    if python is None:
        missing["inspect_ai"] = why
    else:
        found.append(Peer("inspect_ai", _version(python, "inspect-ai"), "inspect"))
    python, why = _venv("lm-eval", LM_EVAL_PINS, log)
    if python is None:
        missing["lm-eval"] = why
    else:
        found.append(Peer("lm-eval", _version(python, "lm-eval"), "lm_eval"))
    version, why = _promptfoo(log)
    if version is None:
        missing["promptfoo"] = why
    else:
        found.append(Peer("promptfoo", version, "promptfoo"))
    return found, missing


def _promptfoo(log: list[str]) -> tuple[str | None, str]:
    """promptfoo installed with npm under ``.peers/promptfoo``: its version or why not."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        return None, "Node.js is not installed (as root: apt-get install -y nodejs npm)"
    home = PEERS / "promptfoo"
    package = home / "node_modules" / "promptfoo" / "package.json"
    pinned = PROMPTFOO_PIN.split("@", 1)[1]
    installed = json.loads(package.read_text(encoding="utf-8")) if package.exists() else {}
    if installed.get("version") != pinned:
        # npm over another version's tree can leave a mix of both: start from nothing.
        shutil.rmtree(home, ignore_errors=True)
        home.mkdir(parents=True)
        step = ["npm", "install", "--no-audit", "--no-fund", "--prefix", str(home), PROMPTFOO_PIN]
        why = _run(step, log)
        if why is not None:
            return None, why
    node = subprocess.run(["node", "--version"], capture_output=True, text=True).stdout.strip()
    version = json.loads(package.read_text(encoding="utf-8"))["version"]
    return f"{version} (Node.js {node})", ""


# What each peer reads, written into the repetition's folder.


def prepare(peer: Peer, folder: Path, n: int) -> None:
    """Write the peer's inputs for ``n`` cases into ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    {"inspect": _inspect_files, "lm_eval": _lm_eval_files, "promptfoo": _promptfoo_files}[
        peer.prepare
    ](folder, n)


def _inspect_files(folder: Path, n: int) -> None:
    records = [
        {"id": r["id"], "input": r["question"], "target": r["expected_fact"]} for r in cases(n)
    ]
    (folder / "samples.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    (folder / "task.py").write_text(
        "import json\n"
        "from pathlib import Path\n\n"
        "from inspect_ai import Task, task\n"
        "from inspect_ai.dataset import Sample\n"
        "from inspect_ai.scorer import includes\n"
        "from inspect_ai.solver import generate, system_message\n\n\n"
        "@task\n"
        "def workload():\n"
        "    lines = (Path(__file__).parent / 'samples.jsonl').read_text().splitlines()\n"
        "    samples = [Sample(**json.loads(line)) for line in lines]\n"
        f"    solver = [system_message({SYSTEM_PROMPT!r}), generate()]\n"
        "    return Task(dataset=samples, solver=solver, scorer=includes())\n"
    )


def _lm_eval_files(folder: Path, n: int) -> None:
    records = [{"question": r["question"], "fact": r["expected_fact"]} for r in cases(n)]
    (folder / "workload.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    task = {
        "task": "assay_workload",
        "dataset_path": "json",
        "dataset_kwargs": {"data_files": {"test": str(folder / "workload.jsonl")}},
        "test_split": "test",
        "output_type": "generate_until",
        "description": SYSTEM_PROMPT + "\n\n",
        "doc_to_text": "{{question}}",
        "doc_to_target": "{{fact}}",
        "generation_kwargs": {"until": [], "temperature": 0.0, "do_sample": False},
        "filter_list": [
            {
                "name": "fact",
                "filter": [
                    {"function": "regex", "regex_pattern": '"fact": ?"([^"]*)"'},
                    {"function": "take_first"},
                ],
            }
        ],
        "metric_list": [{"metric": "exact_match", "aggregation": "mean", "higher_is_better": True}],
        "metadata": {"version": 1.0},
    }
    # JSON is YAML: lm-eval reads the task from a .yaml file in --include_path.
    (folder / "tasks").mkdir(exist_ok=True)
    (folder / "tasks" / "assay_workload.yaml").write_text(json.dumps(task, indent=1))


def _promptfoo_files(folder: Path, n: int) -> None:
    tests = [
        {
            "vars": {"question": r["question"]},
            "assert": [{"type": "contains", "value": f'"{r["expected_fact"]}"'}],
        }
        for r in cases(n)
    ]
    prompt = [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": "{{question}}"},
    ]
    (folder / "prompt.json").write_text(json.dumps(prompt))
    config = {
        "description": "assay benchmark workload",
        "prompts": ["file://prompt.json"],
        "providers": [
            {
                "id": f"openai:chat:{MODEL}",
                "config": {"apiBaseUrl": "BASE_URL", "apiKey": KEY, "temperature": 0, "seed": 1},
            }
        ],
        "tests": tests,
    }
    (folder / "promptfooconfig.json").write_text(json.dumps(config))


def _inspect_command(folder: Path, base_url: str, n: int, c: int) -> list[str]:
    inspect = PEERS / "inspect" / "bin" / "inspect"
    return [
        # inspect eval takes the task file relative to the working directory (the folder).
        str(inspect), "eval", "task.py",
        "--model", f"openai-api/mock/{MODEL}", "--model-base-url", base_url,
        "--max-connections", str(c), "--max-samples", str(c),
        "--temperature", "0", "--seed", "1",
        "--log-dir", str(folder / "logs"), "--display", "none",
    ]  # fmt: skip


def _lm_eval_command(folder: Path, base_url: str, n: int, c: int) -> list[str]:
    lm_eval = PEERS / "lm-eval" / "bin" / "lm_eval"
    model_args = (
        f"model={MODEL},base_url={base_url}/chat/completions,num_concurrent={c},"
        "max_retries=3,tokenizer_backend=None,tokenized_requests=False"
    )
    return [
        str(lm_eval), "--model", "local-chat-completions", "--model_args", model_args,
        "--include_path", str(folder / "tasks"), "--tasks", "assay_workload",
        "--apply_chat_template", "--output_path", str(folder / "out"),
    ]  # fmt: skip


def _promptfoo_command(folder: Path, base_url: str, n: int, c: int) -> list[str]:
    config = folder / "promptfooconfig.json"
    config.write_text(config.read_text().replace("BASE_URL", base_url))
    promptfoo = PEERS / "promptfoo" / "node_modules" / ".bin" / "promptfoo"
    return [
        str(promptfoo), "eval", "-c", str(config), "-j", str(c),
        "--no-cache", "--no-write", "--no-table", "--no-progress-bar",
        "-o", str(folder / "results.json"),
    ]  # fmt: skip


COMMANDS = {
    "inspect_ai": _inspect_command,
    "lm-eval": _lm_eval_command,
    "promptfoo": _promptfoo_command,
}


def main(argv: list[str] | None = None) -> None:
    """Install (or check) every peer and print their versions."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--install", action="store_true", help="install missing peers")
    parser.parse_args(argv)
    log: list[str] = []
    found, missing = install(log)
    for peer in found:
        print(f"{peer.name} {peer.version}")
    for name, why in missing.items():
        print(f"{name}: not installed: {why}")


if __name__ == "__main__":
    main()
