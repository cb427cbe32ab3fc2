"""Names 0.2 exported from a module they have since left still import from it.

Each is the very object its one public home exports, and it is listed in neither the old
module's ``__all__`` nor its ``dir()``: code written for 0.2 runs, the public surface stays
one home per name (and ``tests/typing`` shows mypy reports the old import).
"""

from __future__ import annotations

import importlib

import pytest

MOVED = [
    ("handoff_sim", "Event", "handoff_sim.events"),
    ("handoff_sim", "HandoffSimError", "handoff_sim.errors"),
    ("handoff_sim", "RunError", "handoff_sim.errors"),
    ("handoff_sim", "ScriptError", "handoff_sim.errors"),
    ("handoff_sim", "SessionStoreError", "handoff_sim.errors"),
    ("handoff_sim", "Message", "handoff_sim.messages"),
    ("handoff_sim", "ToolSpec", "handoff_sim.messages"),
    ("handoff_sim", "Simulation", "handoff_sim.simulation"),
    ("handoff_sim.errors", "ConfigurationError", "handoff_sim"),
    ("handoff_sim.errors", "HandoffDeniedError", "handoff_sim"),
    ("handoff_sim.errors", "UnknownToolError", "handoff_sim"),
    ("handoff_sim.scenarios", "ScenarioError", "handoff_sim.errors"),
    ("handoff_sim.simulation", "simulate", "handoff_sim"),
    ("handoff_sim.subagents", "SubAgent", "handoff_sim"),
    ("handoff_sim.subagents", "HandoffPolicy", "handoff_sim"),
    ("handoff_sim.subagents", "normalize_tool_name", "handoff_sim"),
    ("handoff_sim.testing", "ScriptExhaustedError", "handoff_sim.errors"),
    ("handoff_sim.testing", "UnconsumedStepsError", "handoff_sim.errors"),
]


@pytest.mark.parametrize(("old", "name", "home"), MOVED, ids=lambda v: str(v))
def test_a_name_0_2_exported_still_imports_from_its_old_module_as_its_home_object(
    old: str, name: str, home: str
) -> None:
    old_module = importlib.import_module(old)
    assert getattr(old_module, name) is getattr(importlib.import_module(home), name)
    assert name in importlib.import_module(home).__all__
    assert name not in old_module.__all__
    assert name not in dir(old_module)


@pytest.mark.parametrize("module", sorted({old for old, _, _ in MOVED}))
def test_a_name_that_never_existed_is_still_an_import_error(module: str) -> None:
    with pytest.raises(ImportError, match="HandofPolicy"):
        exec(f"from {module} import HandofPolicy", {})  # the statement is what is tested
