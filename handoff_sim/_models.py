"""The model client protocol: the one seam between the runtime and any LLM."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from handoff_sim.messages import ModelRequest, ModelResponse

__all__ = ["ModelClient"]


@runtime_checkable
class ModelClient(Protocol):
    """Anything with ``async complete(request) -> ModelResponse``."""

    async def complete(self, request: ModelRequest) -> ModelResponse:
        """Answer one request."""
        ...
