"""pydantic-ai graphs written the way its docs write them, under handoff-sim.

The agent delegation example of pydantic-ai's multi-agent docs (``joke_selection_agent``
calling ``joke_generation_agent`` from its own ``joke_factory`` tool with
``deps=ctx.deps, usage=ctx.usage``, ``UsageLimits``, structured ``list[str]`` output),
governed with ``governed_tool``; structured output in the trace; the framework's forms
of results and errors; sync entry points in virtual time.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest

from handoff_sim import FailureAction, HandoffPolicy, ToolCall, check_invariants
from handoff_sim.testing import FunctionModel, ScriptedModel
from pytest_handoff import assert_retry_count, assert_timeout_per_attempt
from tests.adapters._extras import installed, needs
from tests.hostile._support import open_starts

if not installed("pydantic_ai"):
    pytest.skip(needs("pydantic-ai"), allow_module_level=True)

if TYPE_CHECKING:
    from handoff_sim.adapters.pydantic_ai import SimModel
    from tests.adapters._pai_docs_agents import ClientAndKey, JokeGraph

JOKES = ["joke A", "joke B"]


def scripted(*steps: object) -> SimModel:
    from handoff_sim.adapters.pydantic_ai import SimModel

    return SimModel(ScriptedModel(list(steps)))


def calls(name: str, call_id: str = "c1", **arguments: object) -> dict[str, object]:
    return {"tool_calls": [{"id": call_id, "name": name, "arguments": arguments}]}


def generation_steps() -> list[object]:
    """The delegate's two model calls: fetch jokes, then the structured output."""
    return [calls("get_jokes", "g1", count=2), calls("final_result", "o1", response=JOKES)]


def graph(*selection: object, generation: list[object] | None = None, **kw: Any) -> JokeGraph:
    from tests.adapters._pai_docs_agents import joke_graph

    steps = generation_steps() if generation is None else generation
    return joke_graph(scripted(*selection), scripted(*steps), **kw)


def governed(**options: Any) -> Any:
    from tests.adapters._pai_docs_agents import governed_factory

    return governed_factory(**options)


def deps() -> ClientAndKey:
    from tests.adapters._pai_docs_agents import ClientAndKey, JokeClient

    return ClientAndKey(JokeClient(), "secret-key")


def run_jokes(g: JokeGraph, the_deps: ClientAndKey | None = None, **kw: Any) -> Any:
    from pydantic_ai.usage import UsageLimits

    from handoff_sim.adapters.pydantic_ai import simulate_run

    joke_selection_agent = g.selection
    limits = UsageLimits(request_limit=8, total_tokens_limit=5000)
    return simulate_run(
        lambda: joke_selection_agent.run(
            "Tell me a joke.", deps=the_deps or deps(), usage_limits=limits
        ),
        **kw,
    )


def assert_sound(trace: Any) -> None:
    assert open_starts(trace) == []
    assert check_invariants(trace) == []


CHOOSE = {"text": "joke B", "expect": {"last_tool_result_contains": '["joke A","joke B"]'}}


# -- structured output is the run's output, not a tool call --------------------------------


def test_structured_output_is_the_runs_output_and_never_a_failed_tool_call() -> None:
    g = graph(calls("joke_factory", count=2), CHOOSE)
    run = run_jokes(g)
    assert run.result.output == "joke B"
    generation_end = [e for e in run.trace.of_type("run_end") if e.depth == 1]
    assert [e.output for e in generation_end] == ['["joke A","joke B"]']
    assert "final_result" not in {e.tool for e in run.trace.of_type("tool_start")}
    assert not [e for e in run.trace.of_type("tool_end") if e.status == "error"]
    assert_sound(run.trace)


def test_an_output_tool_call_beside_a_function_call_leaves_only_the_function_call() -> None:
    from pydantic_ai import Agent

    from handoff_sim.adapters.pydantic_ai import simulate_run

    both = {
        "tool_calls": [
            {"id": "t1", "name": "lookup", "arguments": {}},
            {"id": "o1", "name": "final_result", "arguments": {"response": JOKES}},
        ]
    }
    agent = Agent(scripted(both), name="lister", output_type=list[str], end_strategy="exhaustive")

    @agent.tool_plain
    def lookup() -> str:
        return "looked up"

    run = simulate_run(lambda: agent.run("go"))
    assert run.result.output == JOKES
    [response] = run.trace.of_type("model_response")
    assert response.tool_calls == ("t1:lookup",)
    assert [(e.tool, e.status) for e in run.trace.of_type("tool_end")] == [("lookup", "ok")]
    assert_sound(run.trace)


