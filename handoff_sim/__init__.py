"""handoff_sim: an asyncio runtime for sub-agent delegation, with virtual time.

The top level holds the names the product's first example and a test of a run need:
agents, sub-agents and their policy, tools, the model protocol and the messages it
exchanges (``ModelRequest``, ``ModelResponse``, ``ToolCall``), sessions and their stores,
``simulate``, ``Trace``, the runtime's hook marker, the errors a user of the core catches
(``ConfigurationError``, ``HandoffDeniedError``, ``MaxStepsExceededError`` ...), the invariant
checks (``check_invariants``, ``assert_invariants``, ``check_determinism``, ``Violation``,
``InvariantViolationError``) and the gates a recorded trace is held to in CI (``Gates``,
``check_gates``, ``GateReport``, ``GateResult``, ``GateFailedError``, ``GateSpecError``).
Every other public name has one home of its own: ``handoff_sim.errors`` (the error
families and every other error), ``handoff_sim.events`` (the event classes and their
union), ``handoff_sim.messages``, ``handoff_sim.simulation``, ``handoff_sim.testing`` (fake
models), ``handoff_sim.adapters`` and the delegation styles. See README.md for a tour.

Names load on first use (``from handoff_sim import Agent`` imports the runtime then), so
``import handoff_sim`` alone stays cheap; ``dir()`` and ``__all__`` list them all.
"""

import importlib as _importlib
import typing as _typing

from handoff_sim._version import __version__ as __version__

if _typing.TYPE_CHECKING:
    from handoff_sim._agent import Agent, RunResult
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
    from handoff_sim._sessions import JsonlSessionStore, Session, SessionStore
    from handoff_sim._tools import Tool, ToolOutput, tool
    from handoff_sim.messages import ModelRequest, ModelResponse, ToolCall
    from handoff_sim.simulation._simulation import simulate
    from handoff_sim.subagents._definition import SubAgent
    from handoff_sim.subagents._naming import normalize_tool_name
    from handoff_sim.subagents._policy import FailureAction, HandoffPolicy, SessionMode
    from handoff_sim.trace import Trace

__all__ = [
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

_HOME = {
    "Agent": "handoff_sim._agent",
    "RunResult": "handoff_sim._agent",
    "ConfigurationError": "handoff_sim._errors._families",
    "DuplicateToolNameError": "handoff_sim._errors._configuration",
    "ReservedPrefixError": "handoff_sim._errors._configuration",
    "HandoffDeniedError": "handoff_sim._errors._run",
    "MaxStepsExceededError": "handoff_sim._errors._run",
    "UnknownToolError": "handoff_sim._errors._run",
    "GateFailedError": "handoff_sim._gates",
    "GateReport": "handoff_sim._gates",
    "GateResult": "handoff_sim._gates",
    "GateSpecError": "handoff_sim._gates",
    "Gates": "handoff_sim._gates",
    "check_gates": "handoff_sim._gates",
    "hookimpl": "handoff_sim._hooks",
    "ModelRequest": "handoff_sim.messages",
    "ModelResponse": "handoff_sim.messages",
    "ToolCall": "handoff_sim.messages",
    "ModelClient": "handoff_sim._models",
    "JsonlSessionStore": "handoff_sim._sessions",
    "Session": "handoff_sim._sessions",
    "SessionStore": "handoff_sim._sessions",
    "simulate": "handoff_sim.simulation._simulation",
    "SubAgent": "handoff_sim.subagents._definition",
    "normalize_tool_name": "handoff_sim.subagents._naming",
    "FailureAction": "handoff_sim.subagents._policy",
    "HandoffPolicy": "handoff_sim.subagents._policy",
    "SessionMode": "handoff_sim.subagents._policy",
    "Tool": "handoff_sim._tools",
    "tool": "handoff_sim._tools",
    "ToolOutput": "handoff_sim._tools",
    "Trace": "handoff_sim.trace",
    "check_invariants": "handoff_sim._invariants",
    "assert_invariants": "handoff_sim._invariants",
    "check_determinism": "handoff_sim._invariants",
    "InvariantViolationError": "handoff_sim._invariants",
    "Violation": "handoff_sim._invariants",
}
"""Where each top-level name is defined (imported from there on first use)."""

_MOVED = {
    "Event": "handoff_sim.events",
    "HandoffSimError": "handoff_sim.errors",
    "RunError": "handoff_sim.errors",
    "ScriptError": "handoff_sim.errors",
    "SessionStoreError": "handoff_sim.errors",
    "Message": "handoff_sim.messages",
    "ToolSpec": "handoff_sim.messages",
    "Simulation": "handoff_sim.simulation",
}
"""Names 0.2 exported here that now have another public home: importable, not public."""


def _lazy_attribute(name: str) -> object:
    """Import a public name from its module on first use (PEP 562).

    A submodule not imported yet is imported too, as the eager top level used to do.
    Type checkers never see this lookup, so a misspelt name is still a type error.
    """
    home = _HOME.get(name)
    if home is not None:
        value = getattr(_importlib.import_module(home), name)
        globals()[name] = value
        return value
    if name in _MOVED:  # looked up each time, so it never joins dir()
        return getattr(_importlib.import_module(_MOVED[name]), name)
    if not name.startswith("__"):
        try:
            return _importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as error:
            if error.name != f"{__name__}.{name}":
                raise
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


if not _typing.TYPE_CHECKING:
    __getattr__ = _lazy_attribute


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
