"""The pure core (cases, outcomes, grading, metrics, report, compare, trend, diagnose,
gates) touches no file, network, clock, environment or global state, and never imports the
edges.

Packages are checked as they appear: a core package added later is covered automatically.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parent.parent / "src" / "assay"
CORE = (
    "cases",
    "outcomes",
    "grading",
    "metrics",
    "compare",
    "diagnose",
    "report",
    "trend",
    "gates",
    "planning",
)
EDGES = ("load", "targets", "agents", "runner", "store", "runs", "tracing", "view", "cli", "demo")

# Calls and attributes that reach the outside world or read a clock.
BANNED_CALLS = {"open", "input", "print", "exec", "eval", "__import__"}
BANNED_ATTRIBUTES = {
    ("datetime", "now"),
    ("datetime", "utcnow"),
    ("datetime", "today"),
    ("date", "today"),
    ("time", "time"),
    ("time", "time_ns"),
    ("time", "monotonic"),
    ("time", "perf_counter"),
    ("time", "sleep"),
    ("os", "environ"),
    ("os", "getenv"),
    ("os", "system"),
}
BANNED_METHODS = {"read_text", "write_text", "read_bytes", "write_bytes", "open", "mkdir", "unlink"}
BANNED_MODULES = {
    "requests",
    "socket",
    "subprocess",
    "httpx",
    "aiohttp",
    "urllib.request",
    "http.client",
    "sqlite3",
    "sqlalchemy",
    "shutil",
    "tempfile",
}


def _core_files() -> list[Path]:
    files: list[Path] = []
    for package in CORE:
        root = SRC / package
        if root.is_dir():
            files.extend(sorted(root.rglob("*.py")))
    return files


def _module_of(path: Path) -> str:
    parts = path.relative_to(SRC.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported(node: ast.Import | ast.ImportFrom, module: str, is_package: bool) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = node.module or ""
    if node.level:
        anchor = module.split(".")
        anchor = anchor if is_package else anchor[:-1]
        anchor = anchor[: len(anchor) - (node.level - 1)]
        base = ".".join([*anchor, base] if base else anchor)
    return [base] + [f"{base}.{alias.name}" for alias in node.names]


def _violations(path: Path, source: str | None = None) -> list[str]:
    """Every banned import, call or attribute in ``path`` (or in ``source``, read as if it
    were that file)."""
    text = path.read_text(encoding="utf-8") if source is None else source
    tree = ast.parse(text, filename=str(path))
    module = _module_of(path)
    found: list[str] = []
    edges = tuple(f"assay.{e}" for e in EDGES)
    for node in ast.walk(tree):
        where = f"{path.relative_to(SRC.parent)}:{getattr(node, 'lineno', '?')}"
        if isinstance(node, ast.Import | ast.ImportFrom):
            for name in _imported(node, module, path.name == "__init__.py"):
                if name in BANNED_MODULES or name.split(".")[0] in BANNED_MODULES:
                    found.append(f"{where}: imports {name}")
                if name in edges or name.startswith(tuple(e + "." for e in edges)):
                    found.append(f"{where}: imports the edge module {name}")
        elif isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name) and func.id in BANNED_CALLS:
                found.append(f"{where}: calls {func.id}(")
            if isinstance(func, ast.Attribute) and func.attr in BANNED_METHODS:
                found.append(f"{where}: calls .{func.attr}(")
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            if (node.value.id, node.attr) in BANNED_ATTRIBUTES:
                found.append(f"{where}: uses {node.value.id}.{node.attr}")
        elif isinstance(node, ast.Global):
            found.append(f"{where}: declares global {', '.join(node.names)}")
    return found


def test_there_is_a_core_to_check() -> None:
    assert len(_core_files()) > 10


@pytest.mark.parametrize("path", _core_files(), ids=lambda p: str(p.relative_to(SRC)))
def test_core_module_is_pure(path: Path) -> None:
    assert _violations(path) == []


def test_the_checker_catches_what_it_bans() -> None:
    source = (
        "import subprocess\n"
        "import os\n"
        "from datetime import datetime\n"
        "from assay.load import load_dataset\n"
        "from ..runner import run\n"
        "x = open('f')\n"
        "y = os.environ['HOME']\n"
        "z = datetime.now()\n"
        "t = p.read_text()\n"
    )
    found = _violations(SRC / "metrics" / "_probe.py", source)
    assert any("imports subprocess" in f for f in found)
    assert any("edge module assay.load" in f for f in found)
    assert any("edge module assay.runner" in f for f in found)
    assert any("calls open(" in f for f in found)
    assert any("os.environ" in f for f in found)
    assert any("datetime.now" in f for f in found)
    assert any(".read_text(" in f for f in found)


def test_relative_imports_inside_the_core_are_allowed() -> None:
    assert _violations(SRC / "metrics" / "_probe.py", "from ._rate import Rate\n") == []


# --- The layers: no two components import each other, not even from inside a function. ---
#
# A component is a subpackage of assay (``assay.compare``), or a top-level module
# (``assay.errors``). An import under ``if TYPE_CHECKING:`` is a type annotation, not a
# dependency, and is not counted.

RENDER = "assay.render"

# The one import from below the render layer into it: a model that a notebook or rich
# shows draws itself (assay._display), importing the render layer inside the method, when
# it is first shown. Nothing else may reach up.
DISPLAY = "assay._display"
DISPLAY_DRAWS = "assay.render"


def _component(module: str) -> str:
    return ".".join(module.split(".")[:2])


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import in ``tree``, at module level or inside a function, but those under
    ``if TYPE_CHECKING:``."""
    if isinstance(tree, ast.If) and _is_type_checking(tree.test):
        for child in tree.orelse:
            yield from _imports(child)
        return
    if isinstance(tree, ast.Import | ast.ImportFrom):
        yield tree
    for child in ast.iter_child_nodes(tree):
        yield from _imports(child)


