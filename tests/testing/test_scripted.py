"""M1 ScriptedModel and M2 FunctionModel: strict, offline, deterministic fake models."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from handoff_sim import Agent, ConfigurationError, HandoffPolicy, SubAgent, Tool, simulate
from handoff_sim.errors import ScriptAssertionError, ScriptExhaustedError, UnconsumedStepsError
from handoff_sim.messages import ModelRequest, ModelResponse, ToolCall
from handoff_sim.testing import FunctionModel, ScriptedModel, SimulatedModelError
from tests._helpers import call, delegate, leaf, parent_of, run_raising, tool_results, turn


def _echo() -> Tool:
    return Tool(
        "echo", lambda text="": f"echo:{text}", parameters={"type": "object", "properties": {}}
    )


def _agent(model: Any, **options: Any) -> Agent:
    return Agent(name="bot", model=model, tools=[_echo()], **options)


# --- M1 ScriptedModel -----------------------------------------------------------------------


def test_m1_text_tool_call_and_latency_steps_play_in_order() -> None:
    model = ScriptedModel(
        [
            {"tool_calls": [{"name": "echo", "arguments": {"text": "a"}}], "latency": "250ms"},
            {
                "tool_calls": [{"id": "raw", "name": "echo", "arguments": '{"text":"b"}'}],
                "latency": 2,
            },
            {"text": "done", "latency": 0.5},
        ]
    )
    result = simulate(_agent(model), "go")
    assert result.output == "done"
    assert result.elapsed_ms == 2750
    assert [m.content for m in tool_results(result.messages)] == ["echo:a", "echo:b"]
    [first], [second] = (m.tool_calls for m in result.messages if m.tool_calls)
    assert (first.id, first.arguments) == ("call_1_0", '{"text":"a"}')
    assert (second.id, second.arguments) == ("raw", '{"text":"b"}')


def test_m1_an_error_step_raises_after_its_latency() -> None:
    model = ScriptedModel([{"error": "rate limited", "latency": 3}])
    error, trace = run_raising(_agent(model), SimulatedModelError)
    assert str(error) == "rate limited"
    assert trace[-1].t == 3.0


def test_m1_every_request_is_recorded() -> None:
    model = ScriptedModel([turn(call("echo", {"text": "x"})), {"text": "ok"}])
    simulate(_agent(model), "hello")
    assert len(model.requests) == 2
    assert all(isinstance(r, ModelRequest) for r in model.requests)
    assert [m.role for m in model.requests[1].messages] == ["user", "assistant", "tool"]
    assert model.remaining == 0


def test_m1_running_past_the_end_names_agent_step_and_length() -> None:
    model = ScriptedModel([turn(call("echo")), turn(call("echo"))])
    error, _ = run_raising(_agent(model), ScriptExhaustedError)
    assert (error.agent, error.step, error.length) == ("bot", 3, 2)
    assert str(error) == (
        "script of agent 'bot' exhausted: model call 3 requested, but the script has 2 step(s)"
    )


def test_m1_an_exhausted_child_script_fails_the_run_instead_of_being_retried() -> None:
    child = leaf("child", turn(call("nothing")))
    parent = parent_of(
        [SubAgent("child", agent=child)],
        turn(delegate("subagent_child")),
        policy=HandoffPolicy(max_retries=3),
    )
    error, trace = run_raising(parent, ScriptExhaustedError)
    assert error.agent == "child"
    assert [r.attempts for r in trace.handoffs()] == [1]


def test_m1_a_step_can_expect_the_last_tool_result() -> None:
    good = ScriptedModel(
        [
            turn(call("echo", {"text": "ok"})),
            {"text": "fine", "expect": {"last_tool_result_contains": "echo:ok"}},
        ]
    )
    assert simulate(_agent(good), "go").output == "fine"
    bad = ScriptedModel(
        [
            turn(call("echo", {"text": "no"})),
            {"text": "x", "expect": {"last_tool_result_contains": "echo:ok"}},
        ]
    )
    error, _ = run_raising(_agent(bad), ScriptAssertionError)
    assert isinstance(error, AssertionError)
    assert "step 2" in str(error)
    assert "'echo:ok'" in str(error)
    assert "'echo:no'" in str(error)


def test_m1_a_step_can_expect_the_tools_offered_and_the_input() -> None:
    model = ScriptedModel(
        [{"text": "ok", "expect": {"tools_include": ["echo"], "input_contains": "hel"}}]
    )
    assert simulate(_agent(model), "hello").output == "ok"
    model = ScriptedModel([{"text": "ok", "expect": {"tools_include": ["ghost"]}}])
    error, _ = run_raising(_agent(model), ScriptAssertionError)
    assert "ghost" in str(error)


def test_m1_a_step_check_callable_sees_the_request() -> None:
    seen: list[str] = []
    model = ScriptedModel([{"text": "ok", "check": lambda r: seen.append(r.agent)}])
    simulate(_agent(model), "go")
    assert seen == ["bot"]
    refusing = ScriptedModel([{"text": "ok", "check": lambda r: False}])
    run_raising(_agent(refusing), ScriptAssertionError)


def test_m1_assert_complete_reports_unused_steps() -> None:
    model = ScriptedModel([{"text": "one"}, {"text": "two"}, {"text": "three"}])
    simulate(_agent(model), "go")
    with pytest.raises(UnconsumedStepsError, match="2 unused step"):
        model.assert_complete()
    done = ScriptedModel([{"text": "one"}])
    simulate(_agent(done), "go")
    done.assert_complete()


@pytest.mark.parametrize(
    ("step", "problem"),
    [
        ({"txt": "typo"}, "unknown key"),
        ({"latency": 1}, "needs 'text', 'tool_calls' or 'error'"),
        ({"tool_calls": [{"arguments": {}}]}, "a tool call needs a 'name'"),
        ({"text": "x", "expect": {"bogus": 1}}, "'expect' takes only"),
        (42, "expected a dict, got int"),
    ],
)
def test_m1_a_malformed_step_is_a_configuration_error_naming_it(step: Any, problem: str) -> None:
    with pytest.raises(ConfigurationError, match=problem) as info:
        ScriptedModel([{"text": "fine"}, step])
    assert str(info.value).startswith("script step 2: ")


@pytest.mark.parametrize("latency", ["soon", -1])
def test_m1_a_malformed_latency_is_a_configuration_error_naming_the_step(latency: Any) -> None:
    with pytest.raises(ConfigurationError, match=r"^script step 2: .*invalid duration"):
        ScriptedModel([{"text": "fine"}, {"text": "x", "latency": latency}])


def test_m1_steps_may_be_plain_strings_or_model_responses() -> None:
    model = ScriptedModel(
        [ModelResponse(tool_calls=(ToolCall("c", "echo", "{}"),)), "plain text answer"]
    )
    assert simulate(_agent(model), "go").output == "plain text answer"


# --- M2 FunctionModel -----------------------------------------------------------------------


def test_m2_a_sync_function_decides_from_the_request() -> None:
    def decide(request: ModelRequest) -> Any:
        results = request.last_tool_results()
        if not results:
            return {"tool_calls": [{"name": "echo", "arguments": {"text": request.agent}}]}
        return f"got {results[0].content}"

    model = FunctionModel(decide)
    assert simulate(_agent(model), "go").output == "got echo:bot"
    assert len(model.requests) == 2


def test_m2_an_async_function_with_latency_runs_in_virtual_time() -> None:
    async def decide(request: ModelRequest) -> ModelResponse:
        await asyncio.sleep(4)
        return ModelResponse(text="slow thought")

    result = simulate(_agent(FunctionModel(decide, latency=1)), "go")
    assert (result.output, result.elapsed_ms) == ("slow thought", 5000)


def test_m2_an_error_dict_or_a_raise_fails_the_model_call() -> None:
    error, _ = run_raising(_agent(FunctionModel(lambda r: {"error": "nope"})), SimulatedModelError)
    assert str(error) == "nope"

    def explode(request: ModelRequest) -> str:
        raise KeyError("inside")

    run_raising(_agent(FunctionModel(explode)), KeyError)
