"""Test-only faults: a recorder that loses or alters events, to prove the fuzzer notices.

The runtime knows nothing of faults. A faulty run is an ordinary run observed by a
:class:`FaultyRecorder`, which keeps its own copy of the events as the fault lets
them through; the fuzzer checks that copy, as it would a trace from a broken runtime.
"""

from __future__ import annotations

from collections.abc import Callable

from handoff_sim._hooks import hookimpl
from handoff_sim.events import Event
from handoff_sim.trace import Trace

__all__ = ["FAULTS", "DropEvents", "Fault", "FaultyRecorder"]

Fault = Callable[[Event], Event | None]
"""Sees each event as it is emitted: returns the event to record (it, or an altered
copy), or None to lose it."""


class DropEvents:
    """A fault that loses the first ``count`` events of type ``event_type``."""

    def __init__(self, event_type: str, count: int = 1) -> None:
        self.event_type = event_type
        self.left = count

    def __call__(self, event: Event) -> Event | None:
        if event.type != self.event_type or self.left <= 0:
            return event
        self.left -= 1
        return None


class FaultyRecorder:
    """An observer that records a run's events as ``fault`` passes, drops or alters them.

    Give it to ``Simulation(observers=[...])`` and check :attr:`trace` instead of the
    simulation's own (which stays complete).
    """

    def __init__(self, fault: Fault) -> None:
        self.fault = fault
        self.events: list[Event] = []

    @hookimpl
    def handoff_sim_event(self, event: Event) -> None:
        """Record what the fault makes of ``event``, if anything."""
        kept = self.fault(event)
        if kept is not None:
            self.events.append(kept)

    @property
    def trace(self) -> Trace:
        """The events recorded so far, as the fault left them."""
        return Trace(self.events)


FAULTS: dict[str, Callable[[], Fault]] = {
    "drop-handoff-end": lambda: DropEvents("handoff_end"),
    "drop-run-end": lambda: DropEvents("run_end"),
}
"""Named test-only faults, to prove the fuzzer catches a broken runtime."""
