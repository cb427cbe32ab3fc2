"""Offline fake model clients for tests: strict, deterministic, no network."""

from handoff_sim.testing._steps import SimulatedModelError
from handoff_sim.testing.scripted import FunctionModel, ScriptedModel

__all__ = ["FunctionModel", "ScriptedModel", "SimulatedModelError"]
