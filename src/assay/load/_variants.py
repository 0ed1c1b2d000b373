"""The variants of a matrix run: the suite's ``variants:`` crossed with ``--set`` options."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from assay.errors import AssayConfigError, InputFormatError
from assay.load._suite import Suite

# What a variant may change: the system under test and how it is graded. The dataset, the
# trials and the run settings are the matrix's own, so every variant is paired case by case.
_SETTABLE = ("target.", "grader")


@dataclass(frozen=True)
class Variant:
    """One configuration of a matrix: its name, its overrides (dotted keys) and its suite."""

    name: str
    overrides: dict[str, Any]
    suite: Suite


def parse_set(text: str) -> tuple[str, list[tuple[str, Any]]]:
    """``target.model=a,b`` → ("target.model", [("a", "a"), ("b", "b")]): each value as
    written and as YAML reads it (``0.7`` a number, ``true`` a boolean)."""
    import yaml

    key, sep, values = text.partition("=")
    key = key.strip()
    if not sep or not key or not values.strip():
        raise AssayConfigError(f"--set {text!r}: write KEY=VALUE[,VALUE…], e.g. target.model=a,b")
    if key == "dataset" or not (key.startswith(_SETTABLE[0]) or key.split(".")[0] == "grader"):
        raise AssayConfigError(
            f"--set {text!r}: a variant may change target.* or grader settings only; every "
            "variant runs on the suite's dataset, trials and run settings"
        )
    shown = [v.strip() for v in values.split(",")]
    if any(not v for v in shown):
        raise AssayConfigError(f"--set {text!r}: an empty value between commas")
    if len(set(shown)) != len(shown):
        raise AssayConfigError(f"--set {text!r}: a value is given twice")
    parsed: list[tuple[str, Any]] = []
    for v in shown:
        try:
            parsed.append((v, yaml.safe_load(v)))
        except yaml.YAMLError:
            parsed.append((v, v))
    return key, parsed


def _labels(keys: Sequence[str]) -> list[str]:
    """The shortest label of each key: its last part, unless two keys share it."""
    last = [k.rsplit(".", 1)[-1] for k in keys]
    return [lab if last.count(lab) == 1 else key for lab, key in zip(last, keys, strict=True)]


def cross_product(sets: Sequence[str]) -> list[tuple[str, dict[str, Any]]]:
    """Every combination of the ``--set`` values, named ``model=a,temperature=0``, in the
    order given (the first option varies slowest)."""
    parsed = [parse_set(text) for text in sets]
    keys = [k for k, _ in parsed]
    repeated = sorted({k for k in keys if keys.count(k) > 1})
    if repeated:
        raise AssayConfigError(f"--set {repeated[0]} is given twice; list its values once: a,b")
    labels = _labels(keys)
    combos: list[tuple[str, dict[str, Any]]] = []
    for choice in itertools.product(*(values for _, values in parsed)):
        name = ",".join(f"{lab}={shown}" for lab, (shown, _) in zip(labels, choice, strict=True))
        combos.append((name, {k: value for k, (_, value) in zip(keys, choice, strict=True)}))
    return combos


def variants_of(suite: Suite, sets: Sequence[str] = ()) -> list[Variant]:
    """The suite's variants (in file order) crossed with the ``--set`` combinations; an
    empty list when the suite declares none and no ``--set`` is given."""
    declared = suite.settings.variants or {}
    base: list[tuple[str, dict[str, Any]]] = []
    for name, spec in declared.items():
        # Each target setting a variant names replaces the suite's whole value.
        overrides = {f"target.{key}": value for key, value in spec.target.items()}
        if spec.grader is not None:
            overrides["grader"] = spec.grader.model_dump(exclude_none=True)
        base.append((name, overrides))
    combos = cross_product(sets) if sets else []
    if not base and not combos:
        return []
    pairs: list[tuple[str, dict[str, Any]]] = []
    for (bname, bover), (cname, cover) in itertools.product(
        base or [("", {})], combos or [("", {})]
    ):
        name = "/".join(p for p in (bname, cname) if p)
        pairs.append((name, {**bover, **cover}))
    names = [name for name, _ in pairs]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise AssayConfigError(f"variant {repeated[0]!r} is named twice; give each its own name")
    variants: list[Variant] = []
    for name, overrides in pairs:
        where = f"variant {name}"
        variant = Variant(name, overrides, suite.with_overrides(overrides, where))
        _check_target(variant, where)
        variants.append(variant)
    return variants


def _check_target(variant: Variant, where: str) -> None:
    """Build the variant's target once, so a bad setting stops the matrix before any run,
    reported with the variant's name."""
    try:
        variant.suite.build_target()
    except InputFormatError as err:
        problems = [replace(p, message=f"{where}: {p.message}") for p in err.problems]
        raise InputFormatError(problems, summary=f"{variant.suite.path}: invalid variant") from None
    except AssayConfigError as err:
        raise AssayConfigError(f"{variant.suite.path}: {where}: {err}") from None
