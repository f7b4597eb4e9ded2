"""Import structure of the packages: no import cycle, no module reaching into another module's private names.

The graph is built with :mod:`ast` from the source of ``evalcore/`` and ``dashboard/`` (nothing is imported):
every ``import`` and ``from ... import`` statement counts, at module level and inside functions alike (an import
hidden in a function still ties the two modules together, it only moves the failure to call time). Relative
imports are resolved against the importing module's package. ``from pkg import name`` is an edge to the module
``pkg.name`` when that is a module, otherwise to ``pkg`` (its ``__init__``). An edge goes to the imported module
only, not to its parent packages (as import-linter and pydeps draw it), so a package ``__init__`` that re-exports
its submodules is not a cycle by itself.

A private name is one with a single leading underscore (``_x``; dunders such as ``__version__`` are public). A
module may import a private *module* of its package (``from . import _common``, as scikit-learn's modules import
``_ranking``) and use the public names inside it, but never another module's ``_private`` name, neither as
``from m import _x`` nor as ``m._x`` on an imported module: what is shared is a plain public name of the module
that owns it (public names plain, internals private, as scikit-learn keeps them).
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("evalcore", "dashboard")


def _is_private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


@dataclass
class Graph:
    modules: dict[str, Path]                                   # dotted name -> file
    edges: dict[str, set[str]] = field(default_factory=dict)    # importer -> imported modules (ours only)
    private: list[str] = field(default_factory=list)            # "importer:line: what" for every private reach


def _module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _resolve(importer: str, is_package: bool, module: str | None, level: int) -> str:
    """The absolute name of ``from <level dots><module> import ...`` written in ``importer``."""
    if level == 0:
        return module or ""
    base = importer.split(".") if is_package else importer.split(".")[:-1]
    if level > 1:
        base = base[:-(level - 1)]
    return ".".join(base + ([module] if module else []))


def build_graph(root: Path = ROOT, packages: tuple[str, ...] = PACKAGES) -> Graph:
    files = sorted(p for pkg in packages for p in (root / pkg).rglob("*.py"))
    g = Graph({_module_name(p, root): p for p in files})
    for name, path in g.modules.items():
        is_package = path.name == "__init__.py"
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        out: set[str] = set()
        aliases: dict[str, str] = {}     # local name bound to one of our modules -> that module
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    if a.name in g.modules:
                        out.add(a.name)
                        aliases[a.asname or a.name] = a.name
                    if _is_private(a.name.rsplit(".", 1)[-1]) and a.name not in g.modules:
                        g.private.append(f"{name}:{node.lineno}: import {a.name}")
            elif isinstance(node, ast.ImportFrom):
                source = _resolve(name, is_package, node.module, node.level)
                for a in node.names:
                    target = f"{source}.{a.name}"
                    if target in g.modules:               # a submodule: a module may import a private module
                        out.add(target)
                        aliases[a.asname or a.name] = target
                        continue
                    if source in g.modules:
                        out.add(source)
                        if _is_private(a.name) and source != name:
                            g.private.append(f"{name}:{node.lineno}: from {source} import {a.name}")
        for node in ast.walk(tree):                       # m._x on a module bound by an import
            if isinstance(node, ast.Attribute) and _is_private(node.attr):
                owner = _dotted(node.value, aliases)
                if owner is not None and owner != name and f"{owner}.{node.attr}" not in g.modules:
                    g.private.append(f"{name}:{node.lineno}: {owner}.{node.attr}")
        g.edges[name] = out - {name}
    return g


def _dotted(node: ast.expr, aliases: dict[str, str]) -> str | None:
    """The module an expression such as ``cached`` or ``evalcore.meta.bootstrap`` names, if it is one of ours."""
    if isinstance(node, ast.Name):
        return aliases.get(node.id)
    if isinstance(node, ast.Attribute):
        head = _dotted(node.value, aliases)
        if head is not None and f"{head}.{node.attr}" in aliases.values():
            return f"{head}.{node.attr}"
    return None


def find_cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """One cycle through every strongly connected component of more than one module (Tarjan), listed from the
    component's first module; :func:`components` gives the whole components."""
    return [_one_cycle(c, edges) for c in components(edges)]


def components(edges: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected component with more than one module, each sorted (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    comps: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:       # recursion depth is bounded by the number of modules (~120)
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return comps


def _one_cycle(comp: list[str], edges: dict[str, set[str]]) -> list[str]:
    """A shortest cycle through the component's first module (breadth-first), to print."""
    members, start = set(comp), comp[0]
    parent: dict[str, str] = {}
    frontier = [start]
    while frontier:
        nxt = []
        for v in frontier:
            for w in sorted(edges[v] & members):
                if w == start:
                    path = [v]
                    while path[-1] != start:
                        path.append(parent[path[-1]])
                    return path[::-1] + [start]
                if w not in parent:
                    parent[w] = v
                    nxt.append(w)
        frontier = nxt
    return comp


def test_graph_builder_sees_what_it_must(tmp_path):
    """The checker itself: relative, function-level and attribute forms are all caught on a small package."""
    pkg = tmp_path / "p"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("from . import a\n")
    (pkg / "a.py").write_text("from .b import _hidden, public\n")
    (pkg / "b.py").write_text("def f():\n    from .sub import c\n    return c._x\n_hidden = public = 1\n")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "c.py").write_text("from .. import a\n_x = 1\n")
    (pkg / "sub" / "_priv.py").write_text("from ..a import public as _p\n")
    (pkg / "d.py").write_text("from .sub import _priv\nimport p.sub.c as cc\nv = _priv.ok + cc._y\n")
    g = build_graph(tmp_path, ("p",))
    assert g.edges["p.a"] == {"p.b"} and g.edges["p.b"] == {"p.sub.c"} and g.edges["p.sub.c"] == {"p.a"}
    assert g.edges["p.d"] == {"p.sub._priv", "p.sub.c"} and g.edges["p"] == {"p.a"}
    assert find_cycles(g.edges) == [["p.a", "p.b", "p.sub.c", "p.a"]]
    assert sorted(g.private) == ["p.a:1: from p.b import _hidden", "p.b:3: p.sub.c._x", "p.d:3: p.sub.c._y"]


def test_no_import_cycles():
    edges = build_graph().edges
    comps = components(edges)
    assert not comps, "import cycles:\n" + "\n".join(
        " -> ".join(_one_cycle(c, edges)) + f"  (modules on cycles together: {', '.join(c)})" for c in comps)


def test_no_module_imports_another_modules_private_name():
    private = build_graph().private
    assert not private, f"{len(private)} imports of another module's private name:\n" + "\n".join(private)
