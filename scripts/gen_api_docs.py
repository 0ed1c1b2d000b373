"""Write docs/api.md, the reference of the top-level ``assay`` namespace, from the code.

Each name in ``assay.__all__`` is listed under the step of the flow it belongs to, with its
signature and the first paragraph of its docstring, then the plugin protocols and the
built-in check functions (the ``assay.checks`` entry points in pyproject.toml), so a change
of either shows in the page (the documentation site shows it as its API reference):

    make api-doc        (or .venv/bin/python scripts/gen_api_docs.py)
"""

from __future__ import annotations

import ast
import importlib
import inspect
import itertools
import re
import tomllib
from pathlib import Path
from typing import Annotated, Any, get_args, get_origin

from pydantic import BaseModel
from pydantic.fields import FieldInfo

import assay

ROOT = Path(__file__).resolve().parent.parent
TARGET = ROOT / "docs" / "api.md"
WIDTH = 88
HEADER = """\
# Python API

<!-- Generated from the code by scripts/gen_api_docs.py: edit the docstrings and
     signatures, then run `make api-doc`. -->

Every name below is imported from `assay` (`from assay import summarize`); anything else is
internal and may change without notice. Each entry gives the signature and the first
paragraph of the docstring; the pages of the [user guide](index.md) say how the pieces
fit together, and [statistics](statistics.md) what each interval is.
"""

GROUPS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Loading files", ("assay.load",)),
    ("Cases and datasets", ("assay.cases",)),
    ("Outcomes and results", ("assay.outcomes",)),
    ("Grading", ("assay.grading", "assay.grading.checks")),
    ("Rates and intervals", ("assay.metrics",)),
    ("Reports and gates", ("assay.report", "assay.gates", "assay.scoring")),
    ("Planning", ("assay.planning",)),
    ("Comparing runs", ("assay.compare",)),
    ("Systems under test", ("assay.targets",)),
    ("Running suites and stored runs", ("assay.runner", "assay.store", "assay.runs")),
    ("Errors", ("assay.errors",)),
)
"""Each section of the page and the packages whose names it lists, in the order of the flow
(ARCHITECTURE.md)."""

PLUGINS = "Plugin protocols"
PLUGINS_TEXT = """\
A target type, a grader type and a check are plugins (entry points `assay.targets`,
`assay.graders` and `assay.checks`: [extending assay](extending.md)). A target implements
`Target` (or subclasses `BaseTarget`), a grader implements `Grader` (or `CallingGrader` when
it asks a model), a check is a function of the `Check` protocol; each is listed above, with
`TargetType` and `GraderType`, what a plugin's entry point names."""
CHECKS = "Built-in checks"
CHECKS_TEXT = (
    "The check functions assay registers under `assay.checks`, by the name a profile uses."
)


def _attribute_doc(name: str, package: str) -> str | None:
    """The string literal after ``name = ...`` at the top of a module of ``package``."""
    folder = Path(assay.__file__).parent.joinpath(*package.split(".")[1:])
    for path in sorted(folder.glob("*.py")):
        body = ast.parse(path.read_text(encoding="utf-8")).body
        for statement, after in itertools.pairwise(body):
            targets = statement.targets if isinstance(statement, ast.Assign) else []
            if any(isinstance(t, ast.Name) and t.id == name for t in targets) and (
                isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant)
            ):
                return str(after.value.value)
    return None


def _first_paragraph(name: str, obj: Any, package: str) -> str:
    if inspect.isclass(obj) or inspect.isroutine(obj):
        doc = obj.__doc__
    else:
        doc = _attribute_doc(name, package)
    if not doc:
        return ""
    paragraph = inspect.cleandoc(doc).split("\n\n")[0]
    return " ".join(line.strip() for line in paragraph.splitlines())


_QUALIFIED = re.compile(r"\b(?:[a-z_][a-z0-9_]*\.)+(?=[A-Za-z_])")


def _type_text(annotation: Any) -> str:
    """An annotation as it reads in the source, without module paths."""
    text = annotation if isinstance(annotation, str) else inspect.formatannotation(annotation)
    return _QUALIFIED.sub("", text)


def _parameter(param: inspect.Parameter) -> str:
    text = param.name
    if param.kind is inspect.Parameter.VAR_POSITIONAL:
        text = f"*{text}"
    elif param.kind is inspect.Parameter.VAR_KEYWORD:
        text = f"**{text}"
    if param.annotation is not inspect.Parameter.empty:
        text += f": {_type_text(param.annotation)}"
    if param.default is not inspect.Parameter.empty:
        text += f" = {param.default!r}" if text != param.name else f"={param.default!r}"
    return text


