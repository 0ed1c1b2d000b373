"""Loading a suite file: one YAML naming the dataset, the target, the grader and how to run.

Every unknown key and bad value is reported at once with its file and line.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
)

from assay._validation import problems_from
from assay.cases import EMPTY_SOURCES, Dataset
from assay.errors import MAX_TRIALS, AssayConfigError, InputFormatError, Location, Problem
from assay.gates import Rule, parse_gates, parse_rule, sequential_problem
from assay.grading import Grader
from assay.load._files import load_dataset
from assay.load._grader import GraderSettings, build_grader, grader_problems, reads_sources
from assay.load._limits import may_hold_surrogates
from assay.load._paths import named_file
from assay.load._prices import PriceTable, load_prices
from assay.load._records import (
    checked,
    compose_yaml,
    construct_yaml,
    key_lines,
    key_location,
    read_text,
    repeated_yaml_keys,
)
from assay.metrics import TrialPolicy, require_declared_selection
from assay.targets import Target, build_target


class CoverageSettings(BaseModel):
    """What a suite's dataset must cover (``assay coverage SUITE``; see docs/datasets.md)."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    required_slices: tuple[str, ...] = ()
    min_cases: int = Field(default=3, ge=1)


class CacheSettings(BaseModel):
    """The ``cache:`` key in its long form (``cache: true`` is ``{enabled: true}``)."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    enabled: bool = True
    path: str | None = Field(
        default=None, description="The cache file (default: cache.db beside the store's file)"
    )
    deterministic: bool = Field(
        default=False,
        description="The target gives one reply per request: every trial reuses one reply",
    )


VARIANT_NAME = r"^[A-Za-z0-9][A-Za-z0-9._:=,+/@-]{0,99}$"


class VariantSettings(BaseModel):
    """One entry of ``variants:``: overrides of the target's settings and, optionally, the
    grader; everything else (dataset, trials, run settings) is the suite's."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    description: str | None = None
    target: dict[str, Any] = Field(default_factory=dict)
    grader: GraderSettings | None = None


