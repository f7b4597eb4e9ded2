"""CONTRIBUTING.md's recipes are patches (docs/recipes/) that apply to this tree, and work once applied.

The default loop asks `git apply --check` of every patch (a stale one fails here, named, with git's reason and
how to regenerate it); the slow layer applies each to a scratch copy of the tree and runs its header's steps
there: its After: commands, its Test: runs and `python docs/make_api.py --check` (docs/recipes/check.py).
"""
from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RECIPES = sorted((ROOT / "docs" / "recipes").glob("*.patch"))

_spec = importlib.util.spec_from_file_location("recipes_check", ROOT / "docs" / "recipes" / "check.py")
check = sys.modules["recipes_check"] = importlib.util.module_from_spec(_spec)   # docs/ is not a package
_spec.loader.exec_module(check)

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="needs git (git apply)")


def test_every_recipe_of_contributing_is_a_patch_and_only_once():
    """CONTRIBUTING.md's four recipes each point at their patch; docs/dashboard.md points at CONTRIBUTING's page
    recipe instead of keeping a copy of it."""
    assert [p.name for p in RECIPES] == ["input_format.patch", "measure_parameter.patch", "metric.patch",
                                         "page.patch"]
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    for p in RECIPES:
        assert f"docs/recipes/{p.name}" in text, p.name
        assert check.read(p).tests, p.name
    dashboard = (ROOT / "docs" / "dashboard.md").read_text(encoding="utf-8")
    assert "PageSpec(" not in dashboard, "the page recipe lives in CONTRIBUTING.md (docs/recipes/page.patch)"
    assert "CONTRIBUTING.md" in dashboard and "docs/recipes/page.patch" in dashboard


@needs_git
@pytest.mark.parametrize("recipe", RECIPES, ids=[p.stem for p in RECIPES])
def test_every_recipe_applies_to_this_tree(recipe):
    why = check.applies(check.read(recipe))
    assert why is None, (f"docs/recipes/{recipe.name} no longer applies to this tree ({why}): rebase it as "
                         "docs/recipes/README.md says ('When main has moved')")


def test_a_stale_recipe_is_named_with_gits_reason(tmp_path):
    """The failure a drifted main gives: the patch's name and the file that moved."""
    if shutil.which("git") is None:
        pytest.skip("needs git (git apply)")
    (tmp_path / "a.txt").write_text("one\ntwo\nthree\n")
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    stale = tmp_path / "x.patch"
    stale.write_text("Recipe: an example\nTest: tests/test_x.py\n\ndiff --git a/a.txt b/a.txt\n--- a/a.txt\n"
                     "+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-2\n+2.0\n three\n")
    r = check.read(stale)
    assert r.title == "an example" and r.tests == ("tests/test_x.py",)
    why = check.applies(r, tmp_path)
    assert why is not None and "a.txt" in why


@pytest.mark.slow      # minutes: each recipe's tests on a scratch copy of the tree (.ci/run runs check.py too)
@needs_git
@pytest.mark.parametrize("recipe", RECIPES, ids=[p.stem for p in RECIPES])
def test_every_recipe_works_once_applied(recipe):
    failures = check.run(check.read(recipe))
    assert not failures, "\n".join(failures)
