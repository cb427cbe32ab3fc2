"""What the agents of one scenario run share while they are built."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from handoff_sim.models import ModelClient
from handoff_sim.sessions import SessionStore
from handoff_sim.styles.sophi import AgentDefinition

__all__ = ["BuildContext"]


@dataclass
class BuildContext:
    """What the agents of one run share: agent types, their models, sessions, tool counts."""

    agent_types: Mapping[str, AgentDefinition] = field(default_factory=dict)
    type_models: Mapping[str, ModelClient] = field(default_factory=dict)
    session_store: SessionStore | None = None
    tool_runs: dict[str, int] | None = None
