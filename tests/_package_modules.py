"""The modules of handoff_sim and pytest_handoff read as source: their imports and classes.

Shared by the structure tests (layers, public surface, error tree). Nothing is
imported here: a module that needs an optional extra is read all the same.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import cache
from pathlib import Path

__all__ = ["ROOT", "Import", "SourceModule", "is_private", "modules", "public_modules"]

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("handoff_sim", "pytest_handoff")


@dataclass(frozen=True)
class Import:
    """One imported name: ``target`` is the module it resolves to, ``name`` the dotted name."""

    target: str
    name: str
    line: int
    type_checking: bool


@dataclass(frozen=True)
class SourceModule:
    """A module of the two packages: dotted name, file, and whether it is a package."""

    name: str
    path: Path
    is_package: bool

    @property
    def tree(self) -> ast.Module:
        return _parse(self.path)

    @property
    def where(self) -> str:
        return str(self.path.relative_to(ROOT))


def is_private(dotted: str) -> bool:
    """Whether some part of ``dotted`` starts with one underscore (``__init__`` does not)."""
    return any(part.startswith("_") and not part.startswith("__") for part in dotted.split("."))


@cache
def _parse(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), str(path))


@cache
def modules() -> dict[str, SourceModule]:
    """Every module of both packages by dotted name, sorted."""
    found: dict[str, SourceModule] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            is_package = parts[-1] == "__init__"
            if is_package:
                parts.pop()
            found[".".join(parts)] = SourceModule(".".join(parts), path, is_package)
    return dict(sorted(found.items()))


def public_modules() -> list[SourceModule]:
    """The modules a user may import: no part of the dotted name is private."""
    return [m for m in modules().values() if not is_private(m.name)]


def _resolve(name: str) -> str | None:
    """The module of ours that ``name`` (a module or a name in one) belongs to."""
    known = modules()
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


def _type_checking_nodes(tree: ast.Module) -> set[int]:
    """Ids of the nodes under an ``if TYPE_CHECKING:`` block."""
    inside: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.body:
                inside.update(id(n) for n in ast.walk(child))
    return inside


def _base(module: SourceModule, node: ast.ImportFrom) -> str:
    """The absolute module a ``from ... import`` names, relative imports resolved."""
    if not node.level:
        return node.module or ""
    parts = module.name.split(".")
    if not module.is_package:
        parts.pop()
    parts = parts[: len(parts) - (node.level - 1)]
    return ".".join([*parts, node.module] if node.module else parts)


def imports(module: SourceModule) -> list[Import]:
    """Every import of a module of ours in ``module``: module level, in functions, anywhere."""
    tree = module.tree
    guarded = _type_checking_nodes(tree)
    found: list[Import] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _base(module, node)
            names = [f"{base}.{alias.name}" for alias in node.names]
        else:
            continue
        for name in names:
            target = _resolve(name)
            if target is not None and target != module.name:
                found.append(Import(target, name, node.lineno, id(node) in guarded))
    return found
