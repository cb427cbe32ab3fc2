"""Names a 0.2 module exported that now have another public home.

They still import from the old module, so code written for 0.2 keeps running, but they
are not in its ``__all__`` and type checkers do not see them there: ``mypy --strict``
points a user at the one public home. The lookup is defined only at run time.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping


def moved_names(module: str, homes: Mapping[str, str]) -> Callable[[str], object]:
    """A module ``__getattr__`` that finds each name of ``homes`` in its new home."""

    def __getattr__(name: str) -> object:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        return getattr(importlib.import_module(home), name)

    return __getattr__
