"""Python objects named by import path, ``package.module:name``, for scenario files.

The module is imported with the given directories in front of ``sys.path`` for that import
only (a scenario file passes its own directory and its project's root, as pytest does for
test modules). Whatever stops the reference from resolving is the caller's error type,
saying why: no such module, the module's own import failing, a missing attribute, or a
module of the same name already imported from elsewhere.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

from handoff_sim._errors._families import ConfigurationError
from handoff_sim._safe import describe_error

__all__ = ["REFERENCE_PATTERN", "resolve_reference"]

_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
REFERENCE_PATTERN = rf"^{_NAME}(\.{_NAME})*:{_NAME}(\.{_NAME})*$"
"""``package.module:name`` (the attribute may be dotted: ``module:Class.method``)."""


def resolve_reference(
    reference: str, search: Sequence[Path], error: type[ConfigurationError]
) -> object:
    """What ``package.module:name`` names; ``error`` saying why when it does not resolve."""
    module_name, _, attribute = reference.partition(":")
    module = _import(module_name, [Path(p) for p in search], error)
    found: object = module
    for part in attribute.split("."):
        try:
            found = getattr(found, part)
        except AttributeError:
            where = getattr(module, "__file__", None) or module_name
            raise error(
                f"module '{module_name}' ({where}) has no attribute '{attribute}'"
            ) from None
        except Exception as exc:  # a property or a module __getattr__ that raises
            raise error(
                f"getting '{attribute}' from module '{module_name}' failed: {describe_error(exc)}"
            ) from exc
    return found


def _import(name: str, search: list[Path], error: type[ConfigurationError]) -> ModuleType:
    _refuse_shadowed(name, search, error)
    try:
        with _on_path(search):
            return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name is not None and (name == exc.name or name.startswith(exc.name + ".")):
            places = ", ".join(str(p) for p in search)
            where = f" (searched {places} and sys.path)" if places else " (searched sys.path)"
            raise error(f"cannot import module '{name}'{where}") from None
        raise error(f"importing module '{name}' failed: {describe_error(exc)}") from exc
    except (Exception, SystemExit) as exc:  # the module's own code failed, or exited
        raise error(f"importing module '{name}' failed: {describe_error(exc)}") from exc


def _refuse_shadowed(name: str, search: list[Path], error: type[ConfigurationError]) -> None:
    """A top-level module already imported from elsewhere cannot be this scenario's one too."""
    top = name.split(".")[0]
    loaded = sys.modules.get(top)
    if loaded is None or not search:
        return
    local = importlib.machinery.PathFinder.find_spec(top, [str(p) for p in search])
    if local is None:
        return
    here = _location(local.origin, local.submodule_search_locations)
    there = _location(getattr(loaded, "__file__", None), getattr(loaded, "__path__", None))
    if here != there:
        raise error(
            f"module '{top}' is already imported from {there or 'a built-in module'}, but "
            f"{here} has the same name; give one of them a unique name (as pytest asks of "
            "test modules)"
        )


def _location(origin: str | None, package: object) -> str | None:
    if origin is not None and origin not in ("namespace", "built-in", "frozen"):
        return str(Path(origin).resolve())
    try:
        paths = list(package) if package is not None else []  # type: ignore[call-overload]
    except TypeError:
        paths = []
    return str(Path(str(paths[0])).resolve()) if paths else None


@contextmanager
def _on_path(search: list[Path]) -> Iterator[None]:
    """``search`` in front of ``sys.path`` for the duration of one import."""
    added = [str(p) for p in search if str(p) not in sys.path]
    sys.path[:0] = added
    importlib.invalidate_caches()
    try:
        yield
    finally:
        for entry in added:
            if entry in sys.path:
                sys.path.remove(entry)
