"""Sub-agents as tools: definitions, naming, policy and the handoff executor.

The naming, input and refusal helpers are public for :class:`SubAgent` subclasses
(the delegation styles and the framework adapters mount through the same executor),
and so are the policy's file-form blocks the scenario schema reads.
"""

from handoff_sim.subagents._executor import HandoffExecutor

__all__ = [
    "HandoffExecutor",
]
