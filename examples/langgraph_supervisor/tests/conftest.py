import pytest

from handoff_sim.adapters.langgraph import SimChatModel


@pytest.fixture
def models(scripted_model):
    """Scripted chat models, one per script: ``models(script_a, script_b, ...)``."""
    return lambda *scripts: [SimChatModel(scripted_model(s)) for s in scripts]
