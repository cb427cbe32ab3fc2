"""Structured output is the run's output whichever pydantic-ai model answers, under capture().

pydantic-ai returns structured output through output tools. ``SimModel`` is told which
offered tools those are; these tests run models that are not ours: pydantic-ai's own
``TestModel`` (what its testing docs use), its ``FunctionModel``, and an OpenAI chat
model answering over HTTP (a mocked transport). A call to an output tool must never be
recorded as a tool call the framework did not run.
"""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING, Any

import pytest

from handoff_sim import HandoffPolicy, check_invariants
from tests.adapters._extras import installed, needs
from tests.hostile._support import open_starts

if not installed("pydantic_ai"):
    pytest.skip(needs("pydantic-ai"), allow_module_level=True)

if TYPE_CHECKING:
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelMessage, ModelResponse
    from pydantic_ai.models.function import AgentInfo

    from handoff_sim import Trace


def joke_type() -> type[Any]:
    from pydantic import BaseModel

    class Joke(BaseModel):
        setup: str
        punchline: str

    return Joke


def output_types() -> dict[str, Any]:
    return {"list[str]": list[str], "BaseModel": joke_type()}


def as_json(output_type: Any, value: object) -> str:
    """``value`` as pydantic serialises it: what pydantic-ai reports as a run's output."""
    from pydantic import TypeAdapter

    return TypeAdapter(output_type).dump_json(value).decode()


def captured(agent: Agent[Any, Any], prompt: str = "go", *, stream: bool = False) -> Any:
    """Run ``agent`` under ``capture()``; its output and the capture."""
    from handoff_sim.adapters.pydantic_ai import capture

    async def main() -> object:
        if stream:
            async with agent.run_stream(prompt) as streamed:
                return await streamed.get_output()
        return (await agent.run(prompt)).output

    with capture() as cap:
        output = asyncio.run(main())
    return output, cap


def assert_output_tools_are_the_output(trace: Trace, *output_tools: str) -> None:
    """No output tool call is a tool call, nothing failed, and the trace is sound."""
    names = set(output_tools or ("final_result",))
    assert names.isdisjoint(e.tool for e in trace.of_type("tool_start"))
    for response in trace.of_type("model_response"):
        assert names.isdisjoint(call.split(":", 1)[1] for call in response.tool_calls)
    assert [e for e in trace.of_type("tool_end") if e.status == "error"] == []
    assert open_starts(trace) == []
    assert check_invariants(trace) == []


def run_end(trace: Trace, agent: str) -> Any:
    [end] = [e for e in trace.of_type("run_end") if e.agent == agent]
    return end


def function_model(*answers: ModelResponse) -> Any:
    """pydantic-ai's ``FunctionModel`` giving ``answers`` in turn."""
    from pydantic_ai.models.function import FunctionModel

    left = list(answers)

    def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return left.pop(0)

    return FunctionModel(answer)


def call(name: str, call_id: str, **arguments: object) -> ModelResponse:
    from pydantic_ai.messages import ModelResponse, ToolCallPart

    return ModelResponse(parts=[ToolCallPart(name, arguments, tool_call_id=call_id)])


# -- pydantic-ai's TestModel ---------------------------------------------------------------


@pytest.mark.parametrize("stream", [False, True], ids=["run", "run_stream"])
@pytest.mark.parametrize("kind", ["list[str]", "BaseModel"])
def test_testmodel_structured_output_is_the_runs_output_not_a_failed_tool_call(
    kind: str, stream: bool
) -> None:
    from pydantic_ai import Agent
    from pydantic_ai.models.test import TestModel

    output_type = output_types()[kind]
    agent = Agent(TestModel(), name="lister", output_type=output_type)
    output, cap = captured(agent, stream=stream)
    assert isinstance(output, list if kind == "list[str]" else output_type)
    assert run_end(cap.trace, "lister").output == as_json(output_type, output)
    [request] = cap.trace.of_type("model_request")
    assert request.tools == ("final_result",)  # what was offered, output tools included
    assert_output_tools_are_the_output(cap.trace)


def test_testmodel_through_override_as_pydantic_ais_testing_docs_write_it(
    pydantic_ai_capture: Any,
) -> None:
    from pydantic_ai import Agent
    from pydantic_ai.models.test import TestModel

    Joke = joke_type()
    agent = Agent("openai:gpt-4.1", name="comedian", output_type=Joke, defer_model_check=True)
    with agent.override(model=TestModel()):
        output = asyncio.run(agent.run("Tell me a joke.")).output
    trace = pydantic_ai_capture.trace
    assert run_end(trace, "comedian").output == output.model_dump_json()
    assert_output_tools_are_the_output(trace)


