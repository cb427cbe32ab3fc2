"""A recording made on pydantic-ai, run as a scenario on pydantic-ai: delegations as recorded.

Hand-written recordings (``match: order``, so no fingerprints are needed) whose
delegation calls use the user's own parameter name, as a real pydantic-ai run does.
"""

import json
from typing import Any

import pytest

from tests._helpers import import_extra

import_extra("pydantic-ai", "pydantic_ai")

from handoff_sim.adapters import runtime_factory  # noqa: E402
from handoff_sim.events import RunStartEvent, ToolEndEvent  # noqa: E402
from handoff_sim.scenarios import ScenarioResult, run_scenario  # noqa: E402


def recording(*calls: str, runtime: str = "pydantic-ai") -> dict[str, Any]:
    """A desk agent that asks its clerk (through ``ask_clerk``) once per call, then answers."""
    steps: list[dict[str, Any]] = [
        {"tool_calls": [{"id": f"call_{i}", "name": "ask_clerk", "arguments": arguments}]}
        for i, arguments in enumerate(calls, start=1)
    ]
    return {
        "scenario": "hand-made",
        "recorded": {"format": 1, "runtime": runtime, "match": "order"},
        "agents": {
            "desk": {
                "system_prompt": "You are the desk.",
                "subagents": [{"agent": "clerk", "tool_name": "ask_clerk"}],
                "model": {"script": [*steps, {"text": "it shipped"}]},
            },
            "clerk": {
                "system_prompt": "You are the clerk.",
                "model": {"script": [{"text": "shipped monday"} for _ in calls]},
            },
        },
        "run": [{"input": "order 42?"}],
    }


def on_pydantic_ai(scenario: dict[str, Any]) -> ScenarioResult:
    make = runtime_factory("pydantic-ai")
    assert make is not None
    return run_scenario(scenario, runtime=make(()))


def test_recorded_delegation_takes_the_parameter_its_calls_used_and_returns_the_output() -> None:
    result = on_pydantic_ai(recording('{"question": "where is 42?"}'))
    assert result.error is None, result.error
    assert result.outputs == ["it shipped"]
    clerk_inputs = [e.input for e in result.trace.of_type(RunStartEvent) if e.agent == "clerk"]
    assert clerk_inputs == ["where is 42?"]  # the value, not the JSON around it
    (ended,) = result.trace.of_type(ToolEndEvent)
    assert (ended.status, ended.output) == ("ok", "shipped monday")  # no envelope


def test_recorded_delegation_whose_calls_disagree_on_the_parameter_takes_task() -> None:
    scenario = recording('{"question": "where is 42?"}', '{"query": "and 43?"}')
    scenario["agents"]["clerk"]["model"]["script"] = []  # no call reaches the clerk
    result = on_pydantic_ai(scenario)
    ended = result.trace.of_type(ToolEndEvent)
    # pydantic-ai's own validation answers each call, as it answers a model: task is missing
    assert [e.status for e in ended] == ["error", "error"]
    assert all('"loc":["task"]' in (e.output or "") for e in ended)
    assert "exceeded max retries" in str(result.error)  # and then gives up, as it does
    assert not [e for e in result.trace.of_type(RunStartEvent) if e.agent == "clerk"]


@pytest.mark.parametrize("key", ["ctx", "two words", "class"])
def test_recorded_delegation_key_that_cannot_name_a_parameter_takes_task(key: str) -> None:
    scenario = recording(json.dumps({key: "where is 42?"}))
    scenario["agents"]["clerk"]["model"]["script"] = []
    result = on_pydantic_ai(scenario)
    (ended, *_) = result.trace.of_type(ToolEndEvent)
    assert ended.status == "error"
    assert '"loc":["task"]' in (ended.output or "")  # built, and answered by pydantic-ai
