"""SoPhi-style delegation: one ``delegate_to_subagent`` dispatcher tool.

Least privilege by registry subset, recursion closed by default with a depth
cap, risk tiers with batched confirmation, ``subagent:<name>`` sessions linked to
their parent, and agent definitions in Markdown files. See docs/styles.md.
"""

from handoff_sim.styles.sophi._agent import sophi_agent
from handoff_sim.styles.sophi._arguments import DELEGATE_TOOL_NAME, DELEGATION_PARAMETERS
from handoff_sim.styles.sophi._confirmation import (
    ALLOW_ALL,
    DENY_ALL,
    ConfirmationGate,
    ConfirmationPolicy,
    ConfirmationRequest,
    GatedExecutor,
)
from handoff_sim.styles.sophi._definitions import (
    AgentDefinition,
    AgentDefinitionError,
    AgentDefinitionWarning,
    DefinitionLoad,
    load_agent_definition,
    load_agent_definitions,
    parse_agent_definition,
)
from handoff_sim.styles.sophi._dispatcher import DEFAULT_MAX_DELEGATION_DEPTH, SubagentDispatcher
from handoff_sim.styles.sophi._registry import ToolRegistry
from handoff_sim.styles.sophi._risk import RiskDeclaration, RiskLevel, risk_of, with_risk

__all__ = [
    "ALLOW_ALL",
    "DEFAULT_MAX_DELEGATION_DEPTH",
    "DELEGATE_TOOL_NAME",
    "DELEGATION_PARAMETERS",
    "DENY_ALL",
    "AgentDefinition",
    "AgentDefinitionError",
    "AgentDefinitionWarning",
    "ConfirmationGate",
    "ConfirmationPolicy",
    "ConfirmationRequest",
    "DefinitionLoad",
    "GatedExecutor",
    "RiskDeclaration",
    "RiskLevel",
    "SubagentDispatcher",
    "ToolRegistry",
    "load_agent_definition",
    "load_agent_definitions",
    "parse_agent_definition",
    "risk_of",
    "sophi_agent",
    "with_risk",
]
