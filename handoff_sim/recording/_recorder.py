"""The recorder: every model call (and tool call) of a real run, per agent, in start order.

``Recorder.model_call`` is the one seam every recording wrapper calls (handoff-sim's
own :class:`RecordingModel`, and the framework recorders in ``handoff_sim.adapters``)
with the neutral request and response and the running loop's clock readings, so a
recording made on any runtime is written the same way.
"""

from __future__ import annotations

import asyncio
import inspect
import itertools
import json
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import msgspec

from handoff_sim._models import ModelClient
from handoff_sim.messages import ModelRequest, ModelResponse
from handoff_sim.simulation import VirtualTimeLoop

if TYPE_CHECKING:
    from handoff_sim.recording._graph import AgentGraph
    from handoff_sim.recording._redact import Redaction
    from handoff_sim.trace import Trace

__all__ = ["ModelCall", "Recorder", "RecordingModel", "ToolCallRecord", "ToolsMode"]

ToolsMode = Literal["live", "recorded"]
"""Whether plain tools ran live (the file's fakes come from the trace) or were recorded."""


class ModelCall(msgspec.Struct, frozen=True):
    """One recorded model call: what was asked, what came back (or went wrong), and when.

    ``start``/``end`` are readings of the running loop's clock; ``first_chunk`` is the
    time from ``start`` to the first streamed chunk. ``cancelled``: the call was cut off
    (an attempt timed out) before it answered. (A msgspec struct: one is built per call,
    on the path of every recorded model call.)
    """

    agent: str
    model: str
    request: ModelRequest
    response: ModelResponse | None
    error: BaseException | None
    start: float
    end: float
    first_chunk: float | None
    order: int

    @property
    def cancelled(self) -> bool:
        """The call was cancelled before it answered."""
        return isinstance(self.error, asyncio.CancelledError)


@dataclass(frozen=True, slots=True)
class ToolCallRecord:
    """One recorded plain-tool call: its raw arguments, its result or error, and when."""

    agent: str
    name: str
    arguments: str
    result: str | None
    error: BaseException | None
    start: float
    end: float
    order: int


class Recorder:
    """Collects the model calls and tool calls of one run (or several), safe across
    threads and tasks: calls are kept per agent in the order they started."""

    def __init__(self, *, runtime: str = "handoff-sim", tools: ToolsMode = "live") -> None:
        self.runtime = runtime
        self.tools: ToolsMode = tools
        self._lock = threading.Lock()
        self._tickets = itertools.count()
        self._models: list[ModelCall] = []
        self._tools: list[ToolCallRecord] = []
        self.versions: dict[str, str] = {}
        self.real_time = False
        """Whether a call was made on a real event loop (not a simulation's virtual one)."""

    def ticket(self) -> int:
        """A number that orders a call by when it started; take it as the call starts."""
        return next(self._tickets)  # a C iterator: one step is atomic, no lock needed

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
    ) -> None:
        """Keep one model call; ``order`` (a :meth:`ticket`) is its place among calls that
        started at the same instant (default: when it is recorded)."""
        ticket = next(self._tickets) if order is None else order
        if not self.real_time and not _in_virtual_time():
            self.real_time = True
        self._models.append(  # list.append is atomic: threads and tasks may record at once
            ModelCall(agent, model, request, response, error, start, end, first_chunk, ticket)
        )

    def tool_call(
        self,
        agent: str,
        name: str,
        arguments: str,
        result: str | None,
        error: BaseException | None,
        start: float,
        end: float,
        *,
        order: int | None = None,
    ) -> None:
        """Keep one plain-tool call (``tools="recorded"``)."""
        ticket = self.ticket() if order is None else order
        record = ToolCallRecord(agent, name, arguments, result, error, start, end, ticket)
        with self._lock:
            self._tools.append(record)

    @property
    def model_calls(self) -> list[ModelCall]:
        """Every model call, in start order."""
        with self._lock:
            calls = list(self._models)
        return sorted(calls, key=lambda c: (c.start, c.order))

    @property
    def tool_calls(self) -> list[ToolCallRecord]:
        """Every recorded tool call, in start order."""
        with self._lock:
            calls = list(self._tools)
        return sorted(calls, key=lambda c: (c.start, c.order))

    def lanes(self) -> dict[str, list[ModelCall]]:
        """The model calls of each agent, in start order (agents in first-call order)."""
        out: dict[str, list[ModelCall]] = {}
        for call in self.model_calls:
            out.setdefault(call.agent, []).append(call)
        return out

    def write(
        self,
        path: str | Path,
        trace: Trace,
        *,
        scenario: str,
        inputs: Sequence[str],
        agents: AgentGraph | None = None,
        redact: Redaction | None = None,
        description: str = "recorded from a real run",
        extra_versions: Mapping[str, str] | None = None,
        source: str | Path | None = None,
    ) -> Path:
        """Write the recording as a scenario file at ``path`` (atomically); see ``_writer``."""
        from handoff_sim.recording._writer import write_recording

        return write_recording(
            self,
            path,
            trace,
            scenario=scenario,
            inputs=inputs,
            agents=agents,
            redact=redact,
            description=description,
            extra_versions=extra_versions,
            source=source,
        )


