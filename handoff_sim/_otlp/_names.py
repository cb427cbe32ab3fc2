"""Span names and attribute keys shared by the OpenTelemetry export and the OTLP import.

GenAI keys follow the OpenTelemetry GenAI semantic conventions; ``handoff_sim.*`` keys
carry what those conventions have no name for (sequence numbers, handoff fields), so
our own export reads back into the very same events.
"""

from __future__ import annotations

from typing import Final

__all__ = [
    "ATTEMPT",
    "CONFIRMATION",
    "DEFAULT_EPOCH_NS",
    "EPOCH",
    "ERROR_TYPE",
    "EVENT_CONFIRMATION_DECISION",
    "EVENT_CONFIRMATION_REQUEST",
    "EVENT_HANDOFF_END",
    "EVENT_HANDOFF_START",
    "GEN_AI_AGENT_ID",
    "GEN_AI_AGENT_NAME",
    "GEN_AI_CONVERSATION_ID",
    "GEN_AI_OPERATION",
    "GEN_AI_PROVIDER",
    "GEN_AI_TOOL_ARGUMENTS",
    "GEN_AI_TOOL_CALL_ID",
    "GEN_AI_TOOL_NAME",
    "GEN_AI_TOOL_RESULT",
    "GEN_AI_TOOL_TYPE",
    "HANDOFF",
    "NAMES",
    "OUR",
    "PROVIDER",
    "SCOPE",
    "SEQ",
    "SEQ_END",
    "SEQ_START",
    "TRACE_NAME",
]

# GenAI semantic conventions
GEN_AI_OPERATION: Final = "gen_ai.operation.name"
GEN_AI_PROVIDER: Final = "gen_ai.provider.name"
GEN_AI_AGENT_NAME: Final = "gen_ai.agent.name"
GEN_AI_AGENT_ID: Final = "gen_ai.agent.id"
GEN_AI_CONVERSATION_ID: Final = "gen_ai.conversation.id"
GEN_AI_TOOL_NAME: Final = "gen_ai.tool.name"
GEN_AI_TOOL_CALL_ID: Final = "gen_ai.tool.call.id"
GEN_AI_TOOL_TYPE: Final = "gen_ai.tool.type"
GEN_AI_TOOL_ARGUMENTS: Final = "gen_ai.tool.call.arguments"
GEN_AI_TOOL_RESULT: Final = "gen_ai.tool.call.result"
ERROR_TYPE: Final = "error.type"

PROVIDER: Final = "handoff_sim"
"""``gen_ai.provider.name`` of our spans: the models are handoff-sim's fakes."""

SCOPE: Final = "handoff_sim"
"""The instrumentation scope name of our spans."""

# handoff_sim.* keys
OUR: Final = "handoff_sim."
SEQ: Final = "handoff_sim.seq"
SEQ_START: Final = "handoff_sim.seq.start"
SEQ_END: Final = "handoff_sim.seq.end"
ATTEMPT: Final = "handoff_sim.attempt"
HANDOFF: Final = "handoff_sim.handoff."
EPOCH: Final = "handoff_sim.epoch_unix_nano"
TRACE_NAME: Final = "handoff_sim.trace.name"
EVENT_HANDOFF_START: Final = "handoff_sim.handoff_start"
EVENT_HANDOFF_END: Final = "handoff_sim.handoff_end"
EVENT_CONFIRMATION_REQUEST: Final = "handoff_sim.confirmation_request"
EVENT_CONFIRMATION_DECISION: Final = "handoff_sim.confirmation_decision"
CONFIRMATION: Final = "handoff_sim.confirmation."

NAMES: Final = frozenset(
    {
        GEN_AI_OPERATION,
        GEN_AI_AGENT_NAME,
        GEN_AI_AGENT_ID,
        GEN_AI_CONVERSATION_ID,
        GEN_AI_TOOL_NAME,
        GEN_AI_TOOL_CALL_ID,
        ERROR_TYPE,
        "exception.type",
        "agent_name",
        "agent.name",
        "tool.name",
        "tool_name",
        "handoff_sim.agent",
        "handoff_sim.run_id",
        "handoff_sim.parent_run_id",
        "handoff_sim.call_id",
        "handoff_sim.tool",
        "handoff_sim.tools",
        "handoff_sim.tool_calls",
        f"{HANDOFF}id",
        f"{HANDOFF}parent_id",
        f"{HANDOFF}subagent",
        f"{HANDOFF}session_id",
        f"{CONFIRMATION}batch_id",
        f"{CONFIRMATION}call_ids",
        f"{CONFIRMATION}call_id",
        f"{CONFIRMATION}tools",
        f"{CONFIRMATION}tool",
        TRACE_NAME,
        "handoff_sim.scenario.id",
        "handoff_sim.scenario.path",
    }
)
"""Attributes whose values are names or ids (agents, tools, calls, runs, sessions, error
types): the import refuses a lone surrogate in them, as in span names and attribute keys."""

DEFAULT_EPOCH_NS: Final = 1_767_225_600 * 1_000_000_000
"""2026-01-01T00:00:00Z, the simulations' default wall-clock start, in Unix nanoseconds."""
