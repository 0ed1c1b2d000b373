"""A third-party calling (sans-I/O) grader, installed as a package declaring one
``assay.graders`` entry point, is named in a suite file; the runner sends its requests to
the model it names and it turns the replies into judgments. A failed call or an unreadable
reply is ungraded, never a score; ``assay regrade`` builds it again from a run's record."""

from __future__ import annotations

import asyncio
import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from tests.conftest import RunAssay
from tests.loopback import Serve
from tests.ports import closed_port

from assay.store import open_store

ROOT = Path(__file__).resolve().parents[2]
POLICY = ROOT / "examples" / "policy" / "policy.jsonl"
DATA_FILE = ROOT / "tests" / "data" / "plugin" / "assay_yesno.py"
MODULES = ("assay_echo", "assay_yesno")


def _blocks() -> list[tuple[str, str]]:
    page = (ROOT / "docs" / "extending.md").read_text(encoding="utf-8")
    return re.findall(r"```(\w+)\n(.*?)```", page, flags=re.DOTALL)


def _block(lang: str, marker: str) -> str:
    return next(text for kind, text in _blocks() if kind == lang and marker in text)


def install(site: Path) -> Path:
    """docs/extending.md's echo target and yes/no calling grader, installed into ``site`` as
    pip would: the two modules and one dist-info naming their entry points."""
    site.mkdir(parents=True, exist_ok=True)
    (site / "assay_echo.py").write_text(_block("python", "# assay_echo.py"), encoding="utf-8")
    (site / "assay_yesno.py").write_text(_block("python", "# assay_yesno.py"), encoding="utf-8")
    info = site / "assay_plugins-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: assay-plugins\nVersion: 0.1\n", encoding="utf-8"
    )
    graders = _block("toml", 'yes_no = "assay_yesno:YES_NO"').split("\n", 2)[2]
    (info / "entry_points.txt").write_text(
        "[assay.targets]\necho = assay_echo:ECHO\n\n[assay.graders]\n" + graders.replace('"', ""),
        encoding="utf-8",
    )
    return site


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    path = install(tmp_path / "site")
    monkeypatch.syspath_prepend(str(path))
    yield path
    for name in MODULES:
        sys.modules.pop(name, None)


def suite(tmp_path: Path, base_url: str) -> Path:
    """The page's suite, its model at ``base_url``."""
    (tmp_path / "policy.jsonl").write_bytes(POLICY.read_bytes())
    text = _block("yaml", "type: yes_no").replace("http://127.0.0.1:8765/v1", base_url)
    text = text.replace("smollm2-135m}", "smollm2-135m, retries: 0}")
    path = tmp_path / "suite.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def scripted_model(seen: list[dict[str, Any]]) -> Any:
    """A chat model that says yes when the answer holds the fact, no when not, an unreadable
    word for E5's answer and fails with HTTP 500 for E6's."""

    async def handler(request: web.Request) -> web.Response:
        body = await request.json()
        seen.append(body)
        question = body["messages"][0]["content"]
        fact = re.search(r"state the fact '([^']*)'", question)
        answer = question.split("Answer: ", 1)[1]
        assert fact is not None
        if fact.group(1) == "defect_window_7_days":
            return web.json_response({"error": "overloaded"}, status=500)
        if fact.group(1) not in answer:
            word = "no"
        else:  # E6 answers custom_excluded (E2 is answered wrong)
            word = "perhaps" if fact.group(1) == "custom_excluded" else "Yes."
        return web.json_response({"choices": [{"message": {"content": word}}]})

    return handler


def _run_ids(tmp_path: Path) -> list[str]:
    store = open_store(f"sqlite:///{tmp_path / 'r.db'}", create=False)
    try:
        return [run.id for run in store.list_runs()]
    finally:
        store.close()


def _statuses(report: dict[str, Any]) -> dict[str, tuple[str, str]]:
    return {row["id"]: (row["status"], row["reason"]) for row in report["cases"]}


def test_the_documented_calling_grader_is_the_tested_file() -> None:
    code = DATA_FILE.read_text(encoding="utf-8")
    documented = _block("python", "# assay_yesno.py")
    assert documented.split("\n", 1)[1] == code[code.index("from __future__") :]


