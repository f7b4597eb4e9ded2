"""Generate docs/api.md, the API reference, from the docstrings of evalcore's public modules.

    python docs/make_api.py           # rewrite docs/api.md
    python docs/make_api.py --check   # exit 1 if docs/api.md is not what the docstrings give

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
MODULES = ("evalcore", "evalcore.io", "evalcore.collection", "evalcore.registry", "evalcore.names",
           "evalcore.metrics", "evalcore.gains", "evalcore.writers",
           "evalcore.comparison", "evalcore.simulate", "evalcore.settings",
           "evalcore.meta", "evalcore.figures", "evalcore.texfmt")

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
    return [f"### `{name}`", "", f"A `{type(obj).__name__}` constant.", ""]


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


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="exit 1 if docs/api.md is stale")
    args = ap.parse_args(argv)
    text = render()
    if args.check:
        current = TARGET.read_text(encoding="utf-8") if TARGET.exists() else ""
        if current != text:
            print("docs/api.md is stale: run python docs/make_api.py", file=sys.stderr)
            return 1
        return 0
    sys.path.insert(0, str(ROOT))
    from evalcore._atomic import write_text

    write_text(TARGET, text)
    print(f"wrote {TARGET.relative_to(ROOT)} ({len(text.splitlines())} lines)")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    raise SystemExit(main())
