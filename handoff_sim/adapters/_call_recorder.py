"""Where a framework's recording model reports its calls: the one protocol both adapters use.

``handoff_sim.recording.Recorder`` is one; the adapters never import it (recording sits
above them), so they name what they need of it here.
"""

from __future__ import annotations

from typing import Protocol

from handoff_sim.messages import ModelRequest, ModelResponse

__all__ = ["ModelCallRecorder"]


class ModelCallRecorder(Protocol):
    """Where a recording model reports its calls (``handoff_sim.recording.Recorder``)."""

    def ticket(self) -> int:
        """A number ordering a call among calls that start at the same instant."""

    def model_call(
        self,
        agent: str,
        request: ModelRequest,
        response: ModelResponse | None,
        error: BaseException | None,
        start: float,
        end: float,
        first_chunk: float | None,
        model: str,
        *,
        order: int | None = None,
    ) -> object:
        """One model call: what was asked, what came back (or the error), and when.

        ``start`` and ``end`` are loop-clock readings; ``first_chunk`` is the time from
        ``start`` to a stream's first chunk (``None`` for a call that did not stream).
        """
