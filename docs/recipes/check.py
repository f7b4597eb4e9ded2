"""Check that every recipe in docs/recipes/ still applies to the tree, and that it works once applied.

    python docs/recipes/check.py                  # every recipe: applied to a scratch copy, its steps run there
    python docs/recipes/check.py metric page      # some recipes (the patch file names without .patch)
    python docs/recipes/check.py --apply-only     # only `git apply --check` against this tree (a second)

A recipe is a patch made with `git diff` and a header that `git apply` skips (it reads from the first
``diff --git`` line on). The header says what to run once the patch is applied:

    Recipe: one line, the change and the section of CONTRIBUTING.md that explains it
    After: a command run from the repository root once the patch is applied (none, one or more)
    Test: the arguments of one `python -m pytest` run (one or more)

For each recipe the full check copies the tree (tracked and untracked files, not ignored ones: what you are
about to commit) into a temporary folder, applies the patch there with `git apply`, runs the After
commands, the Test runs and `python docs/make_api.py --check`, and removes the folder. The checkout itself is
never changed. A patch that no longer applies fails with its name and git's reason: regenerate it as
docs/recipes/README.md says. tests/test_recipes.py runs --apply-only in the default loop and the full check
in the slow layer; .ci/run runs the full check.
"""
from __future__ import annotations

import argparse
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


@dataclass(frozen=True)
class Recipe:
    """One patch file and what its header says to run."""

    path: Path
    title: str
    after: tuple[str, ...]
    tests: tuple[str, ...]

    @property
    def name(self) -> str:
        return self.path.stem


def read(path: Path) -> Recipe:
    """The recipe in ``path``: its header's Recipe, After and Test lines (ValueError if it has no Recipe or
    Test line, or no diff)."""
    text = path.read_text(encoding="utf-8")
    head, sep, _ = text.partition("\ndiff --git ")
    if not sep:
        raise ValueError(f"{path.name}: no 'diff --git' line: make the patch with git diff")
    fields: dict[str, list[str]] = {"Recipe": [], "After": [], "Test": []}
    for line in head.splitlines():
        key, colon, value = line.partition(":")
        if colon and key in fields:
            fields[key].append(value.strip())
    if len(fields["Recipe"]) != 1 or not fields["Test"]:
        raise ValueError(f"{path.name}: the header needs one 'Recipe:' line and at least one 'Test:' line")
    return Recipe(path, fields["Recipe"][0], tuple(fields["After"]), tuple(fields["Test"]))


def recipes(names: list[str] | None = None) -> list[Recipe]:
    """The recipes of docs/recipes/ (every ``*.patch``, by name), or those named."""
    paths = sorted(HERE.glob("*.patch"))
    if names:
        known = {p.stem: p for p in paths}
        missing = [n for n in names if n not in known]
        if missing:
            raise SystemExit(f"no recipe {', '.join(missing)}; recipes: {', '.join(known)}")
        paths = [known[n] for n in names]
    return [read(p) for p in paths]


def applies(recipe: Recipe, tree: Path = ROOT) -> str | None:
    """None if ``git apply --check`` accepts the patch on ``tree``, else git's reason."""
    r = subprocess.run(["git", "apply", "--check", str(recipe.path)], cwd=tree, capture_output=True, text=True)
    return None if r.returncode == 0 else (r.stderr or r.stdout).strip()


#: What a tree without git (an unpacked archive) leaves out of the copy: what git would ignore.
_NOT_COPIED = (".git", "__pycache__", ".pytest_cache", ".hypothesis", ".ruff_cache", ".mypy_cache", "build", "dist",
               "*.egg-info")


def _tree_files(root: Path) -> list[str]:
    """The files of the tree as it stands: tracked (those still present) and untracked ones git does not
    ignore (every file but :data:`_NOT_COPIED` where ``root`` is not a git checkout)."""
    r = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=root,
                       capture_output=True)
    if r.returncode != 0:
        skip = shutil.ignore_patterns(*_NOT_COPIED)
        out = []
        for d, dirs, files in os.walk(root):
            dirs[:] = [x for x in dirs if x not in skip(d, dirs)]
            out += [str(Path(d, f).relative_to(root)) for f in files if f not in skip(d, files)]
        return sorted(out)
    return sorted({f for f in r.stdout.decode().split("\0") if f and (root / f).is_file()})


def copy_tree(dest: Path, root: Path = ROOT) -> None:
    """A copy of the checkout's files (as :func:`_tree_files` lists them) in ``dest``."""
    for f in _tree_files(root):
        target = dest / f
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(root / f, target)


def _command(text: str) -> list[str]:
    """A header command as an argument list; ``python`` is this interpreter."""
    argv = shlex.split(text)
    return [sys.executable, *argv[1:]] if argv and argv[0] == "python" else argv


def _env(scratch: Path) -> dict[str, str]:
    """The environment of the steps: the real collection's path fixed (the scratch copy has no ../shared beside
    it; tests/conftest.py reads EVALCORE_CLEF2015 first), no PYTHONPATH that could import the checkout, and git
    kept from looking above the copy (a temporary folder inside another checkout would make `git apply` patch
    that checkout's files)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.setdefault("EVALCORE_CLEF2015", str(ROOT.parent / "shared" / "data" / "clef2015"))
    env["GIT_CEILING_DIRECTORIES"] = str(scratch.parent)
    return env


def run(recipe: Recipe, *, keep: bool = False, out=sys.stdout) -> list[str]:
    """Apply ``recipe`` to a scratch copy of the tree and run its steps there; the failures, in words (an
    empty list when every step passed)."""
    scratch = Path(tempfile.mkdtemp(prefix=f"evalcore-recipe-{recipe.name}-"))
    try:
        copy_tree(scratch)
        steps = [["git", "apply", str(recipe.path)]]
        steps += [_command(a) for a in recipe.after]
        steps += [[sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *shlex.split(t)]
                  for t in recipe.tests]
        steps += [[sys.executable, "docs/make_api.py", "--check"]]
        for argv in steps:
            shown = " ".join(shlex.quote(a) for a in ([Path(argv[0]).name, *argv[1:]] if argv[0] == sys.executable
                                                        else argv))
            print(f"[{recipe.name}] $ {shown}", file=out, flush=True)
            r = subprocess.run(argv, cwd=scratch, env=_env(scratch), capture_output=True, text=True)
            if r.returncode != 0:
                tail = (r.stdout + r.stderr).strip()[-4000:]
                return [f"docs/recipes/{recipe.path.name} ({recipe.title}): `{shown}` failed with exit status "
                        f"{r.returncode} in {scratch if keep else 'a scratch copy of the tree'}:\n{tail}"]
        return []
    finally:
        if not keep:
            shutil.rmtree(scratch, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("names", nargs="*", help="recipes to check (default: every docs/recipes/*.patch)")
    ap.add_argument("--apply-only", action="store_true", help="only check that each patch applies to this tree")
    ap.add_argument("--keep", action="store_true", help="keep the scratch copies (their paths are printed)")
    args = ap.parse_args(argv)
    failures = []
    for recipe in recipes(args.names):
        why = applies(recipe)
        if why:
            failures.append(f"docs/recipes/{recipe.path.name} ({recipe.title}) no longer applies to this tree "
                            f"(regenerate it: docs/recipes/README.md):\n{why}")
        elif not args.apply_only:
            failures += run(recipe, keep=args.keep)
    for f in failures:
        print(f"FAILED: {f}", file=sys.stderr)
    print(f"{'applied' if args.apply_only else 'checked'} {len(recipes(args.names))} recipes: "
          f"{len(failures)} failed", flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