@pytest.mark.parametrize("kind", ["list[str]", "BaseModel"])
def test_testmodel_governed_delegate_returns_its_structured_output_as_json(kind: str) -> None:
    from pydantic_ai import Agent
    from pydantic_ai.models.test import TestModel

    from handoff_sim.adapters.pydantic_ai import governed

    output_type = output_types()[kind]
    generator = Agent(TestModel(), name="generator", output_type=list[str])
    boss = Agent(
        TestModel(),
        name="boss",
        output_type=output_type,
        tools=[governed(generator, name="jokes", policy=HandoffPolicy(max_retries=1))],
    )
    output, cap = captured(boss)
    trace = cap.trace
    delegated = run_end(trace, "generator").output
    assert json.loads(delegated) == ["a"]  # TestModel's answer for list[str]
    [tool_end] = trace.of_type("tool_end")
    assert (tool_end.tool, tool_end.status, tool_end.output) == ("jokes", "ok", delegated)
    [handoff] = trace.handoffs("jokes")
    assert (handoff.status, handoff.output) == ("completed", delegated)
    assert run_end(trace, "boss").output == as_json(output_type, output)
    assert_output_tools_are_the_output(trace)


@pytest.mark.parametrize("govern", [False, True], ids=["docs_tool", "governed_tool"])
def test_testmodel_runs_the_docs_joke_delegation_with_jokes_as_the_delegates_output(
    govern: bool,
) -> None:
    from pydantic_ai.models.test import TestModel

    from tests.adapters._pai_docs_agents import ClientAndKey, JokeClient, joke_graph

    wrap = None
    if govern:
        from handoff_sim.adapters.pydantic_ai import governed_tool

        wrap = governed_tool(policy=HandoffPolicy(timeout=30))
    graph = joke_graph(TestModel(), TestModel(), govern=wrap)
    from handoff_sim.adapters.pydantic_ai import capture

    async def main() -> str:
        deps = ClientAndKey(JokeClient(), "secret-key")
        return (await graph.selection.run("Tell me a joke.", deps=deps)).output

    with capture() as cap:
        asyncio.run(main())
    trace = cap.trace
    [delegate_end] = [e for e in trace.of_type("run_end") if e.depth == 1]
    assert json.loads(delegate_end.output) == ["a"]
    [factory_end] = [e for e in trace.of_type("tool_end") if e.tool == "joke_factory"]
    assert (factory_end.status, factory_end.output) == ("ok", delegate_end.output)
    assert {e.tool for e in trace.of_type("tool_end")} == {"joke_factory", "get_jokes"}
    assert_output_tools_are_the_output(trace)


# -- pydantic-ai's FunctionModel -----------------------------------------------------------


def test_function_model_final_result_call_is_the_runs_output() -> None:
    from pydantic_ai import Agent

    agent = Agent(
        function_model(call("final_result", "o1", response=["joke A", "joke B"])),
        name="lister",
        output_type=list[str],
    )
    output, cap = captured(agent)
    assert output == ["joke A", "joke B"]
    assert run_end(cap.trace, "lister").output == '["joke A","joke B"]'
    [response] = cap.trace.of_type("model_response")
    assert response.tool_calls == ()
    assert_output_tools_are_the_output(cap.trace)


def test_function_model_parent_of_a_governed_delegate_records_both_outputs() -> None:
    from pydantic_ai import Agent

    from handoff_sim.adapters.pydantic_ai import governed

    Joke = joke_type()
    generator = Agent(
        function_model(call("final_result", "g1", response=["joke A", "joke B"])),
        name="generator",
        output_type=list[str],
    )
    boss = Agent(
        function_model(
            call("jokes", "c1", task="two jokes"),
            call("final_result", "o1", setup="Why?", punchline="Because."),
        ),
        name="boss",
        output_type=Joke,
        tools=[governed(generator, name="jokes")],
    )
    output, cap = captured(boss)
    trace = cap.trace
    assert output == Joke(setup="Why?", punchline="Because.")
    assert run_end(trace, "generator").output == '["joke A","joke B"]'
    [tool_end] = trace.of_type("tool_end")
    assert (tool_end.call_id, tool_end.status) == ("c1", "ok")
    assert tool_end.output == '["joke A","joke B"]'
    assert run_end(trace, "boss").output == '{"setup":"Why?","punchline":"Because."}'
    assert [r.tool_calls for r in trace.of_type("model_response") if r.agent == "boss"] == [
        ("c1:jokes",),
        (),
    ]
    assert_output_tools_are_the_output(trace)


