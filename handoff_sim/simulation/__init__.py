"""Virtual-time simulation: ``simulate``, ``Simulation`` and the ``VirtualTimeLoop``."""

from handoff_sim.simulation._simulation import DEFAULT_DEADLINE, DEFAULT_START, Simulation, simulate
from handoff_sim.simulation._virtual_loop import VirtualTimeLoop

__all__ = ["DEFAULT_DEADLINE", "DEFAULT_START", "Simulation", "VirtualTimeLoop", "simulate"]
