"""SoPhi-style delegation: one ``delegate_to_subagent`` dispatcher tool.

Least privilege by registry subset, recursion closed by default with a depth
cap, risk tiers with batched confirmation, ``subagent:<name>`` sessions linked to
their parent, and agent definitions in Markdown files. See docs/styles.md.
"""

from handoff_sim.styles.sophi._agent import sophi_agent
from handoff_sim.styles.sophi._confirmation import (
    ALLOW_ALL,
    DENY_ALL,
    ConfirmationGate,
    ConfirmationRequest,
)
from handoff_sim.styles.sophi._definitions import (
    AgentDefinition,
    AgentDefinitionError,
    AgentDefinitionWarning,
    DefinitionLoad,
    load_agent_definitions,
)
from handoff_sim.styles.sophi._dispatcher import SubagentDispatcher
from handoff_sim.styles.sophi._registry import ToolRegistry
from handoff_sim.styles.sophi._risk import RiskLevel, with_risk

__all__ = [
    "ALLOW_ALL",
    "DENY_ALL",
    "AgentDefinition",
    "AgentDefinitionError",
    "AgentDefinitionWarning",
    "ConfirmationGate",
    "ConfirmationRequest",
    "DefinitionLoad",
    "RiskLevel",
    "SubagentDispatcher",
    "ToolRegistry",
    "load_agent_definitions",
    "sophi_agent",
    "with_risk",
]