def _dependencies(path: Path, source: str | None = None) -> set[str]:
    """The other components ``path`` imports, at module level or inside a function."""
    text = path.read_text(encoding="utf-8") if source is None else source
    module = _module_of(path)
    own = _component(module)
    found: set[str] = set()
    for node in _imports(ast.parse(text, filename=str(path))):
        for name in _imported(node, module, path.name == "__init__.py")[:1] + (
            [alias.name for alias in node.names] if isinstance(node, ast.Import) else []
        ):
            if name.startswith("assay.") and _component(name) != own:
                found.add(_component(name))
    return found


def _graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for path in sorted(SRC.rglob("*.py")):
        graph.setdefault(_component(_module_of(path)), set()).update(_dependencies(path))
    graph[DISPLAY].discard(DISPLAY_DRAWS)
    return graph


def test_the_display_reaches_the_render_layer_only_when_asked() -> None:
    path = SRC / "_display.py"
    tree = ast.parse(path.read_text(encoding="utf-8"))
    top = [n for n in tree.body if isinstance(n, ast.Import | ast.ImportFrom)]
    assert all(not (n.module or "").startswith(DISPLAY_DRAWS) for n in top if n.module)
    assert _dependencies(path) == {DISPLAY_DRAWS}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                connect(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group: list[str] = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                group.append(top)
                if top == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            connect(node)
    return found


def test_no_two_components_import_each_other() -> None:
    graph = _graph()
    assert len(graph) > 20
    assert _cycles(graph) == []


def test_the_core_never_reaches_the_render_layer() -> None:
    graph = _graph()
    core = [f"assay.{p}" for p in CORE]
    reaching = {c: sorted(graph.get(c, set()) & {RENDER}) for c in core}
    assert {c: r for c, r in reaching.items() if r} == {}


# The layers, lowest first: a component imports only from its own layer or the ones below.
# The speed tricks (``assay._fast``) sit under everything, importing no other component.
# The core computes in tiers: cases and outcomes, then grading, counting (metrics), the
# report, and what reads reports (a comparison, a trend, a diagnosis, a gate); the render
# layer draws what the core computed; the edges reach files, stores, targets and the
# network, and those that read a stored run (its report included: ``assay.runs``) sit below
# those that run suites and move runs in and out (the runner and interop call the read
# model, never the reverse); the front ends face the user. A component added later must be
# given a layer here.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("assay._fast",),
    (
        "assay._controls",
        "assay._display",
        "assay._frames",
        "assay._json_schema",
        "assay._lazy",
        "assay._urls",
        "assay._validation",
        "assay._version",
        "assay._written",
        "assay.errors",
        "assay.formats",
    ),
    ("assay.cases", "assay.outcomes"),
    ("assay.grading",),
    ("assay.metrics",),
    ("assay.report",),
    ("assay.compare", "assay.trend", "assay.diagnose", "assay.gates", "assay.planning"),
    ("assay.render",),
    (
        "assay._interrupt",
        "assay._plugins",
        "assay.load",
        "assay.targets",
        "assay.agents",
        "assay.store",
        "assay.runs",
        "assay.tracing",
        "assay.demo",
    ),
    ("assay.runner", "assay.interop", "assay.scoring"),
    ("assay.cli", "assay.view", "assay.pytest_plugin", "assay.__main__", "assay"),
)


