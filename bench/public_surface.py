#!/usr/bin/env python3
"""The public surface of both packages: how many public modules, how many public names.

A public module is one whose dotted path has no part starting with ``_`` (``__init__``
stands for its package; ``__main__`` is private); its public names are its ``__all__``.
The names are summed over the public modules, so a name two public modules list counts
twice: a package that re-exports its private modules' names is one listing, a public
submodule that repeats them is a second. The sources are read, nothing is imported, so a
module behind an optional extra counts all the same.

    python bench/public_surface.py            # one line per public module, then the totals
    python bench/public_surface.py --json     # the totals and the modules as one JSON object
"""

from __future__ import annotations

import argparse
import ast
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("handoff_sim", "pytest_handoff")


def _dotted(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def is_public(dotted: str) -> bool:
    """Whether no part of ``dotted`` starts with an underscore."""
    return not any(part.startswith("_") for part in dotted.split("."))


def literal_all(path: Path) -> list[str] | None:
    """The module's ``__all__`` as written at its top level, or None if it has no literal one."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    for node in tree.body:
        if isinstance(node, ast.Assign | ast.AnnAssign):
            target = node.targets[0] if isinstance(node, ast.Assign) else node.target
            if isinstance(target, ast.Name) and target.id == "__all__" and node.value:
                return [str(name) for name in ast.literal_eval(node.value)]
    return None


def public_surface() -> dict[str, list[str]]:
    """Each public module of both packages (sorted) with the names of its ``__all__``."""
    found: dict[str, list[str]] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            name = _dotted(path)
            if is_public(name):
                found[name] = literal_all(path) or []
    return dict(sorted(found.items()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    surface = public_surface()
    names = sum(len(listed) for listed in surface.values())
    if args.json:
        print(
            json.dumps(
                {
                    "public_modules": len(surface),
                    "public_names": names,
                    "modules": {m: len(v) for m, v in surface.items()},
                }
            )
        )
        return
    for module, listed in surface.items():
        print(f"{len(listed):4d}  {module}")
    print(f"{len(surface)} public modules, {names} public names")


if __name__ == "__main__":
    main()
