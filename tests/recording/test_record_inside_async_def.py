"""``record(...)`` inside ``async def``: the file is written, and replayed once for its
``elapsed`` off the running loop (a simulation cannot start inside one), on every runtime.

The tests are async test functions themselves (anyio's pytest plugin, asyncio backend);
each framework agent's "real" model is one of handoff-sim's fakes behind the adapter's
``SimModel``, answering at once, so no test sleeps.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from handoff_sim.recording import record, replay
from handoff_sim.scenarios import load_path
from handoff_sim.testing import ScriptedModel
from tests._helpers import needs_extra

# anyio's pytest plugin runs these async tests; it comes with the frameworks' HTTP stack,
# and without the frameworks there is nothing here to record
pytest.importorskip("anyio", reason="needs the pydantic-ai or openai-agents extra (anyio)")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _replayed_for_its_elapsed(path: Path, runtime: str) -> None:
    """The file says its runtime and expects an ``elapsed``: it was replayed once on that
    runtime (a real-time recording that was not replayed writes no ``elapsed``)."""
    (loaded,) = load_path(path)
    recorded = loaded.spec.recorded
    assert recorded is not None
    assert recorded.runtime == runtime
    assert loaded.spec.expect.elapsed is not None
    assert not any("elapsed is not written" in note for note in recorded.notes)


@needs_extra("pydantic-ai", "pydantic_ai")
@pytest.mark.anyio
async def test_a_pydantic_ai_agent_recorded_in_an_async_test_writes_a_file_that_replays(
    tmp_path: Path,
) -> None:
    from pydantic_ai import Agent

    from handoff_sim.adapters.pydantic_ai import SimModel

    def clerk() -> Agent[None, str]:
        return Agent(SimModel(ScriptedModel(["refund approved"])), name="clerk")

    path = tmp_path / "clerk.yaml"
    recorded = clerk()
    with record(recorded, path):
        result = await recorded.run("refund order 42")
    assert result.output == "refund approved"
    _replayed_for_its_elapsed(path, "pydantic-ai")

    again = clerk()  # the user's own agent again: only its model is replaced
    with replay(again, path):
        replayed = await again.run("refund order 42")
    assert replayed.output == "refund approved"


@needs_extra("openai-agents", "agents")
@pytest.mark.anyio
async def test_an_openai_agents_agent_recorded_in_an_async_test_writes_a_file_that_replays(
    tmp_path: Path,
) -> None:
    from agents import Agent, Runner

    from handoff_sim.adapters.openai_agents import SimModel

    def helper() -> Agent[Any]:
        model = SimModel(ScriptedModel(["an answer"]))
        return Agent(name="helper", instructions="You help.", model=model)

    path = tmp_path / "helper.yaml"
    recorded = helper()
    with record(recorded, path):
        result = await Runner.run(recorded, "a question")
    assert result.final_output == "an answer"
    _replayed_for_its_elapsed(path, "openai-agents")

    again = helper()
    with replay(again, path):
        replayed = await Runner.run(again, "a question")
    assert replayed.final_output == "an answer"