def _layer_violations(graph: dict[str, set[str]]) -> list[str]:
    layer = {component: i for i, names in enumerate(LAYERS) for component in names}
    return [
        f"{component} (layer {layer[component]}) imports {dep} (layer {layer[dep]})"
        for component, deps in sorted(graph.items())
        for dep in sorted(deps)
        if layer[dep] > layer[component]
    ]


def test_a_stored_run_s_report_is_built_in_the_read_model_alone() -> None:
    graph = _graph()
    assert "assay.runs" in graph["assay.runner"]
    assert "assay.runner" not in graph["assay.runs"]
    defining = [
        str(path.relative_to(SRC))
        for path in sorted(SRC.rglob("*.py"))
        if "def report_for_run(" in path.read_text(encoding="utf-8")
    ]
    assert defining == ["runs/_report.py"]


def test_every_component_has_a_layer() -> None:
    placed = {component for names in LAYERS for component in names}
    assert sorted(set(_graph()) - placed) == []


def test_no_component_imports_from_a_layer_above_it() -> None:
    assert _layer_violations(_graph()) == []


def test_the_layer_check_catches_an_upward_import() -> None:
    graph = {
        "assay.metrics": {"assay.cases", "assay.render"},
        "assay.report": {"assay.metrics", "assay.compare"},
        "assay.trend": {"assay.compare", "assay.gates"},
        "assay.cli": {"assay.runner"},
    }
    assert _layer_violations(graph) == [
        "assay.metrics (layer 4) imports assay.render (layer 7)",
        "assay.report (layer 5) imports assay.compare (layer 6)",
    ]


# --- Speed tricks: reaching into the interpreter or pydantic's internals, in ``assay._fast``
# alone (ARCHITECTURE.md; each kept while bench/RESULTS.md shows it pays). ---

FAST = SRC / "_fast"
REACHING_ATTRIBUTES = {
    ("sys", "modules"),
    ("os", "fork"),
    ("os", "waitpid"),
    ("object", "__setattr__"),
}
REACHING_FROM = {("sys", "modules"), ("os", "fork"), ("os", "waitpid")}


def _tricks(path: Path, source: str | None = None) -> list[str]:
    """Every use in ``path`` (or in ``source``, read as that file) of what only
    ``assay._fast`` may use."""
    text = path.read_text(encoding="utf-8") if source is None else source
    found: list[str] = []
    for node in ast.walk(ast.parse(text, filename=str(path))):
        where = f"{path.relative_to(SRC.parent)}:{getattr(node, 'lineno', '?')}"
        if isinstance(node, ast.Import):
            found += [f"{where}: imports gc" for a in node.names if a.name == "gc"]
        elif isinstance(node, ast.ImportFrom) and node.module in ("gc", "sys", "os"):
            for alias in node.names:
                if node.module == "gc" or (node.module, alias.name) in REACHING_FROM:
                    found.append(f"{where}: imports {alias.name} from {node.module}")
        elif isinstance(node, ast.Attribute):
            if node.attr.startswith("__pydantic_"):
                found.append(f"{where}: uses .{node.attr}")
            if isinstance(node.value, ast.Name):
                pair = (node.value.id, node.attr)
                if pair in REACHING_ATTRIBUTES or node.value.id == "gc":
                    found.append(f"{where}: uses {'.'.join(pair)}")
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and node.value.startswith("__pydantic_")
            and node.value.isidentifier()
        ):
            found.append(f"{where}: names {node.value}")
    return found


