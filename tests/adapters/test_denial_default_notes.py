"""A framework graph under a timeout-only policy: the run-level denial names the default."""

from __future__ import annotations

import pytest

from handoff_sim import HandoffDeniedError, HandoffPolicy
from handoff_sim.testing import ScriptedModel
from tests.adapters._extras import installed, needs

TIMEOUT_ONLY = {"timeout": 30, "max_retries": 1}
MESSAGE = "handoff denied for subagent tool leaf: handoff depth 2 exceeds max_depth 1"


def _assert_says_which_defaults(error: BaseException | None) -> None:
    assert isinstance(error, HandoffDeniedError)
    assert str(error) == MESSAGE
    assert (error.reason, error.from_defaults) == ("max_depth", ("max_depth", "on_denied"))
    notes = getattr(error, "__notes__", [])
    assert [note.split(":")[0] for note in notes] == [
        "max_depth 1 is HandoffPolicy's default (it was not set)",
        "on_denied=FAIL is HandoffPolicy's default (it was not set)",
    ]
    assert "HandoffPolicy(max_depth=2) allows this depth" in notes[0]


@pytest.mark.skipif(not installed("agents"), reason=needs("openai-agents"))
def test_openai_agents_run_level_denial_carries_the_default_notes() -> None:
    from agents import Agent, Runner
    from agents.exceptions import AgentsException

    from handoff_sim.adapters.openai_agents import SimModel, governed, simulate_run

    def agent(name: str, *steps: object, **kwargs: object) -> Agent[None]:
        return Agent(name=name, model=SimModel(ScriptedModel(list(steps))), **kwargs)  # type: ignore[arg-type]

    def call(call_id: str, name: str) -> dict[str, object]:
        return {"tool_calls": [{"id": call_id, "name": name, "arguments": {"input": "x"}}]}

    policy = HandoffPolicy(**TIMEOUT_ONLY)
    leaf = agent("leaf", {"text": "unreachable"})
    middle = agent(
        "middle", call("m1", "leaf"), tools=[governed(leaf, tool_name="leaf", policy=policy)]
    )
    top = agent(
        "top", call("t1", "middle"), tools=[governed(middle, tool_name="middle", policy=policy)]
    )
    run = simulate_run(Runner.run(top, "go"), raise_errors=False)
    assert isinstance(run.error, AgentsException)  # HandoffDeniedInRunError
    _assert_says_which_defaults(run.error)


@pytest.mark.skipif(not installed("pydantic_ai"), reason=needs("pydantic-ai"))
def test_pydantic_ai_run_level_denial_carries_the_default_notes() -> None:
    from pydantic_ai import Agent

    from handoff_sim.adapters.pydantic_ai import SimModel, governed, simulate_run

    def agent(name: str, *steps: object, **kwargs: object) -> Agent[None, str]:
        return Agent(SimModel(ScriptedModel(list(steps))), name=name, **kwargs)  # type: ignore[call-overload]

    def call(call_id: str, name: str) -> dict[str, object]:
        return {"tool_calls": [{"id": call_id, "name": name, "arguments": {"task": "x"}}]}

    policy = HandoffPolicy(**TIMEOUT_ONLY)
    leaf = agent("leaf", {"text": "unreachable"})
    middle = agent("middle", call("m1", "leaf"), tools=[governed(leaf, name="leaf", policy=policy)])
    top = agent("top", call("t1", "middle"), tools=[governed(middle, name="middle", policy=policy)])
    run = simulate_run(lambda: top.run("go"), raise_errors=False)
    _assert_says_which_defaults(run.error)
