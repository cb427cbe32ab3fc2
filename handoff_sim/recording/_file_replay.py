"""The one replay a freshly written recording gets: for the ``elapsed`` and the error it expects.

Both recorders (ours and the frameworks') replay the file they wrote once, in virtual
time, and may be inside a running event loop when they do (a ``record`` block in an
``async def`` test).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from handoff_sim import Trace
from handoff_sim._errors._families import ConfigurationError
from handoff_sim.errors import VirtualDeadlineError
from handoff_sim.recording._expect import elapsed_of, top_level_runs
from handoff_sim.recording._graph import AgentGraph
from handoff_sim.recording._recorder import Recorder
from handoff_sim.recording._redact import Redaction

__all__ = ["deadline_reached", "off_the_running_loop", "write_and_replay"]

T = TypeVar("T")


def deadline_reached(error: BaseException | None, elapsed_ms: float, trace: Trace) -> str | None:
    """``VirtualDeadlineError`` when the file's replay passed the simulation's deadline at the
    virtual time the recorded run ended unfinished: the recorded run ended at that deadline
    too (its trace shows the run cut off, not why), so the file expects that error."""
    if not isinstance(error, VirtualDeadlineError):
        return None
    runs = top_level_runs(trace)
    last = runs[-1][1] if runs else None
    if last is None or last.status == "completed" or last.error:
        return None
    if round(elapsed_of(trace), 3) != round(elapsed_ms / 1000, 3):
        return None
    return type(error).__name__


def off_the_running_loop(work: Callable[[], T]) -> T:
    """``work()``, in a thread of its own when this thread runs an event loop (a ``record``
    block inside ``async def``): a simulation cannot start inside a running loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return work()
    done: list[T] = []
    failed: list[BaseException] = []

    def run() -> None:
        try:
            done.append(work())
        except BaseException as exc:  # handed back to the caller's thread below
            failed.append(exc)

    worker = threading.Thread(target=run, name="handoff-sim-replay")
    worker.start()
    worker.join()
    if failed:
        raise failed[0]
    return done[0]


def write_and_replay(
    recorder: Recorder,
    trace: Trace,
    path: str | Path,
    graph: AgentGraph,
    redact: Redaction | None,
    name: str,
) -> None:
    """Write the recording, replay it once on its runtime, and write it again expecting the
    virtual time that replay took (a real run's elapsed holds time between model calls a
    replay does not spend, and latencies are kept to the millisecond)."""
    from handoff_sim.adapters import runtime_factory
    from handoff_sim.recording._writer import write_recording
    from handoff_sim.scenarios import run_scenario

    inputs = [start.input for start, _ in top_level_runs(trace)]
    if not inputs:
        raise ConfigurationError(
            "record: no run of the agent was made inside the block: nothing to write"
        )
    target = recorder.write(path, trace, scenario=name, inputs=inputs, agents=graph, redact=redact)
    make = runtime_factory(recorder.runtime)
    runtime = None if make is None else make(())
    result = off_the_running_loop(lambda: run_scenario(target, runtime=runtime))
    error = deadline_reached(result.error, result.elapsed_ms, trace)
    if result.error is not None and error is None:
        return  # the file is written as recorded; its replay says what went wrong
    write_recording(
        recorder,
        target,
        trace,
        scenario=name,
        inputs=inputs,
        agents=graph,
        redact=redact,
        elapsed=result.elapsed_ms / 1000,
        error=error,
    )