def _outside_fast() -> list[Path]:
    return [path for path in sorted(SRC.rglob("*.py")) if not path.is_relative_to(FAST)]


def test_only_assay_fast_reaches_into_the_interpreter_or_pydantic() -> None:
    assert len(_outside_fast()) > 100
    assert [f for path in _outside_fast() for f in _tricks(path)] == []


def test_the_trick_check_catches_a_planted_use() -> None:
    source = (
        "import gc\n"
        "import os\n"
        "import sys\n"
        "from sys import modules\n"
        "gc.freeze()\n"
        "sys.modules.pop('x')\n"
        "pid = os.fork()\n"
        "os.waitpid(pid, 0)\n"
        "from os import fork\n"
        "object.__setattr__(row, '__dict__', {})\n"
        "setattr(row, '__pydantic_fields_set__', set())\n"
        "row.__pydantic_extra__ = None\n"
    )
    found = _tricks(SRC / "report" / "_probe.py", source)
    for use in (
        "imports gc",
        "imports modules from sys",
        "uses gc.freeze",
        "uses sys.modules",
        "uses os.fork",
        "uses os.waitpid",
        "imports fork from os",
        "uses object.__setattr__",
        "names __pydantic_fields_set__",
        "uses .__pydantic_extra__",
    ):
        assert any(use in f for f in found), use
    assert _tricks(SRC / "report" / "_probe.py", "import os\nimport sys\nos.getpid()\n") == []


def test_only_assay_fast_forks() -> None:
    """The processes forked for speed are started, reaped and stopped by one module."""
    forks = ("os.fork", "os.waitpid", "fork from os", "waitpid from os")
    forking = [
        str(path.relative_to(SRC))
        for path in sorted(SRC.rglob("*.py"))
        if any(use in found for found in _tricks(path) for use in forks)
    ]
    assert forking == ["_fast/forked.py"]


def test_the_cycle_check_sees_imports_inside_functions() -> None:
    source = "def f() -> None:\n    from assay.runner import run_suite\n"
    assert _dependencies(SRC / "load" / "_probe.py", source) == {"assay.runner"}
    typed = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from assay.runner import x\n"
    assert _dependencies(SRC / "load" / "_probe.py", typed) == set()
    assert _dependencies(SRC / "load" / "_probe.py", "from ..targets import build\n") == {
        "assay.targets"
    }
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(graph) == [["a", "b", "c"]]


# --- Span names and attribute keys are written once, in assay.outcomes.span_names. ---


def _span_name_literals(path: Path, names: set[str], source: str | None = None) -> list[str]:
    text = path.read_text(encoding="utf-8") if source is None else source
    tree = ast.parse(text, filename=str(path))
    in_fstrings = {
        id(value)
        for node in ast.walk(tree)
        if isinstance(node, ast.JoinedStr)
        for value in node.values
    }
    return [
        f"{path.relative_to(SRC.parent)}:{node.lineno}: {node.value!r}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and node.value in names
        and id(node) not in in_fstrings
    ]


def test_span_names_are_written_once() -> None:
    from assay.outcomes import span_names

    names = {v for k, v in vars(span_names).items() if k.isupper() and isinstance(v, str)}
    assert len(names) > 40
    home = SRC / "outcomes" / "span_names.py"
    found = [
        hit
        for path in sorted(SRC.rglob("*.py"))
        if path != home
        for hit in _span_name_literals(path, names)
    ]
    assert found == []
    probe = 'span.attributes.get("assay.case.id")\n'
    assert _span_name_literals(SRC / "diagnose" / "_probe.py", names, probe)