def test_an_output_function_handing_off_is_a_nested_run_not_a_tool_call() -> None:
    from handoff_sim.adapters.pydantic_ai import simulate_run
    from tests.adapters._pai_docs_agents import sql_router

    router = sql_router(
        scripted(calls("final_result", "o1", query="orders of May")), scripted("SELECT 1")
    )
    run = simulate_run(lambda: router.run("May's orders?"))
    assert run.result.output == "SELECT 1"
    top, nested = run.trace.of_type("run_start")
    assert (nested.agent, nested.input, nested.depth) == ("sql_agent", "orders of May", 0)
    assert nested.parent_run_id == top.run_id
    assert run.trace.of_type("tool_start") == []
    assert run.trace.handoffs() == []
    assert [e.output for e in run.trace.of_type("run_end")] == ["SELECT 1", "SELECT 1"]
    assert_sound(run.trace)


# -- governed_tool: the policy on the user's own delegation tool ---------------------------


def test_governed_tool_keeps_the_tools_schema_deps_and_usage_of_the_docs_example() -> None:
    from handoff_sim.adapters.pydantic_ai import SimModel

    seen: list[dict[str, Any]] = []

    def selection(request: Any) -> Any:
        if not request.last_tool_results():
            seen.append({t.name: t.parameters for t in request.tools})
            return calls("joke_factory", count=2)
        return "joke B"

    def run_once(governing: bool) -> tuple[Any, ClientAndKey]:
        from tests.adapters._pai_docs_agents import joke_graph

        g = joke_graph(
            SimModel(FunctionModel(selection)),
            scripted(*generation_steps()),
            govern=governed(policy=HandoffPolicy(max_retries=2, timeout=30)) if governing else None,
        )
        the_deps = deps()
        return run_jokes(g, the_deps), the_deps

    plain, plain_deps = run_once(governing=False)
    ruled, ruled_deps = run_once(governing=True)
    assert (
        seen[0]
        == seen[1]
        == {
            "joke_factory": {
                "additionalProperties": False,
                "properties": {"count": {"type": "integer"}},
                "required": ["count"],
                "type": "object",
            }
        }
    )
    assert ruled_deps.http_client.keys == plain_deps.http_client.keys == ["secret-key"]
    assert ruled.result.usage == plain.result.usage  # the delegate's usage counted in the parent's
    assert ruled.result.usage.requests == 4
    assert ruled.result.all_messages()[2].parts[0].content == JOKES  # the tool's own value


def test_a_failed_attempt_of_the_tool_body_is_retried_and_its_usage_still_counts() -> None:
    g = graph(
        calls("joke_factory", count=2),
        CHOOSE,
        generation=[{"error": "provider down"}, *generation_steps()],
        govern=governed(policy=HandoffPolicy(max_retries=2, timeout=30)),
    )
    run = run_jokes(g)
    assert run.result.output == "joke B"
    [record] = run.trace.handoffs("joke_factory")
    assert (record.status, record.attempts, record.subagent) == ("completed", 2, "joke_factory")
    assert record.output == '["joke A","joke B"]'
    assert g.bodies == [2, 2]  # the whole body is one attempt
    starts = [e for e in run.trace.of_type("run_start") if e.depth == 1]
    assert [(e.agent, e.input) for e in starts] == [
        ("joke_generation_agent", "Please generate 2 jokes."),
    ] * 2
    assert_retry_count(run, "joke_factory", 1)
    assert_sound(run.trace)