def _parameters(signature: inspect.Signature) -> list[str]:
    parts: list[str] = []
    seen_keyword_only = False
    for param in signature.parameters.values():
        if param.kind is inspect.Parameter.KEYWORD_ONLY and not seen_keyword_only:
            parts.append("*")
            seen_keyword_only = True
        elif param.kind is inspect.Parameter.VAR_POSITIONAL:
            seen_keyword_only = True
        parts.append(_parameter(param))
    return parts


def _call(name: str, signature: inspect.Signature, *, returns: bool = True) -> str:
    back = signature.return_annotation
    tail = "" if not returns or back is inspect.Signature.empty else f" -> {_type_text(back)}"
    params = _parameters(signature)
    one_line = f"{name}({', '.join(params)}){tail}"
    if len(one_line) <= WIDTH:
        return one_line
    return f"{name}(\n" + "".join(f"    {p},\n" for p in params) + f"){tail}"


def _default(field: FieldInfo) -> Any:
    if field.is_required():
        return inspect.Parameter.empty
    if field.default_factory is not None:
        return field.default_factory()  # type: ignore[call-arg]
    return field.default


def _fields(model: type[BaseModel]) -> inspect.Signature:
    """A model's constructor as its fields (keyword arguments)."""
    params = [
        inspect.Parameter(
            field.alias or name,
            inspect.Parameter.KEYWORD_ONLY,
            annotation=field.annotation,
            default=_default(field),
        )
        for name, field in model.model_fields.items()
    ]
    return inspect.Signature(params)


def _signature(name: str, obj: Any) -> str:
    if inspect.isclass(obj):
        bases = ", ".join(b.__name__ for b in obj.__bases__ if b is not object)
        head = f"class {name}({bases})" if bases else f"class {name}"
        if issubclass(obj, BaseException) or getattr(obj, "_is_protocol", False):
            return head
        if issubclass(obj, BaseModel):
            return f"{head}\n{_call(name, _fields(obj), returns=False)}"
        try:
            made = inspect.signature(obj)
        except (TypeError, ValueError):
            return head
        return f"{head}\n{_call(name, made, returns=False)}"
    if inspect.isroutine(obj):
        return _call(name, inspect.signature(obj))
    if get_origin(obj) is Annotated:
        obj = get_args(obj)[0]
    return f"{name} = {_type_text(obj)}"


def _entry(name: str, package: str) -> list[str]:
    obj = getattr(assay, name)
    lines = [f"### `{name}`", "", "```python", _signature(name, obj), "```"]
    summary = _first_paragraph(name, obj, package)
    if summary:
        lines += ["", summary]
    return lines


def api_docs() -> str:
    """The exact contents of docs/api.md."""
    exports: dict[str, str] = assay._EXPORTS
    listed = {module for _, modules in GROUPS for module in modules}
    unplaced = sorted(name for name, module in exports.items() if module not in listed)
    if unplaced:
        raise SystemExit(f"scripts/gen_api_docs.py: add a section for {unplaced}")
    lines = [HEADER.rstrip("\n"), ""]
    titles = [title for title, _ in GROUPS] + [PLUGINS, CHECKS]
    lines += [f"- [{title}](#{_anchor(title)})" for title in titles]
    lines += ["", f"`assay.__version__` is the installed version ({_version_note()})."]
    for title, modules in GROUPS:
        names = sorted((n for n, m in exports.items() if m in modules), key=str.casefold)
        lines += ["", f"## {title}"]
        for name in names:
            lines += ["", *_entry(name, exports[name])]
    lines += ["", f"## {PLUGINS}", "", PLUGINS_TEXT, "", f"## {CHECKS}", "", CHECKS_TEXT]
    for name, target in check_functions().items():
        lines += ["", *_check_entry(name, target)]
    return "\n".join(lines) + "\n"


def check_functions() -> dict[str, str]:
    """Each built-in check's name and its function (``module:function``), in the order of
    pyproject.toml's ``assay.checks`` entry points."""
    with (ROOT / "pyproject.toml").open("rb") as f:
        points: dict[str, str] = tomllib.load(f)["project"]["entry-points"]["assay.checks"]
    return points


def _check_entry(name: str, target: str) -> list[str]:
    module, _, attribute = target.partition(":")
    function = getattr(importlib.import_module(module), attribute)
    lines = [f"### `{name}`", "", "```python", _call(name, inspect.signature(function)), "```"]
    summary = _first_paragraph(name, function, module)
    return [*lines, "", summary] if summary else lines


def _anchor(title: str) -> str:
    return re.sub(r"[^a-z0-9 -]", "", title.lower()).replace(" ", "-")


def _version_note() -> str:
    return "a string, e.g. `0.1.0`"


if __name__ == "__main__":
    TARGET.write_text(api_docs(), encoding="utf-8")
    print(f"wrote {TARGET}")