# --- The status rule and the packed layout are written once, in grading._status_rule. ---

RULE_HOME = SRC / "grading" / "_status_rule.py"
# How a copy of the rule or of the layout reads: a kind or status compared in SQL, or a
# case-trial packed by hand.
RULE_COPIES = (
    "= 'error'",
    "WHEN 'error'",
    "WHEN 'passed'",
    "'error' THEN",
    "* 256",
    ">> 8",
    "& 255",
    "* 64 +",
)


def _rule_copies(path: Path, source: str | None = None) -> list[str]:
    text = path.read_text(encoding="utf-8") if source is None else source
    return [
        f"{path.relative_to(SRC.parent)}:{number}: {line.strip()}"
        for number, line in enumerate(text.splitlines(), 1)
        if any(copy in line for copy in RULE_COPIES)
    ]


def test_the_status_rule_and_the_layout_are_written_once() -> None:
    found = [
        hit for path in sorted(SRC.rglob("*.py")) if path != RULE_HOME for hit in _rule_copies(path)
    ]
    assert found == []
    probe = "STATUS = \"CASE WHEN kind = 'error' THEN 'error' ELSE jd.status END\"\n"
    assert _rule_copies(SRC / "runs" / "_probe.py", probe)
    assert _rule_copies(SRC / "metrics" / "_probe.py", "key = values >> 8\n")


# --- No two modules import each other, not even from inside a function. ---

# The one module cycle left: a stored run's rows made by a forked process, which the
# one-path redesign of the report pipeline replaces (ARCHITECTURE.md). Nothing may join it.
KNOWN_MODULE_CYCLES = [["assay.runs._rendered", "assay.runs._streamed"]]


def _module_dependencies(path: Path, modules: set[str], source: str | None = None) -> set[str]:
    """The modules of ``modules`` that ``path`` imports (a name imported from a package is
    the package, unless it is one of its modules), outside ``if TYPE_CHECKING:``."""
    text = path.read_text(encoding="utf-8") if source is None else source
    module = _module_of(path)
    found: set[str] = set()
    for node in _imports(ast.parse(text, filename=str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name in modules)
            continue
        base, *members = _imported(node, module, path.name == "__init__.py")
        named = [m for m in members if m in modules]
        found.update(named)
        if len(named) < len(members) and base in modules:
            found.add(base)
    return found - {module}


def _module_graph() -> dict[str, set[str]]:
    paths = {_module_of(path): path for path in sorted(SRC.rglob("*.py"))}
    graph = {m: _module_dependencies(path, set(paths)) for m, path in paths.items()}
    graph[DISPLAY] = {m for m in graph[DISPLAY] if not m.startswith(DISPLAY_DRAWS)}
    return graph


def test_no_two_modules_import_each_other() -> None:
    graph = _module_graph()
    assert len(graph) > 250
    assert _cycles(graph) == KNOWN_MODULE_CYCLES


def test_the_module_cycle_check_sees_a_submodule_imported_from_its_package() -> None:
    modules = {"assay.store", "assay.store._reserve", "assay.store._store"}
    path = SRC / "store" / "_store.py"
    assert _module_dependencies(path, modules, "from assay.store import _reserve\n") == {
        "assay.store._reserve"
    }
    assert _module_dependencies(path, modules, "from assay.store import RunInfo\n") == {
        "assay.store"
    }
    deferred = "def f() -> None:\n    from assay.store._reserve import hold\n"
    assert _module_dependencies(path, modules, deferred) == {"assay.store._reserve"}


# --- Imports of assay's own modules go at the top; no package reaches into another's
# private modules. ---
#
# A function-level import of an assay module is kept only to defer what a command, or a
# pytest session, does not need (numpy, SQLAlchemy, the judge, the matrix runner), or to
# break the one module cycle left; the line before it (or its own) says which. The command
# line (``assay.cli``) defers each command's work by design and is not checked here.


def _assay_imports(tree: ast.AST) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool]]:
    """Every import in ``tree`` but those under ``if TYPE_CHECKING:``, and whether it is
    inside a function."""

    def walk(node: ast.AST, inside: bool) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool]]:
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.orelse:
                yield from walk(child, inside)
            return
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node, inside
        inner = inside or isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        for child in ast.iter_child_nodes(node):
            yield from walk(child, inner)

    yield from walk(tree, False)