class RecordingModel:
    """A handoff-sim :class:`ModelClient` that records every call its ``real`` model answers.

    Each call is timed with the running loop's clock (virtual under a simulation, real
    otherwise); an error is recorded and raised again, a cancellation is recorded as a
    cancelled call with the time it ran.
    """

    def __init__(
        self,
        real: ModelClient,
        recorder: Recorder,
        *,
        agent: str | None = None,
        on_call: Callable[[], object] | None = None,
    ) -> None:
        self.real = real
        self.recorder = recorder
        self.agent = agent
        self.on_call = on_call
        """Called as each call starts (``record`` notes the run it belongs to)."""

    @property
    def model_name(self) -> str:
        """The real model's name, so requests name it as before."""
        return str(getattr(self.real, "model_name", None) or type(self.real).__name__)

    def __getattr__(self, name: str) -> Any:
        # what a test reads off the real model (ScriptedModel.requests...) stays readable
        real = self.__dict__.get("real")
        if real is None:
            raise AttributeError(name)
        return getattr(real, name)

    async def complete(self, request: ModelRequest) -> ModelResponse:
        """Ask the real model, and record the call however it ends."""
        if self.on_call is not None:
            self.on_call()
        loop = asyncio.get_running_loop()
        recorder = self.recorder
        ticket = next(recorder._tickets)
        start = loop.time()
        try:
            response = await self.real.complete(request)
        except BaseException as exc:
            recorder.model_call(
                self.agent or request.agent,
                request,
                None,
                exc,
                start,
                loop.time(),
                None,
                request.model,
                order=ticket,
            )
            raise
        if not recorder.real_time and type(loop) is not VirtualTimeLoop:
            recorder.real_time = True
        recorder._models.append(
            ModelCall(
                self.agent or request.agent,
                request.model,
                request,
                response,
                None,
                start,
                loop.time(),
                None,
                ticket,
            )
        )
        return response


def _in_virtual_time() -> bool:
    try:
        return isinstance(asyncio.get_running_loop(), VirtualTimeLoop)
    except RuntimeError:
        return False


def tool_fn_wrapper(recorder: Recorder, agent: str, name: str, fn: Any) -> Any:
    """``fn`` (a tool's function) recording each call: arguments, result or error, times."""

    async def recorded(**arguments: Any) -> Any:
        loop = asyncio.get_running_loop()
        ticket = recorder.ticket()
        start = loop.time()
        raw = json.dumps(arguments, separators=(",", ":"), default=str)
        try:
            result = fn(**arguments)
            if inspect.isawaitable(result):
                result = await result
        except BaseException as exc:
            recorder.tool_call(agent, name, raw, None, exc, start, loop.time(), order=ticket)
            raise
        text = result if isinstance(result, str) else json.dumps(result, default=str)
        recorder.tool_call(agent, name, raw, text, None, start, loop.time(), order=ticket)
        return result

    return recorded
