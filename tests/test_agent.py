"""R1 the model client seam and R4 the agent's ReAct loop and entry points."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from handoff_sim import (
    Agent,
    ConfigurationError,
    HandoffPolicy,
    MaxStepsExceededError,
    ModelClient,
    SubAgent,
    Tool,
    simulate,
)
from handoff_sim._errors._configuration import InvalidNameError
from handoff_sim.errors import ModelResponseError, RunError
from handoff_sim.messages import ModelRequest, ModelResponse, ToolCall
from handoff_sim.simulation import Simulation
from handoff_sim.testing import ScriptedModel, SimulatedModelError
from tests._helpers import call, delegate, leaf, run_raising, tool_results, turn


class _EchoClient:
    """A hand-written model client: proves the Protocol is the only seam (R1)."""

    def __init__(self) -> None:
        self.requests: list[ModelRequest] = []

    async def complete(self, request: ModelRequest) -> ModelResponse:
        self.requests.append(request)
        if len(self.requests) == 1:
            return ModelResponse(tool_calls=(ToolCall("t1", "echo", '{"text": "hi"}'),))
        return ModelResponse(text=f"saw {request.messages[-1].content}")


def _echo_tool() -> Tool:
    return Tool(
        "echo",
        lambda text: text.upper(),
        description="Shout it",
        parameters={"type": "object", "properties": {"text": {"type": "string"}}},
    )


def test_r1_any_object_with_async_complete_is_a_model_client() -> None:
    client = _EchoClient()
    assert isinstance(client, ModelClient)
    agent = Agent(name="echoer", model=client, tools=[_echo_tool()])
    assert simulate(agent, "go").output == "saw HI"


def test_r1_request_carries_agent_model_messages_tools_and_parallel_flag() -> None:
    client = _EchoClient()
    agent = Agent(
        name="echoer",
        model=client,
        tools=[_echo_tool()],
        parallel_tool_calls=True,
        model_name="gpt-test",
        system_prompt="Be loud.",
    )
    simulate(agent, "hello")
    first = client.requests[0]
    assert (first.agent, first.model, first.parallel_tool_calls) == ("echoer", "gpt-test", True)
    assert [(m.role, m.content) for m in first.messages] == [
        ("system", "Be loud."),
        ("user", "hello"),
    ]
    [spec] = first.tools
    assert (spec.name, spec.description) == ("echo", "Shout it")
    assert spec.parameters["properties"] == {"text": {"type": "string"}}


def test_r1_tool_call_arguments_are_the_raw_string() -> None:
    agent = Agent(
        name="a",
        model=ScriptedModel([turn(call("echo", '{"text":  "x" }')), {"text": "ok"}]),
        tools=[_echo_tool()],
    )
    result = simulate(agent, "go")
    [assistant] = [m for m in result.messages if m.tool_calls]
    assert assistant.tool_calls[0].arguments == '{"text":  "x" }'


def test_r4_agent_defaults() -> None:
    agent = Agent(name="a", model=ScriptedModel([]))
    assert (agent.parallel_tool_calls, agent.max_steps, agent.system_prompt) == (False, 20, None)
    assert agent.handoff_policy == HandoffPolicy()


def test_r4_a_text_answer_without_tool_calls_ends_the_run() -> None:
    model = ScriptedModel([{"text": "answer"}, {"text": "never asked"}])
    result = simulate(Agent(name="a", model=model), "q")
    assert (result.output, result.steps, model.remaining) == ("answer", 1, 1)


def test_r4_tool_results_go_back_to_the_model_until_it_answers() -> None:
    model = ScriptedModel(
        [
            turn(call("echo", {"text": "one"})),
            {"text": "thinking", "tool_calls": [call("echo", {"text": "two"})]},
            {"text": "final"},
        ]
    )
    result = simulate(Agent(name="a", model=model, tools=[_echo_tool()]), "q")
    assert (result.output, result.steps) == ("final", 3)
    assert [m.content for m in tool_results(result.messages)] == ["ONE", "TWO"]
    assert [r.messages[-1].content for r in model.requests[1:]] == ["ONE", "TWO"]


def test_r4_run_result_has_every_field() -> None:
    result = simulate(Agent(name="a", model=ScriptedModel([{"text": "hi", "latency": 2}])), "q")
    assert result.output == "hi"
    assert result.steps == 1
    assert result.session_id.startswith("session-")
    assert [(m.role, m.content) for m in result.messages] == [("user", "q"), ("assistant", "hi")]
    assert [e.type for e in result.trace] == [
        "run_start",
        "model_request",
        "model_response",
        "run_end",
    ]
    assert result.elapsed_ms == 2000


def test_r4_exceeding_max_steps_raises() -> None:
    model = ScriptedModel([turn(call("echo", {"text": "again"}))] * 5)
    agent = Agent(name="looper", model=model, tools=[_echo_tool()], max_steps=3)
    error, trace = run_raising(agent, MaxStepsExceededError)
    assert (error.agent, error.max_steps) == ("looper", 3)
    assert "looper" in str(error)
    assert "max_steps=3" in str(error)
    assert len(model.requests) == 3
    assert trace[-1].type == "run_end"


def test_r4_default_max_steps_is_twenty() -> None:
    model = ScriptedModel([turn(call("echo", {"text": "x"}))] * 25)
    error, _ = run_raising(
        Agent(name="a", model=model, tools=[_echo_tool()]), MaxStepsExceededError
    )
    assert error.max_steps == 20
    assert len(model.requests) == 20


def test_r4_a_child_exceeding_max_steps_is_a_failed_handoff_not_a_crash() -> None:
    child = Agent(
        name="child",
        model=ScriptedModel([turn(call("echo", {"text": "x"}))] * 3),
        tools=[_echo_tool()],
        max_steps=2,
    )
    parent = Agent(
        name="parent",
        model=ScriptedModel([turn(delegate("subagent_child")), {"text": "recovered"}]),
        subagents=[SubAgent("child", agent=child)],
    )
    result = simulate(parent, "go")
    assert result.output == "recovered"
    [message] = tool_results(result.messages)
    assert message.is_error
    assert "MaxStepsExceededError" in message.content


def test_r4_a_failing_top_level_model_raises_out_of_the_run() -> None:
    agent = Agent(name="a", model=ScriptedModel([{"error": "provider down"}]))
    error, trace = run_raising(agent, SimulatedModelError)
    assert str(error) == "provider down"
    run_end = trace[-1].to_dict()
    assert (run_end["type"], run_end["status"]) == ("run_end", "failed")


def test_r4_a_model_returning_the_wrong_type_raises_a_typed_error_naming_the_agent() -> None:
    class Wrong:
        async def complete(self, request: ModelRequest) -> Any:
            return "just a string"

    with pytest.raises(
        ModelResponseError, match=r"agent 'odd', model call 1: .*complete\(\) returned str"
    ):
        simulate(Agent(name="odd", model=Wrong()), "go")


@pytest.mark.parametrize("name", ["", "   "])
def test_r4_blank_agent_name_is_a_construction_error(name: str) -> None:
    with pytest.raises(InvalidNameError, match="agent name is required"):
        Agent(name=name, model=ScriptedModel([]))


@pytest.mark.parametrize("max_steps", [0, -3])
def test_r4_max_steps_below_one_is_a_construction_error_naming_the_value(max_steps: int) -> None:
    with pytest.raises(ConfigurationError, match=f"max_steps must be >= 1, got {max_steps}"):
        Agent(name="a", model=ScriptedModel([]), max_steps=max_steps)


def test_r4_handoff_policy_must_be_a_policy() -> None:
    with pytest.raises(ConfigurationError, match="handoff_policy must be a HandoffPolicy"):
        Agent(name="a", model=ScriptedModel([]), handoff_policy={"max_depth": 2})  # type: ignore[arg-type]


def test_r4_sync_run_and_async_arun_give_the_same_answer() -> None:
    def build() -> Agent:
        return Agent(
            name="a",
            model=ScriptedModel([turn(call("echo", {"text": "x"})), {"text": "ok"}]),
            tools=[_echo_tool()],
        )

    sync = build().run("go")
    via_async = asyncio.run(build().arun("go"))
    assert (sync.output, sync.steps) == (via_async.output, via_async.steps) == ("ok", 2)


def test_r4_arun_inside_a_simulation_uses_virtual_time() -> None:
    agent = Agent(name="a", model=ScriptedModel([{"text": "later", "latency": 600}]))
    with Simulation() as sim:
        result = sim.run_coroutine(agent.arun("go"))
        assert sim.now == 600.0
    assert result.elapsed_ms == 600_000


def test_r4_a_leaf_agent_has_no_tools_offered() -> None:
    child = leaf("solo")
    simulate(child, "go")
    assert isinstance(child.model, ScriptedModel)
    assert child.model.requests[0].tools == ()


def test_r4_sync_run_inside_a_running_loop_says_to_await_arun() -> None:
    agent = Agent("solo", ScriptedModel(["hi"]))

    async def main() -> None:
        with pytest.raises(RunError, match=r"use await agent\.arun\(\.\.\.\) instead"):
            agent.run("go")

    asyncio.run(main())


def test_v1_simulate_inside_a_running_loop_is_a_clear_error() -> None:
    agent = Agent("solo", ScriptedModel(["hi"]))

    async def main() -> None:
        with pytest.raises(RunError, match="cannot run inside a running event loop"):
            simulate(agent, "go")

    asyncio.run(main())
