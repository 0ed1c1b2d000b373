"""Gates on a report: rules on any report figure (``task_success>=0.8``) that pass or fail
a run in CI.

``PATH`` walks the report by name: ``errors``, ``task_success`` (a rate's value),
``answered_accuracy.low`` / ``.high`` (its interval bounds),
``slice[exception].task_success``, ``statuses.missing``; ``answer_coverage.worst`` /
``.best`` (any headline rate's or slice's bounds over its unknowns) (the rule's syntax:
``_rules.py``). ``not_worse_than_baseline(MARGIN)`` reads the report against a baseline
report (``_baseline.py``).
"""

from __future__ import annotations

import math
import re
import typing
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel

from assay.errors import AssayConfigError, AssayError, did_you_mean
from assay.gates._baseline import Baseline, not_worse_result
from assay.gates._rules import NOT_WORSE, OPERATORS, GateResult, Rule, check_scale, split_rule
from assay.gates._sequential import PER_TRIAL, _same, sequential_gate
from assay.metrics import Rate, TrialRate
from assay.report import PAIRED, CorrectedRate, Report

_SEGMENT = re.compile(r"(?P<name>[A-Za-z_][A-Za-z0-9_]*)(?:\[(?P<key>[^\]]+)\])?")
_BOUNDS = {"low": 0, "high": 1}
# Figures with a value and an interval: a rule names the value, or a bound with .low/.high.
_RATES = (Rate, TrialRate, CorrectedRate)
# Figures read beside a rate: its bounds over its unknowns (every headline rate and each
# slice's task success), and task success's judge correction.
_BOUNDED = ("task_success", "answer_coverage", "answered_accuracy")
_SIDES = ("worst", "best")
_CORRECTED = "judge_correction.corrected"
_SLICE_RATE = re.compile(r"^slices?\[(?P<name>[^\]]+)\]\.task_success$")


def parse_rule(text: str, model: type[BaseModel] = Report) -> Rule:
    """``Rule`` for ``text`` such as ``"answered_accuracy.low>=0.6 allow_na"``, its fields
    checked against ``model`` (a ``Report``, or a ``CompositeReport`` for ``composite_pass``
    and ``strict_pass``)."""
    parts = split_rule(text)
    if parts.call and model is not Report:
        raise AssayConfigError(
            f"gate rule {text.strip()!r} compares a run with a baseline run, and a "
            f"{model.__name__} has none: gate each run's report, or compare them with "
            "assay compare BASELINE CANDIDATE --gate"
        )
    rule = Rule(
        text=text.strip(),
        path=parts.path,
        op=parts.op,
        threshold=parts.threshold,
        allow_na=parts.allow_na,
    )
    if parts.call:  # against a baseline, given when the rule is checked
        return rule
    if validate_rule(rule, model):
        check_scale(text, parts)
    return rule


def _fields(node: object) -> list[str]:
    if isinstance(node, _RATES):
        return [*type(node).model_fields, *_BOUNDS]
    if isinstance(node, BaseModel):
        return [*type(node).model_fields, *(["slice"] if isinstance(node, Report) else [])]
    return []


def _step(node: object, name: str, key: str | None, rule: Rule) -> object:
    """The child of ``node`` called ``name`` (then ``[key]``); raises on an unknown name."""
    if isinstance(node, _RATES) and name in _BOUNDS and key is None:
        return None if node.ci is None else node.ci[_BOUNDS[name]]
    if isinstance(node, dict) and key is None and name in node:
        return node[name]
    attr = "slices" if isinstance(node, Report) and name == "slice" else name
    if not isinstance(node, BaseModel) or attr not in type(node).model_fields:
        choices = _fields(node)
        hint = did_you_mean(name, choices)
        listing = f"; fields here: {', '.join(choices)}" if choices else ""
        raise AssayConfigError(f"gate rule {rule.text!r}: unknown field {name!r}{hint}{listing}")
    child = getattr(node, attr)
    if key is None:
        return child
    if not isinstance(child, dict):
        raise AssayConfigError(f"gate rule {rule.text!r}: {name!r} takes no [key]")
    if key not in child:
        names = sorted(child)
        raise AssayConfigError(
            f"gate rule {rule.text!r}: no {name} named {key!r}{did_you_mean(key, names)}; "
            f"the report has: {', '.join(names) or 'none'}"
        )
    return child[key]


