"""Phase 3: turn a loaded scenario into agents, tools and fake models ready to run."""

from handoff_sim.scenarios._build._agents import build_entry_agent, build_policy
from handoff_sim.scenarios._build._answers import RecordedAnswers
from handoff_sim.scenarios._build._context import BuildContext
from handoff_sim.scenarios._build._model_kinds import custom_models, model_kind_problems
from handoff_sim.scenarios._build._models import (
    ModelFactory,
    build_models,
    build_type_models,
    unused_recorded_steps,
)
from handoff_sim.scenarios._build._tools import CatchAllExecutor, ToolRuns, fake_tool

__all__ = [
    "BuildContext",
    "CatchAllExecutor",
    "ModelFactory",
    "RecordedAnswers",
    "ToolRuns",
    "build_entry_agent",
    "build_models",
    "build_policy",
    "build_type_models",
    "custom_models",
    "fake_tool",
    "model_kind_problems",
    "unused_recorded_steps",
]
