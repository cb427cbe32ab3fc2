"""handoff_sim: an asyncio runtime for sub-agent delegation, with virtual time.

See README.md for a tour; ``handoff_sim.testing`` has the fake models.
"""

from handoff_sim._context import current_depth
from handoff_sim._version import __version__ as __version__
from handoff_sim.agent import Agent, RunResult
from handoff_sim.errors import (
    BudgetExceededError,
    ConfigurationError,
    DuplicateToolNameError,
    HandoffDeniedError,
    HandoffSimError,
    HandoffTimeoutError,
    InvalidNameError,
    MaxStepsExceededError,
    ModelResponseError,
    PolicyError,
    ReservedPrefixError,
    RunError,
    ScriptAssertionError,
    ScriptError,
    ScriptExhaustedError,
    SessionStoreError,
    UnconsumedStepsError,
    UnknownToolError,
    VirtualDeadlineError,
    VirtualDeadlockError,
    VirtualTimeError,
)
from handoff_sim.events import Event
from handoff_sim.hooks import hookimpl
from handoff_sim.messages import Message, ModelRequest, ModelResponse, ToolCall, ToolSpec
from handoff_sim.models import ModelClient
from handoff_sim.sessions import InMemorySessionStore, JsonlSessionStore, Session, SessionStore
from handoff_sim.simulation import Simulation, VirtualTimeLoop, simulate
from handoff_sim.styles import (
    AgentDefinition,
    FlinkSubAgent,
    RiskLevel,
    SubagentDispatcher,
    ToolRegistry,
    sophi_agent,
)
from handoff_sim.subagents import (
    FailureAction,
    HandoffPolicy,
    SessionMode,
    SubAgent,
    normalize_tool_name,
    resolve_input,
)
from handoff_sim.tools import Tool, ToolExecutor, ToolOutput, ToolSetExecutor, tool
from handoff_sim.trace import HandoffNode, HandoffRecord, Trace

__all__ = [
    "Agent",
    "AgentDefinition",
    "BudgetExceededError",
    "ConfigurationError",
    "DuplicateToolNameError",
    "Event",
    "FailureAction",
    "FlinkSubAgent",
    "HandoffDeniedError",
    "HandoffNode",
    "HandoffPolicy",
    "HandoffRecord",
    "HandoffSimError",
    "HandoffTimeoutError",
    "InMemorySessionStore",
    "InvalidNameError",
    "JsonlSessionStore",
    "MaxStepsExceededError",
    "Message",
    "ModelClient",
    "ModelRequest",
    "ModelResponse",
    "ModelResponseError",
    "PolicyError",
    "ReservedPrefixError",
    "RiskLevel",
    "RunError",
    "RunResult",
    "ScriptAssertionError",
    "ScriptError",
    "ScriptExhaustedError",
    "Session",
    "SessionMode",
    "SessionStore",
    "SessionStoreError",
    "Simulation",
    "SubAgent",
    "SubagentDispatcher",
    "Tool",
    "ToolCall",
    "ToolExecutor",
    "ToolOutput",
    "ToolRegistry",
    "ToolSetExecutor",
    "ToolSpec",
    "Trace",
    "UnconsumedStepsError",
    "UnknownToolError",
    "VirtualDeadlineError",
    "VirtualDeadlockError",
    "VirtualTimeError",
    "VirtualTimeLoop",
    "current_depth",
    "hookimpl",
    "normalize_tool_name",
    "resolve_input",
    "simulate",
    "sophi_agent",
    "tool",
]