def test_a_stuck_delegate_times_out_per_attempt_and_the_model_gets_a_failed_tool_return() -> None:
    from pydantic_ai.messages import ToolReturnPart

    slow = {"text": "late", "latency": "100s"}
    g = graph(
        calls("joke_factory", count=2),
        {"text": "no jokes today", "expect": {"last_tool_result_contains": "handoff timeout"}},
        generation=[slow, slow],
        govern=governed(policy=HandoffPolicy(max_retries=1, timeout=30)),
    )
    run = run_jokes(g)
    assert run.result.output == "no jokes today"
    assert run.elapsed_ms == 60_000.0
    assert_timeout_per_attempt(run, "joke_factory", "30s")
    [returned] = [
        p
        for m in run.result.all_messages()
        for p in m.parts
        if isinstance(p, ToolReturnPart) and p.tool_name == "joke_factory"
    ]
    assert returned.outcome == "failed"
    # the runtime's own words for its own error, as a failed tool return of pydantic-ai
    assert returned.content == (
        "Error: HandoffTimeoutError: handoff timeout for subagent tool joke_factory after 30000 ms"
    )
    assert_sound(run.trace)


def test_a_model_retry_raised_in_the_body_is_pydantic_ais_retry_prompt_not_a_policy_retry() -> None:
    g = graph(
        calls("joke_factory", count=50),
        {
            **calls("joke_factory", "c2", count=2),
            "expect": {"last_tool_result_contains": "ask for 10 jokes at most"},
        },
        CHOOSE,
        govern=governed(policy=HandoffPolicy(max_retries=3)),
        most=10,
    )
    run = run_jokes(g)
    assert run.result.output == "joke B"
    first, second = run.trace.handoffs("joke_factory")
    assert (first.status, first.attempts) == ("failed", 1)
    assert (second.status, second.attempts) == ("completed", 1)
    assert g.bodies == [50, 2]
    assert_sound(run.trace)


def test_usage_limit_exceeded_in_the_delegate_is_not_retried_and_keeps_pydantic_ais_words() -> None:
    from pydantic_ai.usage import UsageLimits

    g = graph(
        calls("joke_factory", count=2),
        {"text": "too expensive", "expect": {"last_tool_result_contains": "request_limit of 2"}},
        govern=governed(policy=HandoffPolicy(max_retries=3)),
        delegate_limits=UsageLimits(request_limit=2),
    )
    run = run_jokes(g)
    assert run.result.output == "too expensive"
    [record] = run.trace.handoffs("joke_factory")
    assert (record.status, record.attempts) == ("failed", 1)
    assert record.error is not None
    assert record.error.startswith("The next request would exceed the request_limit of 2")
    assert "Error: UsageLimitExceeded" not in json.dumps(
        [e.output for e in run.trace.of_type("tool_end")]
    )


def test_retry_on_of_the_policy_overrides_the_adapters_classification() -> None:
    g = graph(
        calls("joke_factory", count=50),
        {"text": "gave up"},
        govern=governed(policy=HandoffPolicy(max_retries=2, retry_on=lambda error: True)),
        most=10,
    )
    run = run_jokes(g)
    [record] = run.trace.handoffs("joke_factory")
    assert record.attempts == 3
    assert g.bodies == [50, 50, 50]


def test_a_denied_delegation_tool_never_runs_its_body() -> None:
    policy = HandoffPolicy(denied_tools=["joke_factory"], on_denied=FailureAction.REPORT_TO_MODEL)
    g = graph(
        calls("joke_factory", count=2),
        {"text": "no", "expect": {"last_tool_result_contains": "handoff denied"}},
        generation=[],
        govern=governed(policy=policy),
    )
    run = run_jokes(g)
    assert run.result.output == "no"
    assert g.bodies == []
    [record] = run.trace.handoffs("joke_factory")
    assert (record.status, record.reason) == ("denied", "denied_tool")


def test_an_input_filter_rewrites_the_bodys_arguments_validated_by_their_types() -> None:
    policy = HandoffPolicy(
        input_filter=lambda c: ToolCall(c.id, c.name, json.dumps({"count": "1"}))
    )
    g = graph(calls("joke_factory", count=9), CHOOSE, govern=governed(policy=policy))
    run = run_jokes(g)
    assert g.bodies == [1]
    assert run.result.output == "joke B"


def test_bare_governed_tool_applies_the_default_policy_one_attempt() -> None:
    from handoff_sim.adapters.pydantic_ai import governed_tool

    g = graph(
        calls("joke_factory", count=2),
        {"text": "gave up", "expect": {"last_tool_result_contains": "provider down"}},
        generation=[{"error": "provider down"}],
        govern=governed_tool,
    )
    run = run_jokes(g)
    [record] = run.trace.handoffs("joke_factory")
    assert (record.status, record.attempts, record.depth) == ("failed", 1, 1)
    assert run.result.output == "gave up"


