"""``capture()``: the framework-neutral half: environment, activation, what is in flight.

A capture installs a run environment (the one of a surrounding ``Simulation`` when
there is one, so events share its seeded ids and virtual clock) and marks itself
active in a ``ContextVar``. The framework half subclasses :class:`Capture`, installs
the framework's observation point while at least one capture is active, and turns
what it observes into :class:`~handoff_sim.adapters._recording.Recorder` calls.
Everything in flight (which run a task belongs to, which tool call it is executing,
which governed attempt is waiting for its framework run) lives in ``ContextVar``s,
so parallel tool calls and nested runs never see each other's state.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from contextlib import AbstractContextManager
from contextvars import ContextVar, Token
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, ClassVar, Self

from handoff_sim._context import (
    Frame,
    RunEnvironment,
    current_environment,
    current_frame,
    use_environment,
    use_frame,
)
from handoff_sim.adapters._errors import CaptureError
from handoff_sim.adapters._recording import Delegation, Recorder, RunRecord, Slot, recorder_for
from handoff_sim.adapters._transfer import Transfer
from handoff_sim.trace import Trace

__all__ = [
    "Adoption",
    "Capture",
    "FrameScope",
    "ModelMark",
    "SpanState",
    "ToolInFlight",
    "Transfer",
    "active_capture",
    "adopting",
    "clearing_tool",
    "current_adoption",
    "current_model_mark",
    "current_record",
    "current_tool",
    "frame_scope",
    "marking_model_call",
    "using_tool",
]


@dataclass(slots=True, eq=False)
class ToolInFlight:
    """A framework tool call being executed: its run, its slot, and its delegation if any."""

    record: RunRecord
    name: str
    slot: Slot | None = None
    delegation: Delegation | None = None
    failed: str | None = None
    arguments: str | None = None


@dataclass(slots=True, eq=False)
class Adoption:
    """A governed attempt's run, waiting for the framework run that carries it out."""

    record: RunRecord
    claimed: bool = False


@dataclass(slots=True, eq=False)
class ModelMark:
    """Set by a fake model of ours when it recorded the model call itself."""

    reported: bool = False


_ACTIVE: ContextVar[Capture | None] = ContextVar("handoff_adapter_capture", default=None)
_TOOL: ContextVar[ToolInFlight | None] = ContextVar("handoff_adapter_tool", default=None)
_ADOPTION: ContextVar[Adoption | None] = ContextVar("handoff_adapter_adoption", default=None)
_MODEL_MARK: ContextVar[ModelMark | None] = ContextVar("handoff_adapter_model", default=None)


def active_capture() -> Capture | None:
    """The capture the current task records into, if any."""
    return _ACTIVE.get()


def current_tool() -> ToolInFlight | None:
    """The framework tool call the current task executes, if a capture saw it start."""
    return _TOOL.get()


def current_adoption() -> Adoption | None:
    """The governed attempt whose framework run has not been claimed yet, if any."""
    return _ADOPTION.get()


def current_model_mark() -> ModelMark | None:
    """The mark of the framework's model call in progress, if a capture opened one."""
    return _MODEL_MARK.get()


def current_record() -> tuple[Recorder, RunRecord] | None:
    """The recorder and the framework run the current task belongs to, if recorded."""
    env, frame = current_environment(), current_frame()
    if env is None or frame is None:
        return None
    recorder = recorder_for(env)
    record = recorder.runs.get(frame.run_id)
    return None if record is None else (recorder, record)


class _Set(AbstractContextManager[None]):
    """Set a ContextVar for a ``with`` block."""

    def __init__(self, var: ContextVar[Any], value: object) -> None:
        self._var = var
        self._value = value
        self._token: Token[Any] | None = None

    def __enter__(self) -> None:
        self._token = self._var.set(self._value)

    def __exit__(self, *exc_info: object) -> None:
        assert self._token is not None
        self._var.reset(self._token)


def using_tool(tool: ToolInFlight) -> AbstractContextManager[None]:
    """Mark ``tool`` as the tool call the code in the block executes."""
    return _Set(_TOOL, tool)


def clearing_tool() -> AbstractContextManager[None]:
    """No tool call in flight for the code in the block (a sub-agent's run starts afresh)."""
    return _Set(_TOOL, None)


def adopting(adoption: Adoption) -> AbstractContextManager[None]:
    """Offer ``adoption``'s run to the framework run started in the block."""
    return _Set(_ADOPTION, adoption)