def _model_in(annotation: Any) -> type[BaseModel] | None:
    """The model class an annotation holds (``Rate``, ``X | None``, ``dict[str, X]``)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in typing.get_args(annotation):
        found = _model_in(arg)
        if found is not None:
            return found
    return None


def validate_rule(rule: Rule, report_model: type[BaseModel] = Report) -> bool:
    """Check ``rule``'s field names against the report schema, before any report exists
    (slice names are checked when the rule is evaluated); True when the path names a rate
    (its value or an interval bound), a figure between 0 and 1."""
    model: type[BaseModel] | None = report_model
    head, dot, rest = rule.path.partition(".")
    per_trial = head == PER_TRIAL and report_model is Report
    path = "task_success" + dot + rest if per_trial else rule.path
    if report_model is Report:
        path = _beside(path)
    bound = False
    walked: list[str] = []
    for part in path.split("."):
        match = _SEGMENT.fullmatch(part)
        if match is None:
            raise AssayConfigError(f"gate rule {rule.text!r}: cannot read field {part!r}")
        name = match["name"]
        if model is None:
            return False  # inside a free mapping (metadata): names are the data's own
        if model in _RATES and name in _BOUNDS:
            model, bound = None, True
            continue
        attr = "slices" if model is Report and name == "slice" else name
        fields = [*model.model_fields, *(_BOUNDS if model in _RATES else ())]
        fields += ["slice"] if model is Report else []
        if model in _RATES and _is_bounded(".".join(walked)):
            fields += _SIDES
        walked.append(part)
        if attr not in model.model_fields:
            raise AssayConfigError(
                f"gate rule {rule.text!r}: unknown field {name!r}{did_you_mean(name, fields)}; "
                f"fields here: {', '.join(fields)}"
            )
        annotation = model.model_fields[attr].annotation
        if typing.get_origin(annotation) is dict and match["key"] is None:
            return False  # the next name is a key of the data (a slice name): checked later
        model = _model_in(annotation)
    return bound or model in _RATES


def _beside(path: str) -> str:
    """``RATE.worst`` / ``.best`` (a headline rate, or ``slice[NAME].task_success``) and
    ``task_success.corrected`` (then any ``.low``/``.high``) as the report fields that
    hold them; any other path as it is."""
    parts = path.split(".")
    for size in (2, 1):  # slice[NAME].task_success is two names
        rate_, rest = ".".join(parts[:size]), parts[size:]
        if not rest:
            continue
        tail = "".join(f".{x}" for x in rest[1:])
        if rate_ == "task_success" and rest[0] == "corrected":
            return _CORRECTED + tail
        if rest[0] not in _SIDES:
            continue
        if rate_ in _BOUNDED:
            return f"unknown_bounds.{rate_}.{rest[0]}{tail}"
        found = _SLICE_RATE.match(rate_)
        if found is not None:
            return f"unknown_bounds.slices[{found['name']}].{rest[0]}{tail}"
    return path


def _is_bounded(path: str) -> bool:
    """True when ``path`` names a rate with bounds over its unknowns (``RATE.worst``)."""
    return path in _BOUNDED or _SLICE_RATE.match(path) is not None


def _unbounded(report: Report, beside: str) -> bool:
    """True when ``beside`` (a path ``_beside`` made) names bounds ``report`` lacks: the
    rate has no unknowns, so its bounds are the rate itself."""
    b = report.unknown_bounds
    if b is None:
        return True
    head = beside.split(".")[1]
    found = _SEGMENT.fullmatch(head)
    if found is None or found["name"] != "slices":
        return getattr(b, head, None) is None
    return found["key"] not in b.slices


def _rate_of(path: str) -> str:
    """The rate a ``.worst``/``.best`` path reads the bounds of, with the rest of the path."""
    parts = path.split(".")
    cut = 2 if parts[0].startswith("slice") else 1
    return ".".join(parts[:cut] + parts[cut + 1 :])


def _headline_path(report: BaseModel, path: str) -> str:
    """``path`` with its first name read as the report's headline: ``task_success`` is task
    success under the declared trial policy when there is one (``trial_summary.task_success``),
    and ``task_success_per_trial`` is the per-trial rate. ``RATE.worst`` and ``.best`` are
    a rate's bounds over its unknowns (the rate itself when it has none);
    ``task_success.corrected`` is its correction for the judge's measured errors."""
    if not isinstance(report, Report):
        return path
    beside = _beside(path)
    if beside != path:
        if beside.startswith("unknown_bounds") and _unbounded(report, beside):
            return _rate_of(path)
        return beside
    head, _, rest = path.partition(".")
    tail = f".{rest}" if rest else ""
    t = report.trial_summary
    if head == "task_success" and t is not None and t.declared:
        return "trial_summary.task_success" + tail
    if head == PER_TRIAL:
        return "task_success" + tail
    return path


