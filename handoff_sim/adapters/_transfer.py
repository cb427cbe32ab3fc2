"""``Transfer``: an openai-agents control transfer, as a capture lists it (no runtime import)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Transfer"]


@dataclass(frozen=True, slots=True)
class Transfer:
    """A control transfer (an openai-agents handoff): ``from_agent`` gave the run away."""

    from_agent: str
    to_agent: str
    tool: str
    call_id: str
    from_run_id: str
    t: float
