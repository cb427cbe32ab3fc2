"""``simulate_run``: a framework run on the virtual-time loop, captured as a trace."""

from __future__ import annotations

import asyncio
import inspect
import itertools
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import AbstractContextManager, ExitStack, contextmanager, nullcontext
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from handoff_sim.adapters._capture import Capture, Transfer
from handoff_sim.simulation import Simulation
from handoff_sim.trace import Trace

__all__ = [
    "InlineExecutor",
    "RunInput",
    "SimulatedRun",
    "note_failure",
    "refusing_sync_calls",
    "simulate_with",
]

T = TypeVar("T")

RunInput = Awaitable[T] | Callable[[], Awaitable[T]]

_FAILURES: ContextVar[list[BaseException] | None] = ContextVar(
    "handoff_adapter_failures", default=None
)


def note_failure(error: BaseException) -> None:
    """Keep an error of ours the framework may swallow, so the simulated run ends in it.

    An agent used as a tool turns its run's errors into a tool result the model reads
    (openai-agents' ``as_tool`` does); a replay that no longer matches its recording
    must fail the run all the same, naming the agent and step where it went wrong.
    """
    found = _FAILURES.get()
    if found is not None:
        found.append(error)


# What asyncio and the frameworks say when a sync entry point meets a running loop.
_LOOP_RUNNING = ("event loop is already running", "when an event loop is already running")


def refusing_sync_calls(run: RunInput[T], refusal: Callable[[], Exception]) -> RunInput[T]:
    """``run``, where a framework's sync entry point called inside raises ``refusal()``.

    A sync entry point (``run_sync``) drives an event loop of its own; on the virtual-time
    loop, which is already running, it can only fail, and the framework's or asyncio's
    words do not say which async call to pass instead: ``refusal()`` does.
    """
    if inspect.isawaitable(run) or not callable(run):
        return run
    function = run

    def start() -> Awaitable[T]:
        try:
            return function()
        except RuntimeError as exc:
            if not any(words in str(exc) for words in _LOOP_RUNNING):
                raise
            raise refusal() from exc

    return start


"""A coroutine, or a function of no arguments that returns one."""


@dataclass(frozen=True, slots=True)
class SimulatedRun(Generic[T]):
    """A framework run in virtual time: its result, its trace, how long it took (virtually).

    ``result`` is what the run returned (the framework's result object); ``error`` what
    it raised when ``simulate_run(..., raise_errors=False)`` kept the error instead.
    """

    result: T | None
    trace: Trace
    elapsed_ms: float
    transfers: tuple[Transfer, ...] = ()
    error: BaseException | None = None

    @property
    def final_output(self) -> Any:
        """The run's final output: the SDK's ``result.final_output``, pydantic-ai's ``.output``.

        For LangGraph (a state dict with ``messages``) it is the text of the last AI
        message. ``None`` when the run kept an error instead of a result. Both spellings
        are offered (:attr:`output` is the same value) so each framework's word works.
        """
        result = self.result
        if result is None:
            return None
        if isinstance(result, Mapping) and "messages" in result:
            return _last_ai_text(result["messages"])
        if hasattr(result, "final_output"):
            return result.final_output
        return getattr(result, "output", None)

    @property
    def output(self) -> Any:
        """The same as :attr:`final_output` (pydantic-ai's name for it)."""
        return self.final_output


def _last_ai_text(messages: Any) -> str | None:
    """The text of the last AI message in a LangGraph state's ``messages`` (``None``: none).

    Read by the message's ``type`` and ``text`` (langchain-core's names), so this shared
    module imports no framework; ``text`` joins the text blocks of a list content.
    """
    if not isinstance(messages, Sequence) or isinstance(messages, str):
        return None
    for message in reversed(messages):
        if getattr(message, "type", None) == "ai":
            return str(message.text)
    return None


class InlineExecutor(ThreadPoolExecutor):
    """Runs submitted work at once, on the loop's own thread: no thread escapes virtual time.

    A sync tool then runs in order and deterministically; one that sleeps for real
    still sleeps for real (and holds the loop meanwhile).
    """

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        future: Future[Any] = Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except BaseException as exc:  # handed to the awaiting task, like a thread would
            future.set_exception(exc)
        return future