def marking_model_call(mark: ModelMark) -> AbstractContextManager[None]:
    """Let a fake model of ours say, in the block, that it recorded the call itself."""
    return _Set(_MODEL_MARK, mark)


class FrameScope:
    """A frame (and optionally a tool) set from a framework callback and unset from another.

    Observation callbacks come in start/end pairs rather than ``with`` blocks. The
    start sets the ContextVars in the task that runs the framework code; the end
    resets them when it runs in that same context, and leaves them otherwise (a
    context that ended on another task is dropped with its task).
    """

    __slots__ = ("_managers",)

    def __init__(self, *managers: AbstractContextManager[None]) -> None:
        self._managers = managers
        for manager in managers:
            manager.__enter__()

    def close(self) -> None:
        for manager in reversed(self._managers):
            # reset from another context: nothing to undo here
            with contextlib.suppress(ValueError):
                manager.__exit__(None, None, None)


def frame_scope(frame: Frame) -> FrameScope:
    """Install ``frame`` (with no tool call in flight yet) until :meth:`FrameScope.close`."""
    return FrameScope(use_frame(frame), _Set(_TOOL, None))


class _LoopClock:
    """Seconds on the running loop's clock since the first reading (virtual under simulation)."""

    def __init__(self) -> None:
        self._origin: float | None = None

    def __call__(self) -> float:
        try:
            now = asyncio.get_running_loop().time()
        except RuntimeError:
            now = time.monotonic()
        if self._origin is None:
            self._origin = now
        return now - self._origin


class Capture:
    """Record the framework runs of a ``with`` block as a handoff-sim :class:`Trace`.

    Inside a ``Simulation`` (or ``simulate_run``) the capture shares the simulation's
    environment: its seeded ids and its virtual clock. Elsewhere it makes its own,
    seeded with ``seed``, whose clock is the running event loop's.
    """

    framework: ClassVar[str] = "framework"

    def __init__(self, *, seed: int = 0) -> None:
        self.seed = seed
        self.transfers: list[Transfer] = []
        self.problems: list[str] = []
        self.spans: dict[object, SpanState] = {}
        self.opened: list[RunRecord] = []
        self._env: RunEnvironment | None = None
        self._first = 0
        self._last: int | None = None
        self._scopes: list[AbstractContextManager[None]] = []

    # -- the context manager --------------------------------------------------------------

    def __enter__(self) -> Self:
        if self._env is not None:
            raise CaptureError(f"this {type(self).__name__} is already in use; make a new one")
        env = current_environment() or RunEnvironment(seed=self.seed, clock=_LoopClock())
        self._env = env
        self._first = len(env.events)
        self._scopes = [use_environment(env), _Set(_ACTIVE, self)]
        for scope in self._scopes:
            scope.__enter__()
        self.install()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        try:
            self.uninstall()
        finally:
            for scope in reversed(self._scopes):
                scope.__exit__(None, None, None)
            self._close_open_runs()
            self._last = len(self.env.events)
        if exc_type is None and self.problems:
            raise CaptureError("; ".join(dict.fromkeys(self.problems)))

    # -- what the framework half provides ---------------------------------------------------

    def install(self) -> None:
        """Start observing the framework (called on enter)."""

    def uninstall(self) -> None:
        """Stop observing the framework (called on exit)."""

    # -- results --------------------------------------------------------------------------

    @property
    def env(self) -> RunEnvironment:
        """The run environment the capture records into."""
        if self._env is None:
            raise CaptureError("capture() records only inside its 'with' block")
        return self._env

    @property
    def recorder(self) -> Recorder:
        """The recorder of the capture's environment."""
        return recorder_for(self.env)

    @property
    def trace(self) -> Trace:
        """The events recorded so far (or, after the block, every event of the block)."""
        events = self.env.events
        return Trace(events[self._first : self._last])

    def _close_open_runs(self) -> None:
        """A run the framework never ended (its loop was stopped) still gets its end."""
        recorder = self.recorder
        for record in self.opened:
            if not record.ended:
                recorder.close_run(record, "cancelled", error="run did not end inside capture()")


@dataclass(slots=True, eq=False)
class SpanState:
    """What a capture remembers about one open framework span."""

    kind: str
    record: RunRecord | None = None
    tool: ToolInFlight | None = None
    scope: FrameScope | None = None
    adopted: bool = False
    mark: ModelMark | None = None
    extra: dict[str, Any] = field(default_factory=dict)
