"""The layers of cuda2cpu point one way, and no modules import each other in a circle.

The layers, bottom to top (docs/ARCHITECTURE.md draws them).  A module may import the modules
of its own column (without a circle) and any module of a lower layer; it may not import a
module of a higher layer, nor of another column of its own layer.  Every module of ours must
sit somewhere: a new package has to be placed here.  Imports are read from the source with
``ast``, lazy ones inside functions included (they run too); an import under ``if
TYPE_CHECKING:`` is for annotations only and does not count.
"""

from __future__ import annotations

import ast
import os
import textwrap
from pathlib import Path

import networkx as nx
import pytest

ROOT = Path(__file__).resolve().parent.parent

#: Bottom to top: each layer is a tuple of columns, each column a tuple of module prefixes.
LAYERS: tuple[tuple[str, tuple[tuple[str, ...], ...]], ...] = (
    ("ground", (("foundation",), ("moccuda.build",))),
    ("front end and analyses", (("cuda_front",), ("barrier",))),
    ("emitter", (("openmp_emit",),)),
    ("driver", (("transpiler",),)),
    ("tools", (("transpiler.cli", "server", "moccuda", "rodinia_suite", "benchmarks"),)),
)

PACKAGES = ("foundation", "cuda_front", "barrier", "openmp_emit", "transpiler", "moccuda", "server",
            "rodinia_suite", "benchmarks")


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or \
        (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(tree: ast.AST):
    """The import statements of ``tree``, outside ``if TYPE_CHECKING:`` blocks."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            yield from (n for stmt in node.orelse for n in _imports_of(stmt))
            continue
        yield from _imports_of(node)


def _imports_of(node: ast.AST):
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        yield node
    else:
        yield from _imports(node)


def import_graph(root: Path, packages=PACKAGES) -> nx.DiGraph:
    """Module -> module edges between our modules, to the most specific module imported:
    ``from openmp_emit import emit`` is an edge to ``openmp_emit.emit``."""
    files = {module_name(p, root): p for pkg in packages if (root / pkg).is_dir()
             for p in (root / pkg).rglob("*.py")}
    graph = nx.DiGraph()
    graph.add_nodes_from(files)
    for name, path in files.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in _imports(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")
                    anchor = anchor[:len(anchor) - (node.level - 1)]
                    base = ".".join(anchor + ([base] if base else []))
                targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in files else base for alias in node.names]
            for target in targets:
                while target and target not in files:
                    target = target.rpartition(".")[0]
                if target and target != name:
                    graph.add_edge(name, target, line=node.lineno)
    return graph


def place(module: str, layers=LAYERS) -> tuple[int, int] | None:
    """(layer, column) of ``module``: the longest prefix that names it."""
    best, where = -1, None
    for i, (_, columns) in enumerate(layers):
        for j, prefixes in enumerate(columns):
            for prefix in prefixes:
                if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best:
                    best, where = len(prefix), (i, j)
    return where


def violations(graph: nx.DiGraph, layers=LAYERS) -> list[str]:
    """Every import that points up a layer or across to another column of its layer, every
    module placed nowhere, and every circle of imports."""
    found = [f"{m}: in no layer (place its package in LAYERS)" for m in graph if place(m, layers) is None]
    for a, b, data in graph.edges(data=True):
        pa, pb = place(a, layers), place(b, layers)
        if pa is None or pb is None:
            continue
        if pb[0] > pa[0]:
            found.append(f"{a} (line {data['line']}) imports {b}: up from '{layers[pa[0]][0]}' to '{layers[pb[0]][0]}'")
        elif pb[0] == pa[0] and pb[1] != pa[1]:
            found.append(f"{a} (line {data['line']}) imports {b}: across '{layers[pa[0]][0]}'")
    for component in nx.strongly_connected_components(graph):
        if len(component) > 1:
            cycle = nx.find_cycle(graph.subgraph(component))
            found.append("import circle: " + " -> ".join([a for a, _ in cycle] + [cycle[0][0]]))
    return sorted(found)


def test_the_layers_point_one_way_and_no_imports_circle():
    problems = violations(import_graph(ROOT))
    assert not problems, "\n".join(problems)


def test_foundation_imports_nothing_of_ours():
    graph = import_graph(ROOT)
    assert not [b for a, b in graph.edges if a.startswith("foundation") and not b.startswith("foundation")]


# The checker itself, on small trees made for it: it must see each kind of breach.

def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    for directory, _, names in os.walk(tmp_path):
        if "__init__.py" not in names:
            (Path(directory) / "__init__.py").touch()
    return tmp_path


SMALL_LAYERS = (("low", (("low",),)), ("mid", (("left",), ("right",))), ("high", (("high",),)))
SMALL = ("low", "left", "right", "high")


@pytest.mark.parametrize("files, expected", [
    ({"low/a.py": "from high import b\n", "high/b.py": ""}, "up from 'low' to 'high'"),
    ({"low/a.py": "def f():\n    from high.b import g\n", "high/b.py": "def g(): pass\n"}, "up from 'low' to 'high'"),
    ({"left/a.py": "import right.b\n", "right/b.py": ""}, "across 'mid'"),
    ({"left/a.py": "from . import b\n", "left/b.py": "from left import a\n"}, "import circle"),
    ({"low/a.py": "from ..high import b\n", "high/b.py": ""}, "up from 'low' to 'high'"),
])
def test_the_checker_finds_each_breach(tmp_path, files, expected):
    problems = violations(import_graph(_tree(tmp_path, files), SMALL), SMALL_LAYERS)
    assert any(expected in p for p in problems), problems


def test_the_checker_accepts_downward_and_type_checking_imports(tmp_path):
    files = {"high/a.py": "from left import b\nfrom low import c\n",
             "left/b.py": "from typing import TYPE_CHECKING\nfrom low.c import f\nif TYPE_CHECKING:\n    from high import a\n",
             "low/c.py": "def f(): pass\n"}
    assert violations(import_graph(_tree(tmp_path, files), SMALL), SMALL_LAYERS) == []
