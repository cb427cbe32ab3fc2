"""Public API: a pinned top level, an ``__all__`` in every public module, the manager example.

The runtime imports no pytest, syrupy or hypothesis when it is imported: only the
strategies and the fuzzer's engine need hypothesis, and only the plugin needs pytest.
"""

from __future__ import annotations

import ast
import asyncio
import dataclasses
import importlib
import json
import runpy
import subprocess
import sys
from types import ModuleType
from typing import Any

import pytest

import handoff_sim
import handoff_sim.testing
from handoff_sim import Agent, HandoffPolicy, RunResult, SubAgent, simulate
from handoff_sim.adapters import MissingExtraError
from handoff_sim.testing import ScriptedModel
from tests._package_modules import ROOT, SourceModule, modules, public_modules

# Changing the top level is a decision: edit this list with the code, and say why.
TOP_LEVEL = [
    "Agent",
    "ConfigurationError",
    "DuplicateToolNameError",
    "FailureAction",
    "GateFailedError",
    "GateReport",
    "GateResult",
    "GateSpecError",
    "Gates",
    "HandoffDeniedError",
    "HandoffPolicy",
    "InvariantViolationError",
    "JsonlSessionStore",
    "MaxStepsExceededError",
    "ModelClient",
    "ModelRequest",
    "ModelResponse",
    "ReservedPrefixError",
    "RunResult",
    "Session",
    "SessionMode",
    "SessionStore",
    "SubAgent",
    "Tool",
    "ToolCall",
    "ToolOutput",
    "Trace",
    "UnknownToolError",
    "Violation",
    "assert_invariants",
    "check_determinism",
    "check_gates",
    "check_invariants",
    "hookimpl",
    "normalize_tool_name",
    "simulate",
    "tool",
]

# Every public module (no part of its dotted name starts with "_"): a new one is a decision,
# so is dropping one. Edit this list with the code, and say why. The goal is at most 25
# public modules; bench/public_surface.py counts them and their names.
PUBLIC_MODULES = [
    "handoff_sim",
    "handoff_sim.adapters",
    "handoff_sim.adapters.langgraph",
    "handoff_sim.adapters.openai_agents",
    "handoff_sim.adapters.pydantic_ai",
    "handoff_sim.cli",
    "handoff_sim.errors",
    "handoff_sim.events",
    "handoff_sim.fuzzing",
    "handoff_sim.messages",
    "handoff_sim.otel",
    "handoff_sim.recording",
    "handoff_sim.report",
    "handoff_sim.scenarios",
    "handoff_sim.simulation",
    "handoff_sim.strategies",
    "handoff_sim.styles",
    "handoff_sim.styles.flink",
    "handoff_sim.styles.sophi",
    "handoff_sim.subagents",
    "handoff_sim.testing",
    "handoff_sim.trace",
    "pytest_handoff",
    "pytest_handoff.hookspecs",
    "pytest_handoff.plugin",
]


# Modules that may import hypothesis when imported: it is what they are about.
HYPOTHESIS_MODULES = {
    "handoff_sim.strategies",
    "handoff_sim.fuzzing._engine",
    "handoff_sim.fuzzing._strategies",
    "handoff_sim.fuzzing._machine",
}


def test_the_top_level_all_is_the_pinned_list() -> None:
    assert handoff_sim.__all__ == TOP_LEVEL


def test_the_public_modules_are_the_pinned_list() -> None:
    found = [m.name for m in _importable_modules()]
    added = sorted(set(found) - set(PUBLIC_MODULES))
    dropped = sorted(set(PUBLIC_MODULES) - set(found))
    assert (added, dropped) == ([], []), (
        f"public modules added {added}, dropped {dropped}: make a new module private "
        "(_name.py) or edit PUBLIC_MODULES in tests/test_public_api.py, and say why"
    )


def _public_names(module: ModuleType) -> list[str]:
    """Names a user sees on ``module`` (``dir``, lazy names too): not private, not a submodule."""
    return sorted(
        name
        for name in dir(module)
        if not name.startswith("_") and not isinstance(getattr(module, name), ModuleType)
    )


@pytest.mark.parametrize("module", [handoff_sim, handoff_sim.testing], ids=lambda m: m.__name__)
def test_all_lists_exactly_the_public_names(module: ModuleType) -> None:
    # in any order: ruff sorts an __all__ with its constants first
    assert sorted(module.__all__) == _public_names(module)


@pytest.mark.parametrize("module", [handoff_sim, handoff_sim.testing], ids=lambda m: m.__name__)
def test_every_name_in_all_is_importable(module: ModuleType) -> None:
    for name in module.__all__:
        assert getattr(module, name) is not None, name


def test_spec_2a_names_import_from_handoff_sim() -> None:
    from handoff_sim import (  # noqa: F401
        Agent,
        ConfigurationError,
        DuplicateToolNameError,
        FailureAction,
        HandoffDeniedError,
        HandoffPolicy,
        MaxStepsExceededError,
        ReservedPrefixError,
        RunResult,
        SessionMode,
        SubAgent,
        Tool,
        ToolCall,
        Trace,
        UnknownToolError,
        normalize_tool_name,
        simulate,
        tool,
    )

    assert issubclass(UnknownToolError, LookupError)
    for error in (DuplicateToolNameError, ReservedPrefixError):
        assert issubclass(error, ConfigurationError)


