"""``ScriptedModel`` and ``FunctionModel``: strict, offline fake model clients (M1, M2)."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from handoff_sim.errors import ScriptExhaustedError, UnconsumedStepsError
from handoff_sim.messages import ModelRequest, ModelResponse
from handoff_sim.testing._steps import (
    SimulatedModelError,
    check_request,
    parse_steps,
    to_response,
)

__all__ = ["FunctionModel", "ScriptedModel"]


class ScriptedModel:
    """Answers with its script, one step per call; running past the end raises.

    Steps are dicts — ``{"text": ...}``, ``{"tool_calls": [...]}``,
    ``{"error": ...}`` — each with an optional ``latency`` (seconds or ``"250ms"``)
    and an optional ``expect`` on the request it answers. Every request is kept
    in :attr:`requests`. Call :meth:`assert_complete` to prove every step was used.
    """

    model_name = "scripted"

    def __init__(self, steps: Sequence[Any], *, name: str | None = None) -> None:
        self.steps = parse_steps(steps)
        self.requests: list[ModelRequest] = []
        self.name = name

    @property
    def remaining(self) -> int:
        """Steps not used yet."""
        return len(self.steps) - len(self.requests)

    async def complete(self, request: ModelRequest) -> ModelResponse:
        """The next step's response (after its latency), or its error."""
        index = len(self.requests)
        self.requests.append(request)
        agent = self.name or request.agent
        if index >= len(self.steps):
            raise ScriptExhaustedError(agent, index + 1, len(self.steps))
        step = self.steps[index]
        check_request(step, request, agent, index + 1)
        if step.latency:
            await asyncio.sleep(step.latency)
        if step.exception is not None:
            raise step.exception
        if step.error is not None:
            raise SimulatedModelError(step.error)
        assert step.response is not None
        return step.response

    def assert_complete(self) -> None:
        """Raise UnconsumedStepsError if any step was never used."""
        if self.remaining > 0:
            raise UnconsumedStepsError(
                f"script of {self.name or 'the model'} has {self.remaining} unused step(s) "
                f"of {len(self.steps)}: the first unused is step {len(self.requests) + 1}"
            )


class FunctionModel:
    """A fake model whose answers come from a function of the request (sync or async).

    The function may return a ModelResponse, a plain string (text) or a step dict.
    """

    model_name = "function"

    def __init__(
        self, fn: Callable[[ModelRequest], Any | Awaitable[Any]], *, latency: float = 0.0
    ) -> None:
        self.fn = fn
        self.latency = latency
        self.requests: list[ModelRequest] = []

    async def complete(self, request: ModelRequest) -> ModelResponse:
        """Call the function and convert what it returns."""
        self.requests.append(request)
        if self.latency:
            await asyncio.sleep(self.latency)
        value = self.fn(request)
        if inspect.isawaitable(value):
            value = await value
        return to_response(value)



