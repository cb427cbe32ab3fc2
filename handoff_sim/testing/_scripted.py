"""``ScriptedModel`` and ``FunctionModel``: strict, offline fake model clients."""

from __future__ import annotations

import asyncio
import inspect
import reprlib
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from typing import Any

from handoff_sim._durations import parse_duration
from handoff_sim._errors._families import ConfigurationError
from handoff_sim.errors import (
    FunctionModelError,
    ScriptAssertionError,
    ScriptExhaustedError,
    UnconsumedStepsError,
)
from handoff_sim.messages import ModelRequest, ModelResponse
from handoff_sim.testing._never import never_answer
from handoff_sim.testing._steps import (
    ScriptStep,
    SimulatedModelError,
    check_request,
    parse_step,
    parse_steps,
)

__all__ = ["FunctionModel", "ScriptedModel"]

_ANSWERS = "a ModelResponse, a str (text), a list of tool calls, a step dict or an exception"


async def _play(
    step: ScriptStep,
    request: ModelRequest,
    agent: str,
    number: int,
    failures: list[ScriptAssertionError],
) -> ModelResponse:
    """Check the step's expectations (a failure is also kept in ``failures``), wait its
    latency, then raise its error or answer."""
    try:
        check_request(step, request, agent, number)
    except ScriptAssertionError as exc:
        failures.append(exc)
        raise
    if step.latency:
        await asyncio.sleep(step.latency)
    if step.cancelled:  # a recorded call that was cut off: it never answers
        await never_answer()
    if step.exception is not None:
        raise step.exception
    if step.error is not None:
        raise SimulatedModelError(step.error)
    assert step.response is not None
    return step.response


def _script(steps: object) -> Sequence[Any]:
    """The steps as a list; a lone str, step dict or non-iterable is refused, saying how."""
    if isinstance(steps, str | bytes):
        raise ConfigurationError(
            f"ScriptedModel takes a list of steps, got {type(steps).__name__} "
            f"{reprlib.repr(steps)} (it would be read one character per step); "
            f"write ScriptedModel([{reprlib.repr(steps)}]) for one text answer"
        )
    if isinstance(steps, Mapping):
        raise ConfigurationError(
            "ScriptedModel takes a list of steps, got one dict; "
            "write ScriptedModel([{...}]) for a script of one step"
        )
    if not isinstance(steps, Iterable):
        raise ConfigurationError(
            f"ScriptedModel takes a list of steps, got {type(steps).__name__} {reprlib.repr(steps)}"
        )
    return list(steps)


class ScriptedModel:
    """Answers with its script, one step per call; running past the end raises.

    Steps are dicts — ``{"text": ...}``, ``{"tool_calls": [...]}``,
    ``{"error": ...}`` — each with an optional ``latency`` (seconds or ``"250ms"``)
    and an optional ``expect`` on the request it answers. Every request is kept
    in :attr:`requests`, every failed step expectation in :attr:`failures` (also when
    the code calling the model caught the ``ScriptAssertionError``). Call
    :meth:`assert_complete` to prove every step was used.
    """

    model_name = "scripted"

    def __init__(self, steps: Iterable[Any], *, name: str | None = None) -> None:
        if name is not None and not isinstance(name, str):
            raise ConfigurationError(f"ScriptedModel name must be a str, got {name!r}")
        self.steps = parse_steps(_script(steps))
        self.requests: list[ModelRequest] = []
        self.failures: list[ScriptAssertionError] = []
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
        return await _play(self.steps[index], request, agent, index + 1, self.failures)

    def assert_complete(self) -> None:
        """Raise UnconsumedStepsError if any step was never used."""
        if self.remaining > 0:
            raise UnconsumedStepsError(
                f"script of {self.name or 'the model'} has {self.remaining} unused step(s) "
                f"of {len(self.steps)}: the first unused is step {len(self.requests) + 1}"
            )


class FunctionModel:
    """A fake model whose answers come from a function of the request (sync or async).

    The function returns what a script step may be: a ModelResponse, a plain string
    (text), a list of tool calls, a step dict (its ``latency`` and ``expect`` apply)
    or an exception to raise. Anything else is a :class:`FunctionModelError` naming
    the agent and the step (model calls count from 1, as in a script). Failed step
    expectations are kept in :attr:`failures`, as by ``ScriptedModel``.
    """

    model_name = "function"

    def __init__(
        self, fn: Callable[[ModelRequest], Any | Awaitable[Any]], *, latency: float | str = 0.0
    ) -> None:
        if not callable(fn):
            raise ConfigurationError(
                f"FunctionModel takes a function of the request, got {type(fn).__name__} "
                f"{reprlib.repr(fn)}; for fixed answers use ScriptedModel([...])"
            )
        try:
            self.latency = parse_duration(latency)
        except ValueError as exc:
            raise ConfigurationError(f"FunctionModel latency: {exc}") from None
        self.fn = fn
        self.requests: list[ModelRequest] = []
        self.failures: list[ScriptAssertionError] = []

    async def complete(self, request: ModelRequest) -> ModelResponse:
        """Call the function and play what it returns like a script step."""
        self.requests.append(request)
        number = len(self.requests)
        if self.latency:
            await asyncio.sleep(self.latency)
        value = self.fn(request)
        if inspect.isawaitable(value):
            value = await value
        step = _function_step(value, request.agent, number)
        return await _play(step, request, request.agent, number, self.failures)


def _function_step(value: object, agent: str, number: int) -> ScriptStep:
    where = f"agent {agent!r}, function step {number}"
    if isinstance(value, ModelResponse):
        return ScriptStep(value)
    if not isinstance(value, str | list | tuple | Mapping | BaseException | ScriptStep):
        raise FunctionModelError(
            f"{where}: the FunctionModel function returned {type(value).__name__} "
            f"{reprlib.repr(value)}; return {_ANSWERS}"
        )
    try:
        return parse_step(value, number, where=where)
    except ConfigurationError as exc:
        raise FunctionModelError(f"{exc} (returned by the FunctionModel function)") from None
