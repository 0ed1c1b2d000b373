"""Check registry: built-ins and plugins arrive through the same entry-point group."""

from __future__ import annotations

import tomllib
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path

import pytest

from assay.cases import Case
from assay.errors import AssayConfigError
from assay.grading.checks import (
    BUILTIN_CHECKS,
    ENTRY_POINT_GROUP,
    CheckRegistry,
    CompositeScorer,
    make_profile,
)
from assay.load import check_registry, registry_from
from assay.outcomes import Answer, Record

ROOT = Path(__file__).resolve().parents[3]
PLUGIN = '''
from assay.grading.checks import CheckInput, CheckResult


def mentions_policy(subject: CheckInput) -> CheckResult:
    """Passes when the answer text contains the word "policy"."""
    text = getattr(subject.outcome, "text", None) or ""
    if "policy" in text.lower():
        return CheckResult.ok("mentions the policy")
    return CheckResult.fail("expected 'policy' in the answer; not found")
'''


def test_pyproject_declares_every_builtin_under_the_group() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    declared = project["project"]["entry-points"][ENTRY_POINT_GROUP]
    assert set(declared) == set(BUILTIN_CHECKS)
    for name, target in declared.items():
        module, attr = target.split(":")
        assert BUILTIN_CHECKS[name].__module__ == module
        assert BUILTIN_CHECKS[name].__name__ == attr


def test_the_installed_entry_points_resolve_to_the_builtins() -> None:
    points = {p.name: p for p in entry_points(group=ENTRY_POINT_GROUP)}
    if not set(BUILTIN_CHECKS) <= set(points):
        pytest.skip("installed metadata predates the entry points: reinstall assay")
    for name, fn in BUILTIN_CHECKS.items():
        assert points[name].load() is fn
    assert check_registry().get("content_present") is BUILTIN_CHECKS["content_present"]


def test_a_plugin_registers_like_a_builtin_and_scores(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "assay_plugin_double.py").write_text(PLUGIN, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    point = EntryPoint(
        name="mentions_policy", value="assay_plugin_double:mentions_policy", group="x"
    )
    registry = registry_from([point])
    assert "mentions_policy" in registry.names
    assert set(BUILTIN_CHECKS) <= set(registry.names)
    profile = make_profile(
        {
            "weights": {"mentions_policy": 0.5, "answer_not_empty": 0.5},
            "critical": ["mentions_policy"],
            "threshold": 0.5,
        },
        registry.names,
    )
    scorer = CompositeScorer(profile, registry.resolve(profile.checks))
    case = Case(id="c", slice="s", question="q?", expected_behavior="answer", expected_fact="f")
    record = Record(case_id="c", outcome=Answer(text="See the returns policy."))
    assert scorer.evaluate(case, record).verdict == "pass"
    vetoed = scorer.evaluate(case, Record(case_id="c", outcome=Answer(text="Yes.")))
    assert (vetoed.score, vetoed.verdict) == (0.5, "fail")
    assert vetoed.critical_failures == ("mentions_policy",)


def test_loading_is_deferred_until_the_check_is_asked_for() -> None:
    calls: list[str] = []

    def loader():  # type: ignore[no-untyped-def]
        calls.append("loaded")
        return BUILTIN_CHECKS["format_valid"]

    registry = CheckRegistry({"lazy": loader})
    assert calls == []
    registry.get("lazy")
    registry.get("lazy")
    assert calls == ["loaded"]


def test_an_unknown_check_says_did_you_mean() -> None:
    with pytest.raises(
        AssayConfigError,
        match=r'unknown check "content_presnt" \(did you mean "content_present"\?\)',
    ):
        CheckRegistry.builtin().get("content_presnt")


def test_a_broken_plugin_names_itself() -> None:
    point = EntryPoint(name="broken", value="no_such_module_here:fn", group="x")
    with pytest.raises(
        AssayConfigError,
        match=r'check "broken" \(entry point no_such_module_here:fn\) could not be loaded',
    ):
        registry_from([point]).get("broken")
