"""No function in the package, the dashboard or the app above cyclomatic complexity 25.

McCabe's (1976) count of independent paths, as radon computes it: a function above
25 mixes several jobs (parsing and validating, or several tests in one driver) and
is split into one function per job. The bound covers evalcore/, dashboard/,
views/ and app.py; tests and benchmarks are not counted.
"""
from __future__ import annotations

from pathlib import Path

import pytest

radon_complexity = pytest.importorskip("radon.complexity")
from radon.visitors import Function  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
MAX_CC = 25


def _sources():
    for part in ("evalcore", "dashboard", "views"):
        yield from sorted((ROOT / part).rglob("*.py"))
    yield ROOT / "app.py"


def _functions(blocks):
    """Functions and methods, with the functions nested in them (radon counts a closure apart)."""
    for b in blocks:
        if isinstance(b, Function):
            yield b
            yield from _functions(b.closures)


def _blocks(path: Path):
    """Every function, method and nested function of a file (radon lists methods beside their class)."""
    yield from _functions(radon_complexity.cc_visit(path.read_text(encoding="utf-8")))


def test_reference_count():
    """radon counts as McCabe does: one path plus one per decision (if, for, and/or, except...)."""
    src = ("def f(x, y):\n"
           "    if x and y:\n        return 1\n"
           "    for i in range(3):\n        pass\n"
           "    return 0\n")
    [b] = radon_complexity.cc_visit(src)
    assert b.complexity == 4   # 1 + if + and + for


def test_no_function_above_25():
    offenders = sorted(((b.complexity, f"{p.relative_to(ROOT)}:{b.lineno} {b.fullname}")
                        for p in _sources() for b in _blocks(p) if b.complexity > MAX_CC), reverse=True)
    for cc, where in offenders:
        print(f"CC {cc:3d}  {where}")
    assert not offenders, f"{len(offenders)} function(s) above cyclomatic complexity {MAX_CC}: " + \
        "; ".join(f"{w} ({cc})" for cc, w in offenders)
