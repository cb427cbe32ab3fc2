"""handoff_sim: an asyncio runtime for sub-agent delegation, with virtual time.

The top level holds what a user of the core needs: agents, sub-agents and their
policy, tools, messages, sessions, simulation, traces, the runtime's hook marker and
the base classes of the errors. Everything else lives in its own module:
``handoff_sim.errors`` (every error), ``handoff_sim.trace`` (handoff records and
trees), ``handoff_sim.tools`` (tool executors), ``handoff_sim.testing`` (fake models),
``handoff_sim.styles.flink`` and ``handoff_sim.styles.sophi`` (the delegation styles).
See README.md for a tour.
"""

from handoff_sim._context import current_depth
from handoff_sim._version import __version__ as __version__
from handoff_sim.agent import Agent, RunResult
from handoff_sim.errors import (
    ConfigurationError,
    DuplicateToolNameError,
    HandoffDeniedError,
    HandoffSimError,
    MaxStepsExceededError,
    ReservedPrefixError,
    RunError,
    ScriptError,
    SessionStoreError,
    UnknownToolError,
)
from handoff_sim.events import Event
from handoff_sim.hooks import hookimpl
from handoff_sim.messages import Message, ModelRequest, ModelResponse, ToolCall, ToolSpec
from handoff_sim.models import ModelClient
from handoff_sim.sessions import InMemorySessionStore, JsonlSessionStore, Session, SessionStore
from handoff_sim.simulation import Simulation, simulate
from handoff_sim.subagents import (
    FailureAction,
    HandoffPolicy,
    SessionMode,
    SubAgent,
    normalize_tool_name,
)
from handoff_sim.tools import Tool, tool
from handoff_sim.trace import Trace

__all__ = [
    "Agent",
    "ConfigurationError",
    "DuplicateToolNameError",
    "Event",
    "FailureAction",
    "HandoffDeniedError",
    "HandoffPolicy",
    "HandoffSimError",
    "InMemorySessionStore",
    "JsonlSessionStore",
    "MaxStepsExceededError",
    "Message",
    "ModelClient",
    "ModelRequest",
    "ModelResponse",
    "ReservedPrefixError",
    "RunError",
    "RunResult",
    "ScriptError",
    "Session",
    "SessionMode",
    "SessionStore",
    "SessionStoreError",
    "Simulation",
    "SubAgent",
    "Tool",
    "ToolCall",
    "ToolSpec",
    "Trace",
    "UnknownToolError",
    "current_depth",
    "hookimpl",
    "normalize_tool_name",
    "simulate",
    "tool",
]
