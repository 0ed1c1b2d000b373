"""Every pydantic model of assay builds its validator on first use, not at import: a
command pays only for the models it validates or serializes."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "assay"
MODEL_BASES = {"BaseModel", "CompactModel"}


def _eager_models(tree: ast.Module, where: str) -> list[str]:
    """The classes of ``tree`` that derive from a pydantic base by name, declare fields,
    and do not set ``defer_build=True`` in their ``model_config``."""
    eager = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.ClassDef):
            continue
        bases = {base.id for base in node.bases if isinstance(base, ast.Name)}
        if not bases & MODEL_BASES:
            continue
        if not any(isinstance(item, ast.AnnAssign) for item in node.body):
            continue
        deferred = False
        for item in node.body:
            if (
                isinstance(item, ast.Assign)
                and any(isinstance(t, ast.Name) and t.id == "model_config" for t in item.targets)
                and isinstance(item.value, ast.Call)
            ):
                deferred = any(
                    kw.arg == "defer_build"
                    and isinstance(kw.value, ast.Constant)
                    and kw.value.value is True
                    for kw in item.value.keywords
                )
        if not deferred:
            eager.append(f"{where}:{node.lineno} {node.name}")
    return eager


def test_every_model_defers_its_build() -> None:
    eager = []
    models = 0
    for path in sorted(SRC.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        models += sum(
            1
            for node in ast.walk(tree)
            if isinstance(node, ast.ClassDef)
            and {b.id for b in node.bases if isinstance(b, ast.Name)} & MODEL_BASES
        )
        eager += _eager_models(tree, str(path.relative_to(SRC.parent)))
    assert models > 50
    assert eager == []


def test_the_check_finds_an_eager_model() -> None:
    tree = ast.parse(
        "class A(BaseModel):\n"
        "    model_config = ConfigDict(frozen=True)\n"
        "    x: int\n"
        "class B(CompactModel):\n"
        "    model_config = ConfigDict(frozen=True, defer_build=True)\n"
        "    x: int\n"
        "class C(BaseModel):\n"
        "    x: int\n"
    )
    assert _eager_models(tree, "m.py") == ["m.py:1 A", "m.py:7 C"]


def test_a_deferred_model_validates_and_serializes_as_before() -> None:
    # In a fresh interpreter, so the model is still unbuilt when first used.
    probe = (
        "from assay.metrics import Rate\n"
        "assert not Rate.__pydantic_complete__\n"
        "rate = Rate.model_validate({'numerator': 3, 'denominator': 4, 'denominator_name': "
        "'graded case-trials', 'value': 0.75, 'ci': [0.19, 0.99]})\n"
        "print(rate.model_dump_json())\n"
        "assert Rate.__pydantic_complete__\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert '"numerator":3' in done.stdout


def test_the_outcome_adapter_is_shared_and_built_on_first_use() -> None:
    probe = (
        "import json\n"
        "from pydantic import TypeAdapter\n"
        "from pydantic._internal._mock_val_ser import MockValSer\n"
        "from assay.outcomes._outcome import OUTCOME_ADAPTER, Outcome\n"
        "import assay.outcomes._parse, assay.store._rows, assay.targets._replies\n"
        "import assay.targets._secrets, assay.interop._inspect\n"
        "users = [assay.outcomes._parse, assay.store._rows, assay.targets._replies,\n"
        "         assay.targets._secrets, assay.interop._inspect]\n"
        "assert all(m._OUTCOME is OUTCOME_ADAPTER for m in users)\n"
        "assert isinstance(OUTCOME_ADAPTER.validator, MockValSer)\n"
        "raw = [{'kind': 'answer', 'fact': 'x', 'text': 'y'}, {'kind': 'abstain'},\n"
        "       {'kind': 'error', 'error_class': 'timeout', 'message': 'm'}]\n"
        "eager = TypeAdapter(Outcome)\n"
        "for value in raw:\n"
        "    got = OUTCOME_ADAPTER.validate_python(value)\n"
        "    assert got == eager.validate_python(value)\n"
        "    assert OUTCOME_ADAPTER.dump_json(got) == eager.dump_json(got)\n"
        "    again = OUTCOME_ADAPTER.validate_json(eager.dump_json(got))\n"
        "    assert again == got\n"
        "assert not isinstance(OUTCOME_ADAPTER.validator, MockValSer)\n"
        "from pydantic import ValidationError\n"
        "errors = []\n"
        "for adapter in (OUTCOME_ADAPTER, eager):\n"
        "    try:\n"
        "        adapter.validate_python({'kind': 'nope'})\n"
        "    except ValidationError as err:\n"
        "        errors.append(str(err))\n"
        "assert len(errors) == 2 and errors[0] == errors[1], errors\n"
        "print('ok')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"