def resolve(report: BaseModel, rule: Rule) -> tuple[float | None, str]:
    """The number ``rule.path`` names in ``report`` (None when n/a) and a label for it."""
    node: Any = report
    label = ""
    if isinstance(report, Report) and _beside(rule.path).startswith("judge_correction"):
        c = report.judge_correction
        if c is None or c.corrected is None:
            return None, f"n/a: {_no_correction(report)}"
    for part in _headline_path(report, rule.path).split("."):
        match = _SEGMENT.fullmatch(part)
        if match is None:
            raise AssayConfigError(f"gate rule {rule.text!r}: cannot read field {part!r}")
        if node is None:
            return None, label or rule.path
        if isinstance(node, _RATES):
            label = _fraction(node)
            if match["name"] in _BOUNDS:
                label += f", {_level(node)}"
        node = _step(node, match["name"], match["key"], rule)
    if isinstance(node, _RATES):
        label = _fraction(node)
        if node.value is None:
            reason = node.na_reason if isinstance(node, Rate) else f"no {node.denominator_name}"
            return None, f"n/a: {reason}"
        return node.value, label
    if node is None:
        return None, label or "n/a: not in this report"
    if isinstance(node, bool) or not isinstance(node, int | float):
        raise AssayConfigError(
            f"gate rule {rule.text!r}: {rule.path!r} is not a number "
            f"(it is {type(node).__name__}); name a count, a rate, or a rate's .low/.high"
        )
    return float(node), label


def _no_correction(report: Report) -> str:
    """Why the report has no task success corrected for its judge's errors."""
    c = report.judge_correction
    if c is None:
        return "this report has no judge calibration applied to it"
    return f"not corrected for the judge's measured errors: {c.reason}"


def _fraction(node: Rate | TrialRate | CorrectedRate) -> str:
    """'2/6', or '0/4 cases, pass^2 of 4 trials' for task success under a trial policy; a
    bound adds the interval it is read from ('2/6, 95% exact interval')."""
    if isinstance(node, Rate):
        text = f"{node.numerator}/{node.denominator}"
    elif isinstance(node, CorrectedRate):
        text = "corrected for the judge's measured errors"
    else:
        text = f"{node.score_sum:g}/{node.cases} cases, {node.label}"
    return text


def _level(node: Rate | TrialRate | CorrectedRate) -> str:
    if isinstance(node, CorrectedRate):
        return f"{node.confidence * 100:g}% Lang-Reiczigel interval"
    method = "exact" if node.method == "clopper-pearson" else node.method.title()
    clustered = ", clustered by case" if isinstance(node, TrialRate) else ""
    return f"{node.confidence * 100:g}% {method} interval{clustered}"


def _fmt(x: float, threshold: float | None = None) -> str:
    """Four significant digits, or as many more as it takes for a figure that is not 0 or 1
    not to read as 0 or 1 (0.99999, never 1) and to read on its own side of ``threshold``
    (0.79999 against 0.8, never 0.8)."""
    for digits in range(4, 18):
        text = f"{x:.{digits}g}"
        shown = float(text)
        if (shown in (0.0, 1.0)) and shown != x:
            continue
        if threshold is not None and (shown >= threshold) != (x >= threshold):
            continue
        if threshold is not None and (shown <= threshold) != (x <= threshold):
            continue
        return text
    return repr(x)


