"""Sub-agents as tools: definitions, naming, policy and the handoff executor."""

from handoff_sim.subagents._input import resolve_input
from handoff_sim.subagents._naming import SUBAGENT_PREFIX, normalize_tool_name
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
    "normalize_tool_name",
    "resolve_input",
]