def test_a_calling_plugin_grader_judges_a_run_and_regrade_builds_it_again(
    site: Path, tmp_path: Path, serve: Serve, run_assay: RunAssay, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[dict[str, Any]] = []
    out, again = tmp_path / "run.json", tmp_path / "regrade.json"
    counts: list[int] = []

    async def scenario() -> tuple[Any, Any, str]:
        async with serve(scripted_model(seen)) as base:
            path = suite(tmp_path, base + "/v1")
            run = ["run", path, "--store", "r.db", "-f", "json", "-o", out]
            done = await asyncio.to_thread(run_assay, *run, cwd=tmp_path)
            [run_id] = _run_ids(tmp_path)
            counts.append(len(seen))
            regrade = ["regrade", run_id, "--store", "r.db", "-f", "json", "-o", again]
            return done, await asyncio.to_thread(run_assay, *regrade, cwd=tmp_path), run_id

    done, regraded, run_id = asyncio.run(scenario())
    assert done.returncode in (0, 1), done.stderr
    report = json.loads(out.read_text(encoding="utf-8"))
    statuses = _statuses(report)
    # E1 echoes its fact (yes); E2 answers "a wrong answer" (no); E3 and E4 abstain as
    # expected (no call); E5's call fails; E6's reply is unreadable.
    assert statuses["E1"] == ("passed", "the model said yes")
    assert statuses["E2"] == ("failed", "the model said no")
    assert statuses["E3"][0] == statuses["E4"][0] == "passed"
    assert statuses["E5"][0] == "ungraded" and "the model call failed" in statuses["E5"][1]
    assert "500" in statuses["E5"][1]
    assert statuses["E6"] == ("ungraded", "unreadable reply: 'perhaps'")
    assert {row["grader"] for row in report["cases"]} == {"yes_no v1"}
    assert {b["model"] for b in seen} == {"smollm2-135m"}
    assert counts == [4]  # E1, E2, E5, E6: the abstentions need no call

    store = open_store(f"sqlite:///{tmp_path / 'r.db'}", create=False)
    try:
        [entry] = store.get_run(run_id).graders
    finally:
        store.close()
    assert entry["type"] == "yes_no" and entry["name"] == "yes_no" and entry["version"] == "1"
    assert json.loads(entry["settings"])["model"] == "smollm2-135m"

    assert regraded.returncode in (0, 1), regraded.stderr
    assert f"a regrade of run {run_id}" in regraded.stderr
    assert _statuses(json.loads(again.read_text(encoding="utf-8"))) == statuses
    assert len(seen) == 8  # every call made again, by the rebuilt grader
    [regrade_id] = [r for r in _run_ids(tmp_path) if r != run_id]
    store = open_store(f"sqlite:///{tmp_path / 'r.db'}", create=False)
    try:
        regrade_run = store.get_run(regrade_id)
    finally:
        store.close()
    assert regrade_run.graders == [entry]  # its own record builds the same grader again
    assert regrade_run.metadata["regrade_of"] == run_id


def test_an_endpoint_that_is_down_leaves_every_answer_ungraded(
    site: Path, tmp_path: Path, run_assay: RunAssay
) -> None:
    out = tmp_path / "run.json"
    with closed_port() as port:
        path = suite(tmp_path, f"http://127.0.0.1:{port}/v1")
        done = run_assay("run", path, "--store", "r.db", "-f", "json", "-o", out, cwd=tmp_path)
    assert done.returncode in (0, 1), done.stderr
    statuses = _statuses(json.loads(out.read_text(encoding="utf-8")))
    answered = ("E1", "E2", "E5", "E6")
    assert all(statuses[c][0] == "ungraded" for c in answered), statuses
    assert all("the model call failed" in statuses[c][1] for c in answered)
    assert statuses["E3"][0] == "passed"  # an abstention needs no call


def test_regrade_names_a_plugin_grader_that_is_not_installed(
    tmp_path: Path, run_assay: RunAssay, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "run.json"
    site = install(tmp_path / "site")
    monkeypatch.syspath_prepend(str(site))
    try:
        with closed_port() as port:
            path = suite(tmp_path, f"http://127.0.0.1:{port}/v1")
            done = run_assay("run", path, "--store", "r.db", "-f", "json", "-o", out, cwd=tmp_path)
        assert done.returncode in (0, 1), done.stderr
    finally:
        monkeypatch.undo()
        for name in MODULES:
            sys.modules.pop(name, None)
    [run_id] = _run_ids(tmp_path)
    refused = run_assay("regrade", run_id, "--store", "r.db", cwd=tmp_path)
    assert refused.returncode == 2
    assert "Traceback" not in refused.stderr
    assert (
        f'run {run_id}: grader "yes_no" v1 (grader type "yes_no") is a plugin that is not '
        "installed here"
    ) in refused.stderr
    assert _run_ids(tmp_path) == [run_id]  # nothing made
    # The run's own report still shows what the plugin judged, as stored.
    shown = run_assay("report", run_id, "--store", "r.db", "-f", "json", cwd=tmp_path)
    assert shown.returncode in (0, 1), shown.stderr
    assert {row["grader"] for row in json.loads(shown.stdout)["cases"]} == {"yes_no v1"}


def test_regrade_without_a_grader_rebuilds_the_structured_grader(
    tmp_path: Path, run_assay: RunAssay
) -> None:
    (tmp_path / "policy.jsonl").write_bytes(POLICY.read_bytes())
    (tmp_path / "suite.yaml").write_text(
        "name: s\ndataset: policy.jsonl\ntarget: {type: scripted}\n", encoding="utf-8"
    )
    done = run_assay("run", "suite.yaml", "--store", "r.db", cwd=tmp_path)
    assert done.returncode in (0, 1), done.stderr
    [run_id] = _run_ids(tmp_path)
    again = run_assay("regrade", run_id, "--store", "r.db", "-f", "json", cwd=tmp_path)
    assert again.returncode in (0, 1), again.stderr
    regraded = json.loads(again.stdout)
    first = json.loads(
        run_assay("report", run_id, "--store", "r.db", "-f", "json", cwd=tmp_path).stdout
    )
    assert {row["grader"] for row in regraded["cases"]} == {row["grader"] for row in first["cases"]}
    assert _statuses(regraded) == _statuses(first)
    assert len(_run_ids(tmp_path)) == 2


def test_a_grader_that_raises_on_a_reply_leaves_it_ungraded(site: Path, serve: Serve) -> None:
    import assay_yesno

    from assay.cases import Case
    from assay.outcomes import Answer, Record
    from assay.runner import JudgeRunner, judge_all

    class Brittle(assay_yesno.YesNoGrader):  # type: ignore[misc]
        def conclude(self, case: Case, call: Any, answer: Any) -> Any:
            raise KeyError("verdict")

    async def handler(request: web.Request) -> web.Response:
        return web.json_response({"choices": [{"message": {"content": "{}"}}]})

    case = Case(id="E1", slice="s", question="q", expected_behavior="answer", expected_fact="f")
    record = Record(case_id="E1", outcome=Answer(fact="f", text="it is f"))

    async def scenario() -> Any:
        async with serve(handler) as base:
            settings = assay_yesno.YesNoSettings(base_url=base + "/v1", model="m", retries=0)
            return await judge_all(JudgeRunner(Brittle(settings)), [(case, record)])

    [judgment] = asyncio.run(scenario())
    assert judgment.status == "ungraded" and judgment.score is None
    assert judgment.reason == "the grader failed: KeyError: 'verdict'"


def test_a_plugin_grader_is_built_again_only_from_settings_that_fit_it(site: Path) -> None:
    from assay.errors import AssayConfigError
    from assay.load import grader_from_provenance
    from assay.load._grader import PluginNotInstalled, plugin_grader

    def entry(settings: dict[str, Any], kind: str = "yes_no") -> dict[str, str]:
        return {"name": "yes_no", "version": "1", "type": kind, "settings": json.dumps(settings)}

    good = {"base_url": "http://127.0.0.1:9/v1", "model": "m"}
    grader = plugin_grader(entry(good), Path("."))
    assert grader.name == "yes_no" and grader.endpoint.base_url == good["base_url"]  # type: ignore[attr-defined]
    with pytest.raises(AssayConfigError, match=r'grader "yes_no" .*: model: Field required'):
        plugin_grader(entry({"base_url": "http://127.0.0.1:9/v1"}), Path("."))
    with pytest.raises(AssayConfigError, match="a secret in its settings was not recorded"):
        plugin_grader(entry({**good, "model": "<redacted>"}), Path("."))
    with pytest.raises(PluginNotInstalled, match=r'grader type "yes_nope"\) is a plugin'):
        plugin_grader(entry(good, "yes_nope"), Path("."))
    # A stored run's report falls back to the stored judgments instead.
    assert grader_from_provenance(entry(good, "yes_nope")) is None
    assert grader_from_provenance(entry({"base_url": "x"})) is None


def test_with_the_response_cache_a_rerun_asks_the_model_only_what_it_could_not_judge(
    site: Path, tmp_path: Path, serve: Serve, run_assay: RunAssay
) -> None:
    seen: list[dict[str, Any]] = []
    counts: list[int] = []

    async def scenario() -> None:
        async with serve(scripted_model(seen)) as base:
            path = suite(tmp_path, base + "/v1")
            path.write_text(path.read_text(encoding="utf-8") + "cache: true\n", encoding="utf-8")
            for _ in range(2):
                run = ["run", path, "--store", "r.db"]
                done = await asyncio.to_thread(run_assay, *run, cwd=tmp_path)
                assert done.returncode in (0, 1), done.stderr
                counts.append(len(seen))

    asyncio.run(scenario())
    # E1 and E2's verdicts are kept; E5's failed call and E6's unreadable reply are not.
    assert counts == [4, 6]