def test_output_tools_are_known_by_their_kind_not_by_a_final_result_name() -> None:
    from pydantic_ai import Agent, ToolOutput
    from pydantic_ai.models.function import FunctionModel

    Joke = joke_type()
    offered: list[set[str]] = []

    def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        offered.append({t.name for t in info.output_tools})
        return call("refuse", "o1", response="no jokes today")

    agent = Agent(
        FunctionModel(answer),
        name="comedian",
        output_type=[ToolOutput(Joke, name="tell_joke"), ToolOutput(str, name="refuse")],
    )
    output, cap = captured(agent)
    assert output == "no jokes today"
    assert offered == [{"tell_joke", "refuse"}]
    assert run_end(cap.trace, "comedian").output == "no jokes today"
    assert_output_tools_are_the_output(cap.trace, "tell_joke", "refuse")


def test_a_function_tool_named_like_an_output_tool_is_still_a_tool_call() -> None:
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelResponse, TextPart

    agent = Agent(
        function_model(call("final_result_summary", "t1"), ModelResponse(parts=[TextPart("ok")])),
        name="summariser",
    )

    @agent.tool_plain
    def final_result_summary() -> str:
        return "summary"

    output, cap = captured(agent)
    assert output == "ok"
    [tool_end] = cap.trace.of_type("tool_end")
    assert (tool_end.tool, tool_end.status, tool_end.output) == (
        "final_result_summary",
        "ok",
        "summary",
    )
    assert check_invariants(cap.trace) == []


def test_function_model_output_function_hand_off_is_a_nested_run_not_a_tool_call() -> None:
    from pydantic_ai.messages import ModelResponse, TextPart

    from tests.adapters._pai_docs_agents import sql_router

    router = sql_router(
        function_model(call("final_result", "o1", query="orders of May")),
        function_model(ModelResponse(parts=[TextPart("SELECT 1")])),
    )
    output, cap = captured(router, "May's orders?")
    trace = cap.trace
    assert output == "SELECT 1"
    top, nested = trace.of_type("run_start")
    assert (nested.agent, nested.depth, nested.parent_run_id) == ("sql_agent", 0, top.run_id)
    assert trace.of_type("tool_start") == []
    assert trace.handoffs() == []
    assert_output_tools_are_the_output(trace)


# -- a model answering over HTTP -----------------------------------------------------------


def test_openai_chat_model_over_http_final_result_is_the_runs_output() -> None:
    """About 2 s alone: importing pydantic-ai's OpenAI model (and openai) is most of it."""
    if not installed("openai"):
        pytest.skip(
            "needs the 'openai' package (pydantic-ai's OpenAI models): "
            "pip install 'pydantic-ai-slim[openai]'"
        )
    import httpx2
    from openai import AsyncOpenAI
    from pydantic_ai import Agent
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    sent_tools: list[list[str]] = []

    def completion(request: httpx2.Request) -> httpx2.Response:
        body = json.loads(request.content)
        sent_tools.append([t["function"]["name"] for t in body.get("tools", [])])
        arguments = json.dumps({"response": ["joke A", "joke B"]})
        message = {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "final_result", "arguments": arguments},
                }
            ],
        }
        return httpx2.Response(
            200,
            json={
                "id": "chatcmpl-1",
                "object": "chat.completion",
                "created": 0,
                "model": "gpt-4o",
                "choices": [{"index": 0, "finish_reason": "tool_calls", "message": message}],
                "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
            },
        )

    client = AsyncOpenAI(
        api_key="not-a-key",
        base_url="http://model.invalid/v1",
        http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(completion)),
        max_retries=0,
    )
    model = OpenAIChatModel("gpt-4o", provider=OpenAIProvider(openai_client=client))
    agent = Agent(model, name="lister", output_type=list[str])
    output, cap = captured(agent)
    assert output == ["joke A", "joke B"]
    assert sent_tools == [["final_result"]]
    assert run_end(cap.trace, "lister").output == '["joke A","joke B"]'
    assert_output_tools_are_the_output(cap.trace)