def test_spec_2a_fake_models_import_from_handoff_sim_testing() -> None:
    from handoff_sim.testing import AdversarialModel, FunctionModel, ScriptedModel

    for model in (AdversarialModel, FunctionModel, ScriptedModel):
        assert model.__name__ in handoff_sim.testing.__all__


def _spec_example() -> Agent:
    """The manager/reviewer example of SPEC §2a, with fresh scripts."""
    reviewer = Agent(name="reviewer", model=ScriptedModel([{"text": "LGTM"}]))
    return Agent(
        name="manager",
        model=ScriptedModel(
            [
                {
                    "tool_calls": [
                        {
                            "id": "c1",
                            "name": "delegate_code_review",
                            "arguments": {"task": "review auth"},
                        }
                    ]
                },
                {"text": "done"},
            ]
        ),
        subagents=[
            SubAgent(
                name="code-reviewer",
                description="Review code",
                agent=reviewer,
                tool_name="delegate_code_review",
            )
        ],
        handoff_policy=HandoffPolicy(max_retries=1, timeout=5.0),
        parallel_tool_calls=True,
    )


def _check_example_result(result: RunResult) -> None:
    assert result.output == "done"
    assert result.steps == 2
    [record] = result.trace.handoffs(tool="delegate_code_review")
    assert (record.tool, record.status, record.attempts, record.depth) == (
        "delegate_code_review",
        "completed",
        1,
        1,
    )
    assert record.output == "LGTM"


def test_spec_2a_example_runs_under_simulate() -> None:
    result = simulate(_spec_example(), "analyze")
    _check_example_result(result)
    assert result.elapsed_ms == 0.0


def test_spec_2a_example_runs_with_sync_run() -> None:
    _check_example_result(_spec_example().run("analyze"))


def test_spec_2a_example_runs_with_async_arun() -> None:
    _check_example_result(asyncio.run(_spec_example().arun("analyze")))


def test_run_result_has_the_fields_spec_2a_names() -> None:
    names = [f.name for f in dataclasses.fields(RunResult)]
    assert names == ["output", "steps", "session_id", "messages", "trace", "elapsed_ms"]


def test_handoff_record_exposes_handoff_end_fields_of_e2() -> None:
    [record] = simulate(_spec_example(), "analyze").trace.handoffs()
    for name in ("tool", "status", "reason", "attempts", "depth", "output", "error", "duration_ms"):
        assert hasattr(record, name), name


_STYLE_NAMES = {
    "handoff_sim.styles.flink": ["FlinkSubAgent", "render_result"],
    "handoff_sim.styles.sophi": [
        "AgentDefinition",
        "RiskLevel",
        "SubagentDispatcher",
        "ToolRegistry",
        "load_agent_definitions",
        "sophi_agent",
    ],
}


@pytest.mark.parametrize("module", sorted(_STYLE_NAMES))
def test_style_names_live_only_in_their_style_module(module: str) -> None:
    import handoff_sim.styles

    style = importlib.import_module(module)
    for name in _STYLE_NAMES[module]:
        assert name in style.__all__, name
        assert not hasattr(handoff_sim, name), name
        assert not hasattr(handoff_sim.styles, name), name


def _importable_modules() -> list[SourceModule]:
    """Public modules a test imports: ``__main__`` runs the command when imported."""
    return [m for m in public_modules() if not m.name.endswith(".__main__")]


def test_the_surface_count_reads_the_pinned_modules_and_their_all() -> None:
    surface = runpy.run_path(str(ROOT / "bench" / "public_surface.py"))["public_surface"]()
    assert list(surface) == PUBLIC_MODULES
    assert surface == {m.name: _static_all(m) or [] for m in _importable_modules()}


def _definition(module: str, name: str, known: dict[str, SourceModule]) -> tuple[str, str]:
    """Where ``module.name`` is defined: its imports followed, read from the source."""
    for _ in range(20):
        source = known.get(module)
        if source is None:
            return module, name
        found = _imported_from(source.tree.body, name)
        if found is None:
            return module, name
        module, name = found
    raise AssertionError(f"an import cycle for {module}.{name}")


def _imported_from(body: list[ast.stmt], name: str) -> tuple[str, str] | None:
    for node in body:
        if isinstance(node, ast.If):
            found = _imported_from(node.body, name)
            if found is not None:
                return found
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                if (alias.asname or alias.name) == name:
                    return node.module, alias.name
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "_HOME" for t in node.targets
        ):
            homes = ast.literal_eval(node.value)
            if name in homes:
                return homes[name], name
    return None


