"""Whether a framework extra is installed, found without importing the framework.

Importing openai-agents or pydantic-ai takes seconds, and every pytest-xdist worker
collects every test module: the adapter tests ask for the package's import spec while
collecting and import the framework only in the tests that run it.
"""

from __future__ import annotations

import importlib.util


def installed(module: str) -> bool:
    """``module`` can be imported (``sys.modules[module] = None`` hides it, like an uninstall)."""
    return importlib.util.find_spec(module) is not None


def needs(extra: str) -> str:
    """The reason a test skips without ``extra``."""
    return f"needs the {extra!r} extra: pip install 'handoff-sim[{extra}]'"
