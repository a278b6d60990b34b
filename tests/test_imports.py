"""The import graph of the support code: tests and benchmarks share code only through
harness/, and no two of their modules import each other, directly or round a longer loop."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

from harness import ROOT

# The folders whose modules may form no import loop: the engine, the build's parts and the support code.
SUPPORT = ("engine", "sitebuild", "harness", "bench", "tests")
# Modules that are a test or a benchmark: none of them is a library for another.
LEAVES = ("tests", "bench")


def python_files(root: Path) -> list[Path]:
    return sorted(path for folder in SUPPORT for path in (root / folder).rglob("*.py"))


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported(tree: ast.Module, name: str, is_package: bool, known: set[str]) -> set[str]:
    """The repository's modules that a module imports anywhere in it (in functions too)."""
    found: set[str] = set()

    def known_prefix(dotted: str) -> str | None:
        parts = dotted.split(".")
        while parts:
            if ".".join(parts) in known:
                return ".".join(parts)
            parts.pop()
        return None

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: counted from the module's package
                package = name.split(".") if is_package else name.split(".")[:-1]
                package = package[: len(package) - (node.level - 1)]
                base = ".".join([*package, base] if base else package)
            # `from package import module` imports that module; `from module import name`, the module.
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]
        else:
            continue
        for target in targets:
            module = known_prefix(target)
            if module is not None and module != name:
                found.add(module)
    return found


def import_graph(root: Path) -> dict[str, set[str]]:
    files = {module_name(path, root): path for path in python_files(root)}
    known = set(files)
    return {
        name: imported(ast.parse(path.read_text(encoding="utf-8")), name, path.name == "__init__.py", known)
        for name, path in files.items()
    }


@functools.cache
def support_graph() -> dict[str, set[str]]:
    return import_graph(ROOT)


def is_leaf(module: str) -> bool:
    return module.split(".")[0] in LEAVES


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for other in sorted(graph.get(module, ())):
            if other not in index:
                visit(other)
                low[module] = min(low[module], low[other])
            elif other in on_stack:
                low[module] = min(low[module], index[other])
        if low[module] == index[module]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == module:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return sorted(groups)


def test_no_test_or_benchmark_module_is_imported_as_a_library() -> None:
    """Tests and benchmarks import harness/, engine/ and build, never one another (conftest included)."""
    graph = support_graph()
    wrong = sorted(
        f"{module} imports {other}" for module, others in graph.items() for other in others if is_leaf(other)
    )
    assert wrong == []


def test_no_two_modules_import_each_other() -> None:
    """No module reaches itself through its imports, however long the loop."""
    assert cycles(support_graph()) == []


def test_the_checks_find_what_they_look_for(tmp_path: Path) -> None:
    """On a made-up tree: a test importing another test, a lazy import inside a function,
    a relative import and a loop of three modules are all seen."""
    files = {
        "tests/test_a.py": "from tests.test_b import helper\n",
        "tests/test_b.py": "def helper() -> None:\n    import harness.one\n",
        "harness/__init__.py": "",
        "harness/one.py": "from . import two\n",
        "harness/two.py": "import harness.three\n",
        "harness/three.py": "from harness.one import thing\n",
        "harness/four.py": "import json\nfrom harness import one\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    graph = import_graph(tmp_path)
    assert graph["tests.test_a"] == {"tests.test_b"}
    assert graph["tests.test_b"] == {"harness.one"}
    assert graph["harness.four"] == {"harness.one"}
    assert [other for other in graph["tests.test_a"] if is_leaf(other)] == ["tests.test_b"]
    assert cycles(graph) == [["harness.one", "harness.three", "harness.two"]]
