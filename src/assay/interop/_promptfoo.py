"""Reading a promptfoo ``export`` / ``--output`` JSON file into assay runs, one per variant.

Each test is a case. Each (prompt, provider) pair, one column of promptfoo's results
table, is a variant: its own run over the same cases, so variants can be compared with
``assay compare`` (several form a matrix). Rows of the same test and variant (promptfoo's
``repeat``) are trials. Assertion component results are kept as checks on the record,
which ``assay composite`` can re-weigh.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from assay.cases import Case, Dataset
from assay.errors import AssayInputError
from assay.grading import Judgment, Status
from assay.interop._imported import ImportedRun, Source, file_sha256, parse_time
from assay.load import file_refusal
from assay.outcomes import Answer, Error, Record, Usage

TOOL = "promptfoo"
ERROR_REASON = 2  # promptfoo's ResultFailureReason.ERROR (1 is ASSERT)
MODEL_GRADED = (
    "llm-rubric",
    "model-graded",
    "factuality",
    "g-eval",
    "answer-relevance",
    "context-",
    "select-best",
    "closed-qa",
)


def _bad(path: Path, message: str) -> AssayInputError:
    return AssayInputError(f"{path}: {message}")


def read_export(path: Path) -> dict[str, Any]:
    """The export's ``results`` object (``version``, ``results``, ``stats``…) plus its
    ``metadata`` under ``_metadata``."""
    refusal = file_refusal(path)
    if refusal is not None:
        raise AssayInputError(f"{path}: {refusal}")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise _bad(path, f"cannot be read: {exc.strerror or exc}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise _bad(path, f"not a promptfoo export: invalid JSON ({exc})") from None
    if not isinstance(data, dict) or not isinstance(data.get("results"), dict | list):
        raise _bad(path, "not a promptfoo export: field 'results' is missing")
    results = data["results"]
    if isinstance(results, list):  # version 1 outputs: results is the row list itself
        results = {"version": 1, "results": results, "stats": data.get("stats") or {}}
    rows = results.get("results")
    if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
        raise _bad(path, "field 'results.results' is not a list of objects")
    return {**results, "_metadata": data.get("metadata") or {}, "_config": data.get("config")}


def _provider(row: dict[str, Any]) -> str:
    provider = row.get("provider")
    if isinstance(provider, dict):
        return str(provider.get("label") or provider.get("id") or "unknown")
    return str(provider or "unknown")


def _prompt(row: dict[str, Any]) -> dict[str, Any]:
    prompt = row.get("prompt")
    return prompt if isinstance(prompt, dict) else {}


def _prompt_key(row: dict[str, Any]) -> str:
    """The prompt a row used: its id, else its label or display text, else its column.

    The row's ``raw`` is the prompt rendered with the test's vars, so it names no prompt;
    ``promptIdx`` numbers prompt × provider columns, not prompts.
    """
    prompt = _prompt(row)
    for found in (row.get("promptId"), prompt.get("label"), prompt.get("display")):
        if isinstance(found, str) and found:
            return found
    return f"column {row.get('promptIdx')}"


def _test_index(row: dict[str, Any]) -> int:
    found = row.get("testIdx")
    return found if isinstance(found, int) else 0


def _test_key(row: dict[str, Any]) -> str:
    """The test a row ran. promptfoo gives each repeat of a test its own ``testIdx``, so a
    test is known by its description, vars and assertions (by ``testIdx`` in rows that do
    not record their test)."""
    test = row.get("testCase")
    if not isinstance(test, dict):
        return f"testIdx {_test_index(row)}"
    variables = row.get("vars") if isinstance(row.get("vars"), dict) else test.get("vars")
    described = {
        "description": test.get("description"),
        "vars": variables,
        "assert": test.get("assert"),
    }
    return json.dumps(described, sort_keys=True, ensure_ascii=False, default=str)


def _assertions(row: dict[str, Any]) -> list[dict[str, Any]]:
    test = row.get("testCase") or {}
    found = test.get("assert") if isinstance(test, dict) else None
    return [a for a in found or [] if isinstance(a, dict)]


def _describe(assertion: dict[str, Any]) -> str:
    kind = str(assertion.get("type", "?"))
    if "value" in assertion:
        return f"{kind} {json.dumps(assertion['value'], ensure_ascii=False)[:120]}"
    if "threshold" in assertion:
        return f"{kind} ≤ {assertion['threshold']}"
    return kind


def _is_model_graded(kind: str) -> bool:
    return any(kind.startswith(prefix) for prefix in MODEL_GRADED)


def check_name(assertion: Any, taken: Counter[str]) -> str:
    """The check name of an assertion: its ``metric`` when it has one, else its ``type``;
    the second ``contains`` of one test is ``contains_2``, the third ``contains_3``."""
    base = "?"
    if isinstance(assertion, dict):
        base = str(assertion.get("metric") or assertion.get("type") or "?")
    taken[base] += 1
    return base if taken[base] == 1 else f"{base}_{taken[base]}"


def _checks(row: dict[str, Any]) -> list[dict[str, Any]]:
    grading = row.get("gradingResult") or {}
    components = grading.get("componentResults") if isinstance(grading, dict) else None
    checks = []
    taken: Counter[str] = Counter()
    for component in components or []:
        if not isinstance(component, dict):
            continue
        assertion = component.get("assertion") or {}
        kind = str(assertion.get("type", "?")) if isinstance(assertion, dict) else "?"
        checks.append(
            {
                "name": check_name(assertion, taken),
                "type": kind,
                "assertion": _describe(assertion) if isinstance(assertion, dict) else kind,
                "passed": component.get("pass"),
                "score": component.get("score"),
                "reason": component.get("reason"),
                "weight": assertion.get("weight", 1) if isinstance(assertion, dict) else 1,
            }
        )
        checks[-1]["graded"] = not _grader_failed(checks[-1])
    return checks


def _grader_failed(check: dict[str, Any]) -> bool:
    """A model-graded assertion whose grader could not judge (not a judgment of the output)."""
    if not isinstance(check["passed"], bool):
        return True
    reason = str(check.get("reason") or "")
    return (
        _is_model_graded(str(check.get("type") or check["name"]))
        and not check["passed"]
        and (reason.startswith("Error") or "Could not extract JSON" in reason)
    )


def _judge(row: dict[str, Any], checks: list[dict[str, Any]]) -> tuple[Status, str]:
    broken = [c for c in checks if _grader_failed(c)]
    if broken:
        return "ungraded", f"grader failed on {broken[0]['assertion']}: {broken[0]['reason']}"
    if row.get("success") is True:
        return "passed", f"{len(checks)} assertion(s) passed" if checks else "no assertions"
    failing = [c for c in checks if c["passed"] is False]
    if failing:
        names = ", ".join(c["name"] for c in failing)
        return "failed", f"failed {names}: {failing[0]['reason']}"
    return "failed", str(row.get("error") or "promptfoo marked it failed")


def _usage(row: dict[str, Any]) -> Usage | None:
    response = row.get("response") or {}
    used = response.get("tokenUsage") if isinstance(response, dict) else None
    if not isinstance(used, dict):
        return None
    return Usage(input_tokens=used.get("prompt"), output_tokens=used.get("completion"))


def _reported(rows: list[dict[str, Any]]) -> str:
    passed = sum(1 for r in rows if r.get("success") is True)
    rate = f"pass rate {passed / len(rows):.1%} of {len(rows)} rows" if rows else "no rows"
    if not any("failureReason" in r for r in rows):  # older results count errors as failures
        return (
            f"promptfoo reported {passed} passed, {len(rows) - passed} failed (errors "
            f"included: this results version does not count them apart): {rate}"
        )
    errors = sum(1 for r in rows if r.get("failureReason") == ERROR_REASON)
    failed = len(rows) - passed - errors
    return f"promptfoo reported {passed} passed, {failed} failed, {errors} errors: {rate}"


Variant = tuple[str, str, int | None]
"""A column of promptfoo's results table: (prompt key, provider, ``promptIdx``). The
column number alone is not trusted; it only parts one provider listed twice."""


def _variant(row: dict[str, Any]) -> Variant:
    column = row.get("promptIdx")
    return _prompt_key(row), _provider(row), column if isinstance(column, int) else None


def _shared(rows: list[dict[str, Any]], field: str) -> str | None:
    """The prompt ``field`` every row of a test has alike, or None when they differ."""
    found = {str(_prompt(r).get(field) or "") for r in rows}
    return found.pop() if len(found) == 1 else None


def _cases(rows: list[dict[str, Any]]) -> dict[str, Case]:
    """One case per test, numbered in the order of promptfoo's ``testIdx``.

    The question is the rendered prompt when every variant sent the same one, else the
    test's vars (several prompts render a test differently).
    """
    by_test: dict[str, list[dict[str, Any]]] = {}
    for row in sorted(rows, key=_test_index):
        by_test.setdefault(_test_key(row), []).append(row)
    cases: dict[str, Case] = {}
    for number, (key, test_rows) in enumerate(by_test.items(), start=1):
        first = test_rows[0]
        test = first.get("testCase") or {}
        variables = first.get("vars") or {}
        question = _shared(test_rows, "raw")
        asserted = "; ".join(_describe(a) for a in _assertions(first)) or "(no assertions)"
        cases[key] = Case(
            id=f"test-{number}",
            slice=(_shared(test_rows, "label") or "promptfoo")[:80],
            question=question or json.dumps(variables, ensure_ascii=False, default=str),
            expected_behavior="answer",
            expected_fact=asserted,
            rationale=str(test.get("description")) if test.get("description") else None,
            metadata={"promptfoo": {"vars": variables, "testIdx": _test_index(first)}},
        )
    return cases


def _variant_names(variants: list[Variant], labels: dict[Variant, str]) -> dict[Variant, str]:
    """Each variant's name: its provider when no provider has several columns, else
    ``[provider] prompt label``, as promptfoo heads its columns (``#2`` on a repeated name)."""
    providers = [variant[1] for variant in variants]
    several = len(set(providers)) < len(providers)
    used: Counter[str] = Counter()
    names: dict[Variant, str] = {}
    for variant in variants:
        base = f"[{variant[1]}] {labels[variant][:60]}" if several else variant[1]
        used[base] += 1
        names[variant] = base if used[base] == 1 else f"{base} #{used[base]}"
    return names


def _prompt_labels(rows: list[dict[str, Any]]) -> dict[Variant, str]:
    """Each variant's prompt label (``prompt N`` for prompts that have none)."""
    keys = list(dict.fromkeys(_prompt_key(r) for r in rows))
    labels: dict[Variant, str] = {}
    for row in rows:
        prompt = _prompt(row)
        label = prompt.get("label") or prompt.get("display")
        fallback = f"prompt {keys.index(_prompt_key(row)) + 1}"
        labels.setdefault(_variant(row), str(label) if label else fallback)
    return labels


def _record_and_judgment(
    row: dict[str, Any], case_id: str, trial: int, version: str | None
) -> tuple[Record, Judgment | None]:
    checks = _checks(row)
    response = row.get("response") or {}
    output = response.get("output") if isinstance(response, dict) else None
    is_error = row.get("failureReason") == ERROR_REASON or (output is None and row.get("error"))
    if is_error:
        outcome: Answer | Error = Error(
            error_class="provider_error", message=str(row.get("error") or "")
        )
    else:
        text = output if isinstance(output, str) else json.dumps(output)
        outcome = Answer(text=text)
    record = Record(
        case_id=case_id,
        trial=trial,
        outcome=outcome,
        latency_ms=row.get("latencyMs"),
        usage=_usage(row),
        extra={"checks": checks, "promptfoo_score": row.get("score")}
        if checks
        else {"promptfoo_score": row.get("score")},
    )
    if is_error:
        return record, None
    status, reason = _judge(row, checks)
    judgment = Judgment(
        case_id=case_id,
        trial=trial,
        status=status,
        reason=reason,
        grader="promptfoo:assertions",
        grader_version=str(version or "unknown"),
        score=row.get("score") if isinstance(row.get("score"), int | float) else None,
    )
    return record, judgment


def import_promptfoo(path: Path) -> list[ImportedRun]:
    """One ``ImportedRun`` per (prompt, provider) variant of a promptfoo export, over the
    same cases (its tests); rows of one test and variant are trials."""
    export = read_export(path)
    rows: list[dict[str, Any]] = export["results"]
    version = export["_metadata"].get("promptfooVersion")
    if not rows:
        raise _bad(path, "the export has no result rows")
    cases = _cases(rows)
    dataset = Dataset(name=f"promptfoo-{len(cases)}-tests", cases=tuple(cases.values()))
    by_variant: dict[Variant, list[dict[str, Any]]] = {}
    for row in rows:
        by_variant.setdefault(_variant(row), []).append(row)
    labels = _prompt_labels(rows)
    names = _variant_names(list(by_variant), labels)
    several_prompts = len({variant[0] for variant in by_variant}) > 1
    repeats = Counter((_variant(r), _test_key(r)) for r in rows)
    trials = max(repeats.values())  # the export's repeat count, the same for every variant
    digest = file_sha256(path)
    runs = []
    for variant, variant_rows in by_variant.items():
        provider = variant[1]
        seen: Counter[str] = Counter()
        records: list[Record] = []
        judgments: list[Judgment] = []
        for row in sorted(variant_rows, key=_test_index):  # a repeat's testIdx is later
            key = _test_key(row)
            seen[key] += 1
            record, judgment = _record_and_judgment(row, cases[key].id, seen[key], version)
            records.append(record)
            if judgment is not None:
                judgments.append(judgment)
        failing = Counter(
            c["name"] for r in records for c in r.extra.get("checks", []) if c["passed"] is False
        )
        notes = []
        if failing:
            notes.append(
                "failing assertions: "
                + ", ".join(f"{name} {count}" for name, count in failing.most_common())
            )
        missing = len(cases) * trials - len(variant_rows)
        if missing > 0:
            notes.append(f"{missing} case-trial(s) have no row for this variant: missing")
        target: dict[str, Any] = {"type": "promptfoo", "model": provider}
        overrides = {"provider": provider}
        if several_prompts:
            target["prompt"] = labels[variant]
            overrides["prompt"] = labels[variant]
        runs.append(
            ImportedRun(
                dataset=dataset,
                records=tuple(records),
                judgments=tuple(judgments),
                trials=trials,
                source=Source(
                    tool=TOOL,
                    tool_version=version,
                    path=str(path),
                    sha256=digest,
                    reported=_reported(variant_rows),
                    notes=tuple(notes),
                ),
                target=target,
                grader={"name": "promptfoo:assertions", "version": str(version or "unknown")},
                started_at=parse_time(export["_metadata"].get("evaluationCreatedAt"))
                or parse_time(export.get("timestamp")),
                extra={
                    "results_version": export.get("version"),
                    "provider": provider,
                    "prompt": labels[variant],
                    "promptIdx": variant[2],
                    "rows": len(variant_rows),
                },
                variant=names[variant] if len(by_variant) > 1 else None,
                overrides=overrides if len(by_variant) > 1 else {},
            )
        )
    return runs