@contextmanager
def _inline_default_executor() -> Iterator[None]:
    loop = asyncio.get_running_loop()
    executor = InlineExecutor()
    loop.set_default_executor(executor)
    yield


class _OrderedTask(asyncio.Task):  # type: ignore[type-arg]  # the C class is generic in stubs only
    """A task whose hash is its creation number on the simulation's loop.

    Frameworks keep their in-flight tool tasks in sets and cancel them by iterating
    the set (openai-agents does, when one call fails a turn or the run is cancelled). A
    task's default hash is its memory address, so that order changed from run to run;
    with the creation number it is the same on every run of a seed.
    """

    __slots__ = ("_number",)
    _number: int

    def __hash__(self) -> int:
        return self._number


_new_task = _OrderedTask.__new__
_init_task = asyncio.Task.__init__


@contextmanager
def _ordered_tasks() -> Iterator[None]:
    """Tasks created on the running loop hash by creation order (see :class:`_OrderedTask`).

    The number is in place before the task's ``__init__``, which files the task in
    asyncio's registry of live tasks (a set, by hash): numbered later, every task of a
    run was filed under one hash, and each new one compared with all the live ones.
    Made and initialised apart, the task needs no ``__init__`` of ours (a Python call).
    """
    loop = asyncio.get_running_loop()
    previous = loop.get_task_factory()
    count = itertools.count(1).__next__

    def factory(loop: asyncio.AbstractEventLoop, coro: Any, **kwargs: Any) -> asyncio.Future[Any]:
        task = _new_task(_OrderedTask)
        task._number = count()
        _init_task(task, coro, loop=loop, **kwargs)
        return task

    loop.set_task_factory(factory)
    try:
        yield
    finally:
        loop.set_task_factory(previous)


def simulate_with(
    make_capture: Callable[[], Capture],
    run: RunInput[T],
    *,
    seed: int,
    wall_clock: bool,
    deadline: float | None,
    raise_errors: bool,
    around: Callable[[], AbstractContextManager[None]] | None = None,
    observers: Sequence[object] = (),
) -> SimulatedRun[T]:
    """Run ``run`` inside a fresh ``Simulation`` with a capture active (the shared entry point).

    ``observers`` are the simulation's event observers (``handoff_sim_event`` hooks).
    """
    if not (inspect.isawaitable(run) or callable(run)):
        raise TypeError(
            "simulate_run() takes a coroutine or a function returning one, "
            f"got {type(run).__name__}"
        )
    holder: dict[str, Any] = {}

    async def main() -> T:
        with ExitStack() as stack:
            stack.enter_context(_inline_default_executor())
            stack.enter_context(_ordered_tasks())
            stack.enter_context(around() if around is not None else nullcontext())
            capture = stack.enter_context(make_capture())
            holder["capture"] = capture
            awaitable = run() if callable(run) else run
            return await awaitable

    failures: list[BaseException] = []
    token = _FAILURES.set(failures)
    try:
        with Simulation(
            seed=seed, wall_clock=wall_clock, deadline=deadline, observers=tuple(observers)
        ) as sim:
            started = sim.now
            try:
                result: T | None = sim.run_coroutine(main())
                error: BaseException | None = None
            except Exception as exc:
                if raise_errors or "capture" not in holder:
                    _raise_first(failures, exc)
                result, error = None, exc
            if failures:  # the first one is where the run went wrong; the rest followed it
                if raise_errors:
                    _raise_first(failures, error)
                result, error = None, failures[0]
            elapsed_ms = round((sim.now - started) * 1000, 3)
    finally:
        _FAILURES.reset(token)
    capture: Capture = holder["capture"]
    return SimulatedRun(
        result=result,
        trace=capture.trace,
        elapsed_ms=elapsed_ms,
        transfers=tuple(capture.transfers),
        error=error,
    )


def _raise_first(failures: list[BaseException], error: BaseException | None) -> None:
    """Raise the first noted failure (from the run's own error), else the run's error."""
    if failures and failures[0] is not error:
        raise failures[0] from error
    if error is not None:
        raise error