def _private_imports(path: Path, source: str | None = None) -> list[str]:
    """Each import in ``path`` of another package's private module or name
    (``assay.store._rows`` from ``assay.runs``; ``assay._lazy`` and the like, assay's own,
    are no other package's)."""
    text = path.read_text(encoding="utf-8") if source is None else source
    module = _module_of(path)
    own = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: list[str] = []
    for node, _ in _assay_imports(ast.parse(text, filename=str(path))):
        for name in _imported(node, module, path.name == "__init__.py"):
            parts = name.split(".")
            private = next(
                (
                    i
                    for i, part in enumerate(parts)
                    if i > 0 and part.startswith("_") and not part.endswith("__")
                ),
                None,
            )
            if private is None or parts[0] != "assay":
                continue
            package = ".".join(parts[:private])
            if own != package and not own.startswith(package + "."):
                found.append(f"{path.relative_to(SRC)}:{node.lineno}: {name}")
                break
    return found


def _unexplained_deferrals(path: Path, source: str | None = None) -> list[str]:
    """The function-level imports of assay modules in ``path`` with no comment on their
    own line or on the line before their group of imports."""
    text = path.read_text(encoding="utf-8") if source is None else source
    lines = text.splitlines()
    module = _module_of(path)
    found: list[str] = []
    imports = list(_assay_imports(ast.parse(text, filename=str(path))))
    covered = {
        line
        for node, _ in imports
        for line in range(node.lineno, (node.end_lineno or node.lineno) + 1)
    }
    for node, inside in imports:
        names = _imported(node, module, path.name == "__init__.py")
        if not inside or not names[0].startswith("assay"):
            continue
        above = node.lineno - 1
        while above in covered:
            above -= 1
        if "#" not in lines[node.lineno - 1] and not lines[above - 1].strip().startswith("#"):
            found.append(f"{path.relative_to(SRC)}:{node.lineno}: {names[0]}")
    return found


def _checked_modules() -> list[Path]:
    return [p for p in sorted(SRC.rglob("*.py")) if p.relative_to(SRC).parts[0] != "cli"]


def test_no_module_imports_another_package_s_private_module() -> None:
    found = {hit for path in sorted(SRC.rglob("*.py")) for hit in _private_imports(path)}
    assert sorted(found) == []


def test_every_deferred_import_of_an_assay_module_says_why() -> None:
    found = {hit for path in _checked_modules() for hit in _unexplained_deferrals(path)}
    assert sorted(found) == []


def test_the_import_checks_catch_what_they_ban() -> None:
    probe = SRC / "runs" / "_probe.py"
    reached = "from assay.store._rows import json_items\nfrom ..report._model import CaseRow\n"
    assert [hit.split(": ")[1] for hit in _private_imports(probe, reached)] == [
        "assay.store._rows",
        "assay.report._model",
    ]
    own = "from assay.runs._slots import x\nfrom assay._lazy import lazy_exports\n"
    assert _private_imports(probe, own) == []
    bare = "def f() -> None:\n    from assay.store import open_store\n"
    assert _unexplained_deferrals(probe, bare) == ["runs/_probe.py:2: assay.store"]
    said = (
        "def f() -> None:\n"
        "    # deferred: the store loads SQLAlchemy\n"
        "    from assay.store import open_store\n"
        "    from assay.runner import run_suite\n"
        "    import json\n"
    )
    assert _unexplained_deferrals(probe, said) == []
    top = "from assay.store import open_store\n"
    assert _unexplained_deferrals(probe, top) == []
