"""The scenario phases import one way: _schema, _expect, _load, _build, _run (docs/architecture.md).

A phase imports only from the phases before it, and only through their ``__init__``
(what each exports in ``__all__``), never from another phase's private module. Every
import counts: module level, inside a function, under ``if TYPE_CHECKING:``.
"""

from __future__ import annotations

import ast
import importlib
from collections.abc import Iterator
from pathlib import Path

import pytest

import handoff_sim.scenarios

PACKAGE = "handoff_sim.scenarios"
ROOT = Path(handoff_sim.scenarios.__file__).parent
PHASES = ("_schema", "_expect", "_load", "_build", "_run")
SHARED = f"{PACKAGE}._errors"  # the errors every phase raises, below all of them


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join((PACKAGE, *parts))


def _package_of(path: Path) -> str:
    return ".".join((PACKAGE, *path.parent.relative_to(ROOT).parts))


def _imports(path: Path) -> Iterator[tuple[int, str, tuple[str, ...]]]:
    """``(line, module, names)`` of every import in the file, relative ones resolved."""
    package = _package_of(path)
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name, ()
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            yield node.lineno, base, tuple(alias.name for alias in node.names)


def _phase(module: str) -> str | None:
    rest = module.removeprefix(PACKAGE + ".").split(".")
    return rest[0] if module.startswith(PACKAGE + ".") and rest[0] in PHASES else None


def _cross_phase_imports() -> Iterator[tuple[str, int, str, str, str]]:
    """``(file, line, importer's phase, imported phase, imported module)``."""
    for path in sorted(ROOT.rglob("*.py")):
        importer = _phase(_module_name(path))
        if importer is None:
            continue
        for line, module, names in _imports(path):
            targets = [f"{module}.{n}" for n in names] if module == PACKAGE else [module]
            for target in targets:
                imported = _phase(target)
                if imported is not None and imported != importer:
                    yield str(path.relative_to(ROOT)), line, importer, imported, target


def test_each_phase_imports_only_the_phases_before_it() -> None:
    upward = [
        f"{file}:{line}: {importer} imports {target} ({imported} comes later)"
        for file, line, importer, imported, target in _cross_phase_imports()
        if PHASES.index(imported) > PHASES.index(importer)
    ]
    assert upward == []


def test_a_phase_reaches_another_only_through_its_init() -> None:
    private = [
        f"{file}:{line}: imports {target}; import it from {PACKAGE}.{imported}"
        for file, line, _, imported, target in _cross_phase_imports()
        if target != f"{PACKAGE}.{imported}"
    ]
    assert private == []


def test_phases_do_not_import_the_scenarios_package_itself() -> None:
    """``handoff_sim.scenarios`` imports every phase; a phase importing it would be a circle."""
    found = [
        f"{path.relative_to(ROOT)}:{line}: imports {module}"
        for path in sorted(ROOT.rglob("*.py"))
        if _phase(_module_name(path)) is not None
        for line, module, names in _imports(path)
        if module == PACKAGE and not all(_phase(f"{PACKAGE}.{n}") for n in names)
    ]
    assert found == []


@pytest.mark.parametrize("phase", PHASES)
def test_each_phase_exports_what_it_names_in_all(phase: str) -> None:
    module = importlib.import_module(f"{PACKAGE}.{phase}")
    exported = module.__all__
    assert exported, f"{phase} exports nothing"
    assert sorted(exported) == sorted(set(exported))
    assert [name for name in exported if not hasattr(module, name)] == []


def test_what_other_phases_import_from_a_phase_is_in_its_all() -> None:
    missing = []
    for path in sorted(ROOT.rglob("*.py")):
        for line, module, names in _imports(path):
            phase = _phase(module)
            if phase is None or module != f"{PACKAGE}.{phase}":
                continue
            exported = importlib.import_module(module).__all__
            missing += [f"{path.name}:{line}: {module}.{n}" for n in names if n not in exported]
    assert missing == []


def test_no_scenario_module_is_over_500_lines() -> None:
    long = {
        str(path.relative_to(ROOT)): lines
        for path in ROOT.rglob("*.py")
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > 500
    }
    assert long == {}


def test_the_shared_errors_module_imports_no_phase() -> None:
    path = ROOT / "_errors.py"
    assert [m for _, m, _ in _imports(path) if m.startswith(PACKAGE)] == [], SHARED
