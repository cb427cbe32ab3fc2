"""Sub-agents as tools: definitions, naming, policy and the handoff executor.

The naming and input helpers are public for :class:`SubAgent` subclasses (the
delegation styles and the framework adapters mount through the same executor).
"""

from handoff_sim.subagents._input import envelope, resolve_input
from handoff_sim.subagents._naming import (
    SUBAGENT_PREFIX,
    check_explicit_tool_name,
    normalize_tool_name,
)
from handoff_sim.subagents.definition import SubAgent
from handoff_sim.subagents.executor import HandoffExecutor
from handoff_sim.subagents.policy import FailureAction, HandoffPolicy, SessionMode

__all__ = [
    "SUBAGENT_PREFIX",
    "FailureAction",
    "HandoffExecutor",
    "HandoffPolicy",
    "SessionMode",
    "SubAgent",
    "check_explicit_tool_name",
    "envelope",
    "normalize_tool_name",
    "resolve_input",
]
