import pytest
from triage import build_triage

from handoff_sim.adapters.openai_agents import SimModel


@pytest.fixture
def triage(scripted_model):
    """The triage agent on scripted models: ``triage(triage, research, writer)`` steps."""
    return lambda *scripts: build_triage(*(SimModel(scripted_model(s)) for s in scripts))
