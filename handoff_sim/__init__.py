"""handoff_sim: an asyncio runtime for sub-agent delegation, with virtual time.

The top level holds what a user of the core needs: agents, sub-agents and their
policy, tools and tool executors, messages, sessions, simulation, traces,
the runtime's hook marker, the base classes of the errors, and what a test of a run checks
(``check_invariants``, ``assert_invariants``, ``check_determinism``, ``Violation``,
``InvariantViolationError``, ``HandoffDeniedError``, the adapters' ``Transfer``), and the
gates a recorded trace is held to in CI (``Gates``, ``check_gates``, ``GateReport``,
``GateResult``, ``GateFailedError``, ``GateSpecError``). Everything
else lives in its own module: ``handoff_sim.errors`` (every error), ``handoff_sim.trace``
(handoff records and trees), ``handoff_sim.testing`` (fake models),
``handoff_sim.styles.flink`` and ``handoff_sim.styles.sophi`` (the delegation styles).
See README.md for a tour.

Names load on first use (``from handoff_sim import Agent`` imports the runtime then), so
``import handoff_sim`` alone stays cheap; ``dir()`` and ``__all__`` list them all.
"""

import importlib as _importlib
import typing as _typing

from handoff_sim._version import __version__ as __version__

if _typing.TYPE_CHECKING:
    from handoff_sim._agent import Agent, RunResult
    from handoff_sim._context import current_depth
    from handoff_sim._errors._configuration import DuplicateToolNameError, ReservedPrefixError
    from handoff_sim._errors._families import ConfigurationError
    from handoff_sim._errors._run import (
        HandoffDeniedError,
        MaxStepsExceededError,
        UnknownToolError,
    )
    from handoff_sim._gates import (
        GateFailedError,
        GateReport,
        GateResult,
        Gates,
        GateSpecError,
        check_gates,
    )
    from handoff_sim._hooks import hookimpl
    from handoff_sim._invariants import (
        InvariantViolationError,
        Violation,
        assert_invariants,
        check_determinism,
        check_invariants,
    )
    from handoff_sim._models import ModelClient
    from handoff_sim._sessions import InMemorySessionStore, JsonlSessionStore, Session, SessionStore
    from handoff_sim._tools import Tool, ToolExecutor, ToolOutput, ToolSetExecutor, tool
    from handoff_sim.adapters import Transfer
    from handoff_sim.errors import (
        CheckFailedError,
        DataError,
        HandoffSimError,
        RunError,
        ScenarioError,
        ScriptError,
        SessionStoreError,
        SetupError,
        ToolCallError,
    )
    from handoff_sim.events import Event
    from handoff_sim.messages import (
        Message,
        ModelRequest,
        ModelResponse,
        ToolCall,
        ToolSpec,
        Usage,
    )
    from handoff_sim.simulation import Simulation
    from handoff_sim.simulation._simulation import simulate
    from handoff_sim.subagents._definition import SubAgent
    from handoff_sim.subagents._naming import normalize_tool_name
    from handoff_sim.subagents._policy import FailureAction, HandoffPolicy, SessionMode
    from handoff_sim.trace import Trace

__all__ = [
    "Agent",
    "CheckFailedError",
    "ConfigurationError",
    "DataError",
    "DuplicateToolNameError",
    "Event",
    "FailureAction",
    "GateFailedError",
    "GateReport",
    "GateResult",
    "GateSpecError",
    "Gates",
    "HandoffDeniedError",
    "HandoffPolicy",
    "HandoffSimError",
    "InMemorySessionStore",
    "InvariantViolationError",
    "JsonlSessionStore",
    "MaxStepsExceededError",
    "Message",
    "ModelClient",
    "ModelRequest",
    "ModelResponse",
    "ReservedPrefixError",
    "RunError",
    "RunResult",
    "ScenarioError",
    "ScriptError",
    "Session",
    "SessionMode",
    "SessionStore",
    "SessionStoreError",
    "SetupError",
    "Simulation",
    "SubAgent",
    "Tool",
    "ToolCall",
    "ToolCallError",
    "ToolExecutor",
    "ToolOutput",
    "ToolSetExecutor",
    "ToolSpec",
    "Trace",
    "Transfer",
    "UnknownToolError",
    "Usage",
    "Violation",
    "assert_invariants",
    "check_determinism",
    "check_gates",
    "check_invariants",
    "current_depth",
    "hookimpl",
    "normalize_tool_name",
    "simulate",
    "tool",
]

