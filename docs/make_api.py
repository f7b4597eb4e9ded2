"""Generate the documentation that comes from the code: docs/api.md, the API reference, from the docstrings of
evalcore's public modules, and docs/metrics.md's crosswalk of metric names from the registry.

    python docs/make_api.py           # rewrite docs/api.md and docs/metrics.md's crosswalk
    python docs/make_api.py --check   # exit 1 if either is not what the code gives (CI runs this)

The public API of a module is its ``__all__``; every function and class is listed with its signature and
its docstring, every constant with its type. tests/test_packaging.py runs the check, so the reference
cannot drift from the code (as ir_measures generates its measure list).
"""
from __future__ import annotations

import argparse
import importlib
import inspect
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET = ROOT / "docs" / "api.md"

#: the modules of the reference, in reading order (the package's own exports first)
MODULES = ("evalcore", "evalcore.io", "evalcore.io.formats", "evalcore.io.errors",
           "evalcore.io.limits", "evalcore.collection", "evalcore.registry",
           "evalcore.specs", "evalcore.names", "evalcore.metrics", "evalcore.trec_measures", "evalcore.cwl",
           "evalcore.gains",
           "evalcore.writers",
           "evalcore.comparison", "evalcore.simulate", "evalcore.settings", "evalcore.app_settings",
           "evalcore.workload", "evalcore.meta", "evalcore.meta.pairs", "evalcore.meta.repeat", "evalcore.meta.reuse",
           "evalcore.meta.topic_bootstrap", "evalcore.meta.paper",
           "evalcore.meta.on_dask", "evalcore.report.experiment", "evalcore.cli.report", "evalcore.cli.bounds",
           "evalcore.figures",
           "evalcore.texfmt", "evalcore.treceval", "evalcore.legend")
METRICS_DOC = ROOT / "docs" / "metrics.md"
#: docs/metrics.md's generated block: the crosswalk of metric names (`evalcore metrics --format markdown`)
CROSSWALK = ("<!-- crosswalk:start -->\n", "<!-- crosswalk:end -->")

_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def _first_paragraph(doc: str | None) -> str:
    return (inspect.cleandoc(doc or "").split("\n\n")[0]).strip()


def _signature(obj) -> str:
    try:
        sig = str(inspect.signature(obj))
    except (TypeError, ValueError):
        return "(...)"
    return _ADDRESS.sub("", sig)


def _doc(obj) -> str:
    doc = inspect.getdoc(obj) or "(no docstring)"
    return "\n".join(("    " + line).rstrip() for line in doc.splitlines())


def _member(module, name: str) -> list[str]:
    obj = getattr(module, name)
    where = getattr(obj, "__module__", None)
    home = f" (defined in `{where}`)" if where and where != module.__name__ and inspect.isroutine(obj) | \
        inspect.isclass(obj) else ""
    if inspect.isclass(obj):
        out = [f"### class `{name}{_signature(obj)}`{home}", "", "```text", _doc(obj), "```", ""]
        methods = [m for m, v in vars(obj).items() if not m.startswith("_") and (inspect.isfunction(v)
                   or isinstance(v, (property, classmethod, staticmethod)) or type(v).__name__ == "cached_property")]
        for m in methods:
            v = getattr(obj, m)
            line = _first_paragraph(getattr(v, "__doc__", None) if not isinstance(vars(obj)[m], property)
                                    else vars(obj)[m].__doc__)
            sig = _signature(v) if inspect.isroutine(v) else ""
            out.append(f"- `{m}{sig}`" + (f": {line}" if line else ""))
        if methods:
            out.append("")
        return out
    if inspect.isroutine(obj):
        return [f"### `{name}{_signature(obj)}`{home}", "", "```text", _doc(obj), "```", ""]
    comment = _comment(module, name)
    kind = type(obj)
    what = f"A `{kind.__name__}`" + (f" (`{kind.__module__}.{kind.__name__}`: {_first_paragraph(kind.__doc__)})"
                                      if kind.__module__.startswith("evalcore") and kind.__doc__ else " constant.")
    return [f"### `{name}`", "", *([comment, ""] if comment else []), what, ""]


def _comment(module, name: str) -> str:
    """The ``#:`` comment lines written just above ``name = ...`` in the module's source."""
    try:
        lines = inspect.getsource(module).splitlines()
    except (OSError, TypeError):
        return ""
    for i, line in enumerate(lines):
        if re.match(rf"{re.escape(name)}\s*(:[^=]*)?=", line):
            got = []
            j = i - 1
            while j >= 0 and lines[j].startswith("#:"):
                got.insert(0, lines[j][2:].strip())
                j -= 1
            return " ".join(got)
    return ""


def render() -> str:
    out = ["# API reference", "",
           "Generated from the docstrings by `python docs/make_api.py` (a test checks it is current: after "
           "changing a public docstring or signature, run that command). Each module's public names are its "
           "`__all__`.", ""]
    out += [f"- [`{m}`](#{m.replace('.', '')})" for m in MODULES] + [""]
    for name in MODULES:
        module = importlib.import_module(name)
        out += [f"## {name}", "", _first_paragraph(module.__doc__), ""]
        for member in getattr(module, "__all__", []):
            out += _member(module, member)
    return "\n".join(out).rstrip() + "\n"


def render_metrics_doc() -> str:
    """docs/metrics.md with its crosswalk block replaced by the registry's table."""
    from evalcore.cli.metrics import markdown

    text = METRICS_DOC.read_text(encoding="utf-8")
    head, sep, rest = text.partition(CROSSWALK[0])
    if not sep or CROSSWALK[1] not in rest:
        raise SystemExit(f"docs/metrics.md lacks the crosswalk markers {CROSSWALK[0].strip()} ... {CROSSWALK[1]}")
    return head + sep + markdown() + CROSSWALK[1] + rest.split(CROSSWALK[1], 1)[1]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true",
                    help="exit 1 if docs/api.md or docs/metrics.md's crosswalk is stale")
    args = ap.parse_args(argv)
    outputs = {TARGET: render(), METRICS_DOC: render_metrics_doc()}
    if args.check:
        stale = [p for p, text in outputs.items() if (p.read_text(encoding="utf-8") if p.exists() else "") != text]
        for p in stale:
            print(f"{p.relative_to(ROOT)} is stale: run python docs/make_api.py", file=sys.stderr)
        return 1 if stale else 0
    sys.path.insert(0, str(ROOT))
    from evalcore._atomic import write_text

    for p, text in outputs.items():
        write_text(p, text)
        print(f"wrote {p.relative_to(ROOT)} ({len(text.splitlines())} lines)")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    raise SystemExit(main())
