"""What the agents of one scenario run share while they are built."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from handoff_sim._models import ModelClient
from handoff_sim._sessions import SessionStore
from handoff_sim.styles.sophi import AgentDefinition

if TYPE_CHECKING:
    from handoff_sim.scenarios._load import LoadedScenario

__all__ = ["BuildContext"]


@dataclass
class BuildContext:
    """What the agents of one run share: agent types, their models, sessions, tool counts."""

    agent_types: Mapping[str, AgentDefinition] = field(default_factory=dict)
    type_models: Mapping[str, ModelClient] = field(default_factory=dict)
    session_store: SessionStore | None = None
    tool_runs: dict[str, int] | None = None
    scenario: LoadedScenario | None = None
    """The loaded scenario being built, when there is one: where its file is (a ``python:``
    input filter is imported from next to it) and the lines errors point at."""