class SuiteSettings(BaseModel):
    """The keys of a suite file (see docs/running.md)."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    name: str | None = None
    description: str | None = None
    dataset: str = Field(min_length=1)
    target: dict[str, Any]
    grader: GraderSettings = Field(default_factory=GraderSettings)
    concurrency: int = Field(default=8, ge=1, le=10_000)
    trials: int = Field(default=1, ge=1, le=MAX_TRIALS)
    product_selects_best: bool = Field(
        default=False,
        description="The product itself picks the best of several outputs (allows pass@k)",
    )
    trial_policy: str | None = Field(
        default=None, description="mean (default), majority, pass^k or pass@k (docs/statistics.md)"
    )
    timeout_s: float = Field(default=60.0, gt=0)
    retries: int = Field(default=2, ge=0, le=20)
    rpm: float | None = Field(default=None, gt=0)
    gates: Any = None
    coverage: CoverageSettings = Field(default_factory=CoverageSettings)
    trace: bool = True
    prices: str | None = Field(
        default=None, min_length=1, description="A price table (YAML) to compute cost with"
    )
    max_cost: float | None = Field(
        default=None, gt=0, description="A budget in USD (needs prices): see docs/running.md"
    )
    max_calls: int | None = Field(default=None, ge=1, description="A budget of target calls")
    max_tokens: int | None = Field(
        default=None, ge=1, description="A budget of tokens, input and output"
    )
    cache: bool | CacheSettings = False
    variants: dict[Annotated[str, Field(pattern=VARIANT_NAME)], VariantSettings] | None = Field(
        default=None, description="Named overrides of the target (and grader): a matrix run"
    )
    metadata: dict[str, Any] = Field(default_factory=dict)

    @property
    def cache_settings(self) -> CacheSettings:
        """The ``cache`` key in its long form."""
        if isinstance(self.cache, CacheSettings):
            return self.cache
        return CacheSettings(enabled=self.cache)

    @field_validator("trial_policy")
    @classmethod
    def _known_policy(cls, value: str | None, info: ValidationInfo) -> str | None:
        if value is None:
            return None
        policy = TrialPolicy.parse(value)
        declared = bool(info.data.get("product_selects_best"))
        require_declared_selection(policy, declared, "product_selects_best: true")
        return str(policy)


@dataclass(frozen=True)
class Suite:
    """A validated suite: its settings, where it was read, and where each key was written."""

    path: Path
    settings: SuiteSettings
    raw: dict[str, Any]
    lines: dict[str, int] = field(default_factory=dict, repr=False)

    @property
    def base_dir(self) -> Path:
        return self.path.parent

    @property
    def dataset_path(self) -> Path:
        """The dataset file, relative to the suite file unless absolute."""
        path = Path(self.settings.dataset)
        return path if path.is_absolute() else self.base_dir / path

    def locate(self, dotted: str) -> Location:
        """The file and line of a key (or of its nearest written parent)."""
        return key_location(self.path, self.lines, dotted)

    def load_dataset(self) -> Dataset:
        where = self.locate("dataset")
        path = named_file(self.settings.dataset, self.base_dir, where, "dataset", "suite")
        return load_dataset(path)

    def grader(self, dataset: Dataset | None = None) -> Grader:
        """The suite's grader; a composite scorer reads the source snapshots of ``dataset``
        (default: the suite's dataset file)."""
        spec = self.settings.grader
        sources = EMPTY_SOURCES
        if reads_sources(spec):
            sources = (dataset or self.load_dataset()).sources
        return build_grader(spec, self.base_dir, self.locate, sources)

    def gate_rules(self) -> list[Rule]:
        """The suite's gate rules, parsed before anything runs (a bad rule stops the run)."""
        return parse_gates(self.settings.gates, str(self.locate("gates")))

    def price_table(self) -> PriceTable | None:
        """The suite's price table (``prices``, relative to the suite file), if it names one."""
        if self.settings.prices is None:
            return None
        path = named_file(
            self.settings.prices, self.base_dir, self.locate("prices"), "prices", "suite"
        )
        return load_prices(path)

    def with_overrides(self, overrides: Mapping[str, Any], where: str) -> Suite:
        """This suite with dotted keys replaced (``target.model``: a value; ``grader``: the
        whole grader) and without ``variants``; a resulting bad value is reported as an
        ``InputFormatError`` naming ``where`` (a variant or a --set option)."""
        raw = copy.deepcopy(self.raw)
        raw.pop("variants", None)
        for dotted, value in overrides.items():
            parts = dotted.split(".")
            node = raw
            for part in parts[:-1]:
                child = node.get(part)
                if isinstance(child, str) and part == "grader":
                    child = {"type": child}
                node[part] = child = dict(child) if isinstance(child, dict) else {}
                node = child
            node[parts[-1]] = value
        try:
            settings = SuiteSettings.model_validate(raw)
        except ValidationError as err:
            problems = [
                Problem(f"{where}: {pr.message}", self.locate(pr.field or ""), pr.field)
                for pr in problems_from(err, None, SuiteSettings)
            ]
            raise InputFormatError(problems, summary=f"{self.path}: invalid variant") from None
        problems = grader_problems(settings.grader, self.locate)
        if problems:
            raise InputFormatError(problems, summary=f"{self.path}: invalid variant")
        return Suite(self.path, settings, raw, self.lines)

    def build_target(self) -> Target:
        """The suite's target, ready to start (settings errors located in the suite)."""
        return build_target(self.settings.target, self.base_dir, self.locate)


def _parse_yaml(path: Path) -> tuple[dict[str, Any], dict[str, int]]:
    text = read_text(path)
    root = compose_yaml(path, text, f"{path}: cannot read suite")
    data = construct_yaml(root, path) if root is not None else None
    repeated = repeated_yaml_keys(root, path) if root is not None else []
    if repeated:  # YAML would keep the last one silently
        raise InputFormatError(repeated, summary=f"{path}: invalid suite")
    data = checked(path, data, None, may_hold_surrogates(text))
    if not isinstance(data, dict):
        raise InputFormatError(
            [Problem("a suite is a mapping of keys (dataset, target, …)", Location(str(path), 1))],
            summary=f"{path}: invalid suite",
        )
    return data, key_lines(root)


def gate_problems(gates: object, locate: Callable[[str], Location]) -> list[Problem]:
    """What is wrong with a suite's ``gates:`` (a rule or a list of rules), each problem
    at its line: the rules are checked as ``assay gate`` checks them, before anything runs."""
    if gates is None:
        return []
    example = "write rules such as 'task_success>=0.8' or 'answered_accuracy.low>=0.6 allow_na'"
    items = [("gates", gates)] if isinstance(gates, str) else None
    if items is None:
        if not isinstance(gates, list):
            return [Problem(f"gates must be a list of rules: {example}", locate("gates"), "gates")]
        items = [(f"gates[{i}]", rule) for i, rule in enumerate(gates)]
    problems = []
    for where, rule in items:
        if isinstance(rule, dict):
            problem = _gate_mapping_problem(rule)
            if problem is not None:
                problems.append(Problem(f"{where}: {problem}", locate(where), where))
                continue
            rule = rule["rule"]
        if not isinstance(rule, str):
            shown = repr(rule) if isinstance(rule, int | float | bool) else type(rule).__name__
            problems.append(
                Problem(f"{where}: {shown} is not a rule; {example}", locate(where), where)
            )
            continue
        try:
            parse_rule(rule)
        except AssayConfigError as err:
            problems.append(Problem(f"{where}: {err}", locate(where), where))
    return problems


def _gate_mapping_problem(gate: dict[str, Any]) -> str | None:
    """What is wrong with a gate written as a mapping (``{rule: …, sequential: true}``)."""
    unknown = sorted(set(gate) - {"rule", "sequential"})
    if unknown:
        return f"unknown key {unknown[0]!r} in a gate; a gate's keys are rule and sequential"
    if not isinstance(gate.get("rule"), str):
        return "a gate written as a mapping needs rule: 'task_success>=0.8'"
    if not isinstance(gate.get("sequential", False), bool):
        return "sequential must be true or false"
    if gate.get("sequential"):
        try:
            problem = sequential_problem(parse_rule(gate["rule"]))
        except AssayConfigError:
            return None  # the rule itself is reported as any rule is
        if problem is not None:
            return f"sequential gate {gate['rule']!r}: {problem}"
    return None


def load_suite(path: str | Path) -> Suite:
    """A validated suite from a YAML file; every problem reported with file and line."""
    p = Path(path)
    data, lines = _parse_yaml(p)
    suite = Suite(p, SuiteSettings.model_construct(dataset="", target={}), data, lines)
    try:
        settings = SuiteSettings.model_validate(data)
    except ValidationError as err:
        problems = [
            Problem(pr.message, suite.locate(pr.field or ""), pr.field)
            for pr in problems_from(err, None, SuiteSettings)
        ]
        raise InputFormatError(problems, summary=f"{p}: invalid suite") from None
    problems = grader_problems(settings.grader, suite.locate)
    problems += gate_problems(settings.gates, suite.locate)
    if problems:
        raise InputFormatError(problems, summary=f"{p}: invalid suite")
    return Suite(p, settings, data, lines)
