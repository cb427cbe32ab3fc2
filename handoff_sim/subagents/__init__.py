"""Sub-agents as tools: definitions, naming, policy and the handoff executor.

The naming, input and refusal helpers are public for :class:`SubAgent` subclasses
(the delegation styles and the framework adapters mount through the same executor),
and so are the policy's file-form blocks the scenario schema reads.
"""

from handoff_sim.subagents._definition import Refusal, SubAgent
from handoff_sim.subagents._executor import HandoffExecutor
from handoff_sim.subagents._input import envelope, resolve_input
from handoff_sim.subagents._naming import (
    SUBAGENT_PREFIX,
    check_explicit_tool_name,
    normalize_tool_name,
)
from handoff_sim.subagents._policy import (
    FailureAction,
    HandoffPolicy,
    InputFilterBlock,
    RetryOnBlock,
    SessionMode,
)

__all__ = [
    "SUBAGENT_PREFIX",
    "FailureAction",
    "HandoffExecutor",
    "HandoffPolicy",
    "InputFilterBlock",
    "Refusal",
    "RetryOnBlock",
    "SessionMode",
    "SubAgent",
    "check_explicit_tool_name",
    "envelope",
    "normalize_tool_name",
    "resolve_input",
]
