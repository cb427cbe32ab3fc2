"""Virtual-time simulation: ``simulate``, ``Simulation`` and the ``VirtualTimeLoop``."""

from handoff_sim.simulation._loop import VirtualTimeLoop
from handoff_sim.simulation._simulation import DEFAULT_DEADLINE, DEFAULT_START, Simulation, simulate

__all__ = ["DEFAULT_DEADLINE", "DEFAULT_START", "Simulation", "VirtualTimeLoop", "simulate"]