def test_every_public_name_has_one_public_home() -> None:
    known = modules()
    homes: dict[tuple[str, str], list[str]] = {}
    for module in _importable_modules():
        for name in _static_all(module) or []:
            homes.setdefault(_definition(module.name, name, known), []).append(module.name)
    twice = {f"{m}.{n}": listed for (m, n), listed in homes.items() if len(listed) > 1}
    assert not twice, f"listed by two public modules (keep one home): {twice}"


def test_the_second_home_check_follows_a_re_export_to_its_definition() -> None:
    known = modules()
    assert _definition("handoff_sim", "HandoffPolicy", known) == (
        "handoff_sim.subagents._policy",
        "HandoffPolicy",
    )
    assert _definition("handoff_sim.adapters", "SimulatedRun", known)[0] == (
        "handoff_sim.adapters._simulate"
    )


def test_the_public_surface_stays_within_25_modules_and_250_names() -> None:
    surface = runpy.run_path(str(ROOT / "bench" / "public_surface.py"))["public_surface"]()
    assert len(surface) <= 25
    assert sum(len(names) for names in surface.values()) <= 250


def _static_all(module: SourceModule) -> list[str] | None:
    for node in module.tree.body:
        if isinstance(node, ast.Assign | ast.AnnAssign):
            target = node.targets[0] if isinstance(node, ast.Assign) else node.target
            if isinstance(target, ast.Name) and target.id == "__all__" and node.value:
                return list(ast.literal_eval(node.value))
    return None


@pytest.mark.parametrize("module", _importable_modules(), ids=lambda m: m.name)
def test_every_public_module_has_an_all_whose_names_exist(module: SourceModule) -> None:
    names = _static_all(module)
    assert names is not None, f"{module.where} has no literal __all__"
    assert len(names) == len(set(names)), f"{module.name}.__all__ repeats a name"
    try:
        loaded = importlib.import_module(module.name)
    except MissingExtraError:  # the framework is not installed here: read the source instead
        bound = _bound_names(module)
        assert set(names) <= bound, sorted(set(names) - bound)
        return
    assert list(loaded.__all__) == names
    missing = [name for name in names if not hasattr(loaded, name)]
    assert not missing, f"{module.name}.__all__ names what it lacks: {missing}"


def _bound_names(module: SourceModule) -> set[str]:
    """Names a module binds at its top level: imports, definitions, assignments."""
    bound: set[str] = set()
    for node in module.tree.body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            bound.update((a.asname or a.name).partition(".")[0] for a in node.names)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            bound.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            bound.update(t.id for t in targets if isinstance(t, ast.Name))
    return bound


def _runtime_modules() -> list[str]:
    return [m for m in modules() if m.startswith("handoff_sim") and not m.endswith("__main__")]


# One fresh interpreter answers the three import questions, in this order: what ``import
# handoff_sim`` alone loads, then which test tools the runtime loads without the hypothesis
# modules, then with them too (each step only adds imports, so the earlier ones stand).
_FRESH_IMPORTS = """\
import importlib, json, sys
import handoff_sim
heavy = ('asyncio', 'pydantic', 'handoff_sim._agent')
before = sorted(m for m in heavy if m in sys.modules)
names = sorted(n for n in dir(handoff_sim) if not n.startswith('_'))
from handoff_sim import Agent
deferred = [before, names == sorted(handoff_sim.__all__), Agent.__module__,
            'handoff_sim._agent' in sys.modules]
tools = ('pytest', '_pytest', 'syrupy', 'hypothesis')
def loaded_after_importing(names):
    for name in names:
        try:
            importlib.import_module(name)
        except ImportError:  # an adapter whose framework is missing
            pass
    return sorted({m.split('.')[0] for m in sys.modules if m.split('.')[0] in tools})
without, everything = json.loads(sys.argv[1])
print(json.dumps({'deferred': deferred, 'runtime': loaded_after_importing(without),
                  'with_hypothesis_modules': loaded_after_importing(everything)}))
"""


@pytest.fixture(scope="module")
def fresh_imports() -> dict[str, Any]:
    """What a fresh interpreter loads at each import step of ``_FRESH_IMPORTS``."""
    everything = _runtime_modules()
    without = [m for m in everything if m not in HYPOTHESIS_MODULES]
    out = subprocess.run(
        [sys.executable, "-c", _FRESH_IMPORTS, json.dumps([without, everything])],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    found: dict[str, Any] = json.loads(out.stdout)
    return found


@pytest.mark.slow
def test_importing_the_runtime_imports_no_pytest_syrupy_or_hypothesis(
    fresh_imports: dict[str, Any],
) -> None:
    assert fresh_imports["runtime"] == []


@pytest.mark.slow
def test_even_the_strategies_and_the_fuzzer_import_no_pytest_or_syrupy(
    fresh_imports: dict[str, Any],
) -> None:
    assert fresh_imports["with_hypothesis_modules"] == ["hypothesis"]


@pytest.mark.slow
def test_importing_handoff_sim_alone_defers_the_runtime_until_a_name_is_used(
    fresh_imports: dict[str, Any],
) -> None:
    assert fresh_imports["deferred"] == [[], True, "handoff_sim._agent", True]
