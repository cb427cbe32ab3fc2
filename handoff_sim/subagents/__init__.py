"""Sub-agents as tools: definitions, naming, policy and the handoff executor.

``SubAgent``, ``HandoffPolicy``, ``FailureAction``, ``SessionMode`` and
``normalize_tool_name`` import from ``handoff_sim``; this package lists the executor every
mount (the delegation styles, the framework adapters) runs through. The naming, input
and refusal helpers and the policy's file-form blocks are its internal interface
(``_naming``, ``_input``, ``_definition``, ``_policy``).
"""

from handoff_sim.subagents._executor import HandoffExecutor

__all__ = [
    "HandoffExecutor",
]