_HOME = {
    "current_depth": "handoff_sim._context",
    "Agent": "handoff_sim._agent",
    "RunResult": "handoff_sim._agent",
    "CheckFailedError": "handoff_sim.errors",
    "ConfigurationError": "handoff_sim.errors",
    "DataError": "handoff_sim.errors",
    "DuplicateToolNameError": "handoff_sim.errors",
    "HandoffDeniedError": "handoff_sim.errors",
    "HandoffSimError": "handoff_sim.errors",
    "MaxStepsExceededError": "handoff_sim.errors",
    "ReservedPrefixError": "handoff_sim.errors",
    "RunError": "handoff_sim.errors",
    "ScenarioError": "handoff_sim.errors",
    "ScriptError": "handoff_sim.errors",
    "SessionStoreError": "handoff_sim.errors",
    "SetupError": "handoff_sim.errors",
    "ToolCallError": "handoff_sim.errors",
    "UnknownToolError": "handoff_sim.errors",
    "Event": "handoff_sim.events",
    "GateFailedError": "handoff_sim._gates",
    "GateReport": "handoff_sim._gates",
    "GateResult": "handoff_sim._gates",
    "GateSpecError": "handoff_sim._gates",
    "Gates": "handoff_sim._gates",
    "check_gates": "handoff_sim._gates",
    "hookimpl": "handoff_sim._hooks",
    "Message": "handoff_sim.messages",
    "ModelRequest": "handoff_sim.messages",
    "ModelResponse": "handoff_sim.messages",
    "ToolCall": "handoff_sim.messages",
    "ToolSpec": "handoff_sim.messages",
    "Usage": "handoff_sim.messages",
    "ModelClient": "handoff_sim._models",
    "InMemorySessionStore": "handoff_sim._sessions",
    "JsonlSessionStore": "handoff_sim._sessions",
    "Session": "handoff_sim._sessions",
    "SessionStore": "handoff_sim._sessions",
    "Simulation": "handoff_sim.simulation",
    "simulate": "handoff_sim.simulation",
    "FailureAction": "handoff_sim.subagents",
    "HandoffPolicy": "handoff_sim.subagents",
    "SessionMode": "handoff_sim.subagents",
    "SubAgent": "handoff_sim.subagents",
    "normalize_tool_name": "handoff_sim.subagents",
    "Tool": "handoff_sim._tools",
    "tool": "handoff_sim._tools",
    "ToolExecutor": "handoff_sim._tools",
    "ToolOutput": "handoff_sim._tools",
    "ToolSetExecutor": "handoff_sim._tools",
    "Trace": "handoff_sim.trace",
    "Transfer": "handoff_sim.adapters",
    "check_invariants": "handoff_sim._invariants",
    "assert_invariants": "handoff_sim._invariants",
    "check_determinism": "handoff_sim._invariants",
    "InvariantViolationError": "handoff_sim._invariants",
    "Violation": "handoff_sim._invariants",
}
"""Where each top-level name is defined (imported from there on first use)."""


def __getattr__(name: str) -> object:
    """Import a public name from its module on first use (PEP 562).

    A submodule not imported yet is imported too, as the eager top level used to do.
    """
    home = _HOME.get(name)
    if home is not None:
        value = getattr(_importlib.import_module(home), name)
        globals()[name] = value
        return value
    if not name.startswith("__"):
        try:
            return _importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as error:
            if error.name != f"{__name__}.{name}":
                raise
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
