"""Print pip constraints pinning every dependency of pyproject.toml (runtime and every extra) to the lowest
version its ``>=`` bound allows: ``.ci/run`` installs them in a fresh venv and runs the suite there once, so
the bounds pyproject.toml states are bounds that work."""
from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def lowest() -> dict[str, str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    reqs = list(project["dependencies"])
    for extra in project.get("optional-dependencies", {}).values():
        reqs += extra
    out: dict[str, str] = {}
    for r in reqs:
        m = re.match(r"^\s*([A-Za-z0-9_.\-]+)\s*>=\s*([0-9][0-9A-Za-z.]*)\s*$", r)
        if m and m.group(1).lower() != "evalcore":
            name, low = m.group(1).lower(), m.group(2)
            if name not in out or _key(low) > _key(out[name]):   # two extras, two bounds: the higher holds
                out[name] = low
    return out


def _key(version: str) -> tuple:
    return tuple(int(p) if p.isdigit() else 0 for p in version.split("."))


if __name__ == "__main__":
    for name, version in sorted(lowest().items()):
        print(f"{name}=={version}")