def test_governed_tool_applies_its_policy_outside_a_capture_too() -> None:
    import asyncio

    from pydantic_ai.messages import ToolReturnPart

    g = graph(
        calls("joke_factory", count=2),
        {"text": "gave up"},
        generation=[{"error": "down"}, {"error": "down"}, {"error": "down"}],
        govern=governed(policy=HandoffPolicy(max_retries=2)),
    )
    result = asyncio.run(g.selection.run("Tell me a joke.", deps=deps()))
    assert g.bodies == [2, 2, 2]
    [returned] = [
        p for m in result.all_messages() for p in m.parts if isinstance(p, ToolReturnPart)
    ]
    assert (returned.outcome, returned.content) == ("failed", "Error: SimulatedModelError: down")


def test_governed_tool_refuses_a_sync_function_naming_it() -> None:
    from handoff_sim.adapters import GovernanceError

    def joke_factory(count: int) -> list[str]:
        return []

    with pytest.raises(GovernanceError, match=r"async def tool function.*'joke_factory'"):
        governed(policy=HandoffPolicy())(joke_factory)


# -- governed(agent): results and descriptions as pydantic-ai users expect -----------------


def test_a_governed_agents_structured_output_reaches_the_parent_as_pydantic_ais_json() -> None:
    from pydantic_ai import Agent

    from handoff_sim.adapters.pydantic_ai import governed as governed_agent
    from handoff_sim.adapters.pydantic_ai import simulate_run

    generator = Agent(
        scripted(calls("final_result", "o1", response=JOKES)),
        name="generator",
        output_type=list[str],
    )
    boss = Agent(
        scripted(
            {"tool_calls": [{"id": "c1", "name": "jokes", "arguments": {"task": "2"}}]}, CHOOSE
        ),
        name="boss",
        tools=[governed_agent(generator, name="jokes")],
    )
    run = simulate_run(lambda: boss.run("go"))
    [end] = [e for e in run.trace.of_type("tool_end") if e.tool == "jokes"]
    assert end.output == '["joke A","joke B"]'
    assert run.trace.handoffs("jokes")[0].output == '["joke A","joke B"]'
    assert_sound(run.trace)


def test_a_governed_agent_without_a_description_is_described_by_its_name() -> None:
    from pydantic_ai import Agent

    from handoff_sim.adapters.pydantic_ai import governed as governed_agent

    plain = Agent(scripted(), name="researcher")
    described = Agent(scripted(), name="writer", description="Writes the answer.")
    assert governed_agent(plain).description == (
        "Delegate a task to the researcher agent and get its answer."
    )
    assert governed_agent(described).description == "Writes the answer."
    assert governed_agent(described, description="Mine.").description == "Mine."


@pytest.mark.parametrize(
    ("error", "retried"),
    [
        ("UsageLimitExceeded", False),
        ("UserError", False),
        ("ModelRetry", False),
        ("ToolFailed", False),
        ("UnexpectedModelBehavior", True),
        ("RuntimeError", True),
    ],
)
def test_retryable_says_which_pydantic_ai_errors_a_retry_can_fix(error: str, retried: bool) -> None:
    import pydantic_ai.exceptions as exceptions

    from handoff_sim.adapters.pydantic_ai import retryable

    kind = getattr(exceptions, error, None) or RuntimeError
    assert retryable(kind("boom")) is retried


# -- sync entry points in virtual time -----------------------------------------------------


@pytest.mark.parametrize("raise_errors", [True, False])
def test_run_sync_in_virtual_time_is_refused_naming_the_async_call(raise_errors: bool) -> None:
    from pydantic_ai import Agent
    from pydantic_ai.exceptions import UserError

    from handoff_sim.adapters.pydantic_ai import simulate_run

    helper = Agent(scripted({"text": "hi"}), name="helper")
    with pytest.raises(UserError, match=r"await agent\.run\(\.\.\.\)") as caught:
        simulate_run(lambda: helper.run_sync("go"), raise_errors=raise_errors)
    assert "This event loop is already running" not in str(caught.value)
    assert "simulate_run(lambda: agent.run(...))" in str(caught.value)