def check_rule(report: BaseModel, rule: Rule, baseline: Baseline | None = None) -> GateResult:
    """``rule`` applied to ``report`` (a sequential run's rule: on its decided verdict;
    ``not_worse_than_baseline(MARGIN)``: against ``baseline``, failing without one). On a
    run its budget cut short, only a sequential rule already decided may pass."""
    if rule.path == NOT_WORSE and isinstance(report, Report):
        result = not_worse_result(report, rule, baseline)
    else:
        result = _checked(report, rule)
    if not isinstance(report, Report) or report.budget is None or not report.budget.reached:
        return result
    section = report.sequential
    if section is not None and any(_same(rule, e) and e.verdict is not None for e in section.rules):
        return result
    budget = report.budget
    ran = budget.case_trials - len(budget.not_run)
    return result.model_copy(
        update={
            "passed": False,
            "message": f"{result.message}; FAILED: the run was cut short by its budget "
            f"({ran:,} of {budget.case_trials:,} case-trials run), and a gate passes only "
            "on a whole run",
        }
    )


def _checked(report: BaseModel, rule: Rule) -> GateResult:
    if isinstance(report, Report):
        decided = sequential_gate(report, rule)
        if decided is not None:
            return decided
    actual, label = resolve(report, rule)
    want = f"{rule.op} {_fmt(rule.threshold)}"
    if actual is None:
        na = label if label.startswith("n/a") else f"n/a: {label}"
        if rule.allow_na:
            return GateResult(
                rule=rule, passed=True, actual=None, margin=None, message=f"{na} (allowed)"
            )
        return GateResult(rule=rule, passed=False, actual=None, margin=None, message=na)
    if math.isnan(actual):
        return GateResult(
            rule=rule, passed=False, actual=None, margin=None, message="NaN never passes a gate"
        )
    passed = OPERATORS[rule.op](actual, rule.threshold)
    margin = actual - rule.threshold
    seen = f"{rule.path} = {_fmt(actual, rule.threshold)}" + (f" ({label})" if label else "")
    if passed:
        message = f"{seen}, needs {want}"
    elif rule.op in ("==", "!="):
        message = f"{seen}, needs {want}: off by {_fmt(abs(margin))}"
    else:
        direction = "short" if rule.op in (">=", ">") else "over"
        message = f"{seen}, needs {want}: {direction} by {_fmt(abs(margin))}"
    return GateResult(rule=rule, passed=passed, actual=actual, margin=margin, message=message)


def evaluate_gates(
    report: BaseModel, rules: Sequence[str | Rule], baseline: Baseline | None = None
) -> list[GateResult]:
    """Every rule applied to ``report`` (a ``Report`` or a ``CompositeReport``), in order,
    ``not_worse_than_baseline(MARGIN)`` against ``baseline``; raises ``AssayConfigError``
    on a bad rule before any is evaluated."""
    parsed = [r if isinstance(r, Rule) else parse_rule(r, type(report)) for r in rules]
    for rule in parsed:
        # a paired rule reads the run's sequential section; a margin check, the baseline
        if rule.path not in (PAIRED, NOT_WORSE):
            resolve(report, rule)
    return [check_rule(report, rule, baseline) for rule in parsed]


def needs_baseline(rules: Sequence[Rule]) -> bool:
    """True when a rule compares the report with a baseline (``not_worse_than_baseline``)."""
    return any(rule.path == NOT_WORSE for rule in rules)


def parse_gates(gates: object, where: str) -> list[Rule]:
    """Rules from a suite's ``gates:`` value (a rule or a list of rules); ``where`` names
    the value in errors."""
    if gates is None:
        return []
    if isinstance(gates, str):
        gates = [gates]
    if isinstance(gates, list):
        gates = [g.get("rule") if isinstance(g, dict) else g for g in gates]
    if not isinstance(gates, list) or not all(isinstance(g, str) for g in gates):
        raise AssayConfigError(
            f"{where}: gates must be a list of rules such as "
            "'task_success>=0.8' or 'answered_accuracy.low>=0.6 allow_na'"
        )
    try:
        return [parse_rule(rule) for rule in gates]
    except AssayError as err:
        raise AssayConfigError(f"{where}: {err}") from None
