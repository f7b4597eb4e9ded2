"""Rooms of a readable size, and floors that imports only run down.

Sizes: a dashboard module holds one concern and stays under :data:`DASHBOARD_LINES`; a page in ``views/`` is
a thin script (read the state, call the dashboard, draw) under :data:`PAGE_LINES`: a reader changing one
thing opens one file of a few hundred lines (CONTRIBUTING.md, "Layout"). A file over its limit is split by concern, its
logic moved into ``dashboard/`` (or into ``evalcore/`` when it is pure computation).

Floors: data flows one way (files -> evalcore.io -> Collection -> kernels -> evalcore.meta -> tables ->
figures), and so do imports. The *rooms* of evalcore are its subpackages and top-level modules
(``evalcore.meta``, ``evalcore.cli``, ``evalcore.settings``, ...); importing any module of a room is an edge
to the room. The rooms' graph has no cycle, so they stack into floors, and two edges that once ran back up
are named: ``evalcore.meta`` does not import ``evalcore.settings`` (the constant both read, ``SEED_MAX``,
lives on the floor below them, ``evalcore/_seeds.py``), and ``evalcore.report`` does not import
``evalcore.cli`` (the ``report`` command's arguments are ``evalcore/cli/report.py``). Above evalcore:
``views`` -> ``dashboard`` -> ``evalcore``, never back; evalcore imports neither streamlit nor the app, and a
page imports from evalcore only ``evalcore.figures`` and ``evalcore.io`` (for ``InputError``).

Imports are read with :mod:`ast` (tests/test_imports.py's graph: every ``import`` and ``from ... import``,
at module level or inside a function); nothing is imported.
"""
from __future__ import annotations

import ast
from pathlib import Path

from test_imports import build_graph, components

ROOT = Path(__file__).resolve().parents[1]
DASHBOARD_LINES = 600
PAGE_LINES = 300
#: (importer room, imported room): edges that once ran back up a floor, named so that a cycle through them
#: is reported by what it breaks
FORBIDDEN = (("evalcore.meta", "evalcore.settings"), ("evalcore.report", "evalcore.cli"))
#: what a page may import from evalcore: drawing and the error it catches
PAGE_EVALCORE = ("evalcore.figures", "evalcore.io")


def lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def oversized(folder: str, limit: int, root: Path = ROOT) -> list[str]:
    """``"file: n lines"`` for every ``.py`` file of ``folder`` over ``limit`` lines."""
    return [f"{p.relative_to(root).as_posix()}: {n} lines (limit {limit})"
            for p in sorted((root / folder).glob("*.py")) if (n := lines(p)) > limit]


def room(module: str) -> str:
    """The room of an evalcore module: ``evalcore.meta.swap`` -> ``evalcore.meta``; ``evalcore`` itself."""
    return ".".join(module.split(".")[:2])


def room_edges(root: Path = ROOT) -> dict[str, set[str]]:
    """Room -> the rooms it imports (evalcore's own only; the package ``evalcore``, which imports its names
    on first use, is left out)."""
    edges: dict[str, set[str]] = {}
    for importer, imported in build_graph(root, ("evalcore",)).edges.items():
        a = room(importer)
        for b in map(room, imported):
            if a != b and "evalcore" not in (a, b):
                edges.setdefault(a, set()).add(b)
    return edges


def imported_names(path: Path) -> set[str]:
    """Every module name ``path`` imports (absolute names; relative imports are left out)."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            out.update([node.module] + [f"{node.module}.{a.name}" for a in node.names])
    return out


def test_dashboard_modules_are_rooms_of_a_readable_size():
    assert not oversized("dashboard", DASHBOARD_LINES), "split by concern:\n" + "\n".join(
        oversized("dashboard", DASHBOARD_LINES))


def test_pages_stay_thin():
    assert not oversized("views", PAGE_LINES), "move the page's logic into dashboard/:\n" + "\n".join(
        oversized("views", PAGE_LINES))


def test_no_import_runs_back_up_a_floor():
    edges = room_edges()
    back = [f"{a} imports {b}" for a, b in FORBIDDEN if b in edges.get(a, set())]
    assert not back, "imports back up a floor: " + "; ".join(back)
    cycles = components(edges)
    assert not cycles, "rooms of evalcore importing each other (no floor order): " + "; ".join(
        " <-> ".join(c) for c in cycles)


def test_layers_import_downwards_only():
    """evalcore imports neither streamlit nor the app; dashboard imports no page; a page takes from evalcore
    only what it draws with."""
    up = []
    for p in sorted((ROOT / "evalcore").rglob("*.py")):
        up += [f"{p.relative_to(ROOT)}: {n}" for n in imported_names(p)
               if n.split(".")[0] in ("streamlit", "dashboard", "views", "app")]
    for p in sorted((ROOT / "dashboard").glob("*.py")):
        up += [f"{p.relative_to(ROOT)}: {n}" for n in imported_names(p) if n.split(".")[0] in ("views", "app")]
    for p in sorted((ROOT / "views").glob("*.py")):
        up += [f"{p.relative_to(ROOT)}: {n} (a page computes through dashboard/)" for n in imported_names(p)
               if n.startswith("evalcore") and n != "evalcore" and not n.startswith(PAGE_EVALCORE)]
    assert not up, "\n".join(up)


def test_the_checks_see_what_they_must(tmp_path):
    """The checks themselves, on a small tree: a long module and page, an edge back up a floor, a cycle
    of rooms through a function-level import."""
    for folder, n in (("dashboard", DASHBOARD_LINES + 1), ("views", PAGE_LINES)):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "big.py").write_text("x = 1\n" * n)
    assert oversized("dashboard", DASHBOARD_LINES, tmp_path) == [
        f"dashboard/big.py: {DASHBOARD_LINES + 1} lines (limit {DASHBOARD_LINES})"]
    assert oversized("views", PAGE_LINES, tmp_path) == []            # at the limit is within it
    pkg = tmp_path / "evalcore"
    for sub in ("meta", "cli", "report"):
        (pkg / sub).mkdir(parents=True)
        (pkg / sub / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "settings.py").write_text("from .meta import x\n")
    (pkg / "meta" / "x.py").write_text("def f():\n    from ..settings import SEED_MAX\n")
    (pkg / "report" / "cli.py").write_text("from evalcore.cli import build_parser\n")
    (pkg / "cli" / "stats.py").write_text("from evalcore.report import cli\n")
    edges = room_edges(tmp_path)
    assert edges["evalcore.meta"] == {"evalcore.settings"} and edges["evalcore.report"] == {"evalcore.cli"}
    assert sorted(map(tuple, components(edges))) == [("evalcore.cli", "evalcore.report"),
                                                     ("evalcore.meta", "evalcore.settings")]
