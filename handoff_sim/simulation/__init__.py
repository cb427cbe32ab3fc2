"""Virtual-time simulation: ``simulate``, ``Simulation`` and the ``VirtualTimeLoop``.

:func:`parse_duration` reads a duration as every time field does (a policy's
timeout, a script step's latency): seconds, or a string like ``"250ms"``.
"""

from handoff_sim.simulation._simulation import Simulation
from handoff_sim.simulation._virtual_loop import VirtualTimeLoop

__all__ = [
    "Simulation",
    "VirtualTimeLoop",
]
