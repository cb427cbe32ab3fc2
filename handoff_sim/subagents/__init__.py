"""Sub-agents as tools: definitions, naming, policy and the handoff executor.

``SubAgent``, ``HandoffPolicy``, ``FailureAction``, ``SessionMode`` and
``normalize_tool_name`` import from ``handoff_sim``; this package lists the executor every
mount (the delegation styles, the framework adapters) runs through. The naming, input
and refusal helpers and the policy's file-form blocks are its internal interface
(``_naming``, ``_input``, ``_definition``, ``_policy``).
"""

import typing as _typing

from handoff_sim._moved import moved_names as _moved_names
from handoff_sim.subagents._executor import HandoffExecutor

__all__ = [
    "HandoffExecutor",
]


if not _typing.TYPE_CHECKING:
    __getattr__ = _moved_names(
        __name__,
        {
            "FailureAction": "handoff_sim",
            "HandoffPolicy": "handoff_sim",
            "SessionMode": "handoff_sim",
            "SubAgent": "handoff_sim",
            "normalize_tool_name": "handoff_sim",
        },
    )
