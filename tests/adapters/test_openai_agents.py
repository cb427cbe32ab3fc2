"""The OpenAI Agents SDK adapter, against the real SDK: fakes, capture, governance, virtual time."""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING

import pytest

from handoff_sim import FailureAction, HandoffDeniedError, HandoffPolicy, ToolCall, check_invariants
from handoff_sim.adapters import CaptureError
from handoff_sim.testing import AdversarialModel, FunctionModel, ScriptedModel
from pytest_handoff import (
    assert_denied,
    assert_depth_exceeded,
    assert_fallback_unavailable,
    assert_handoffs_balanced,
    assert_ran_in_parallel,
    assert_retry_count,
    assert_timeout_per_attempt,
)
from tests.adapters._extras import installed, needs
from tests.hostile._support import open_starts

# the SDK is imported inside the tests that use it: collecting this module stays cheap
if not installed("agents"):
    pytest.skip(needs("openai-agents"), allow_module_level=True)

if TYPE_CHECKING:
    from agents import Agent

    from handoff_sim.adapters.openai_agents import SimModel


def model(*steps: object) -> SimModel:
    from handoff_sim.adapters.openai_agents import SimModel

    return SimModel(ScriptedModel(list(steps)))


def call(call_id: str, name: str, text: str = "task") -> dict[str, object]:
    return {"id": call_id, "name": name, "arguments": {"input": text}}


def agent(name: str, *steps: object, **kwargs: object) -> Agent[None]:
    from agents import Agent

    return Agent(name=name, model=model(*steps), **kwargs)  # type: ignore[arg-type]


def assert_sound(trace: object) -> None:
    assert open_starts(trace) == []  # type: ignore[arg-type]
    assert check_invariants(trace) == []  # type: ignore[arg-type]


# -- fake models drive SDK agents -------------------------------------------------------------


def test_scripted_model_answers_as_the_sdk_model_of_an_agent() -> None:
    from agents import RunConfig, Runner

    async def main() -> None:
        helper = agent("helper", {"text": "42", "expect": {"input_contains": "question"}})
        result = await Runner.run(helper, "a question", run_config=RunConfig(tracing_disabled=True))
        assert result.final_output == "42"

    asyncio.run(main())


def test_a_streamed_run_gets_the_same_answer_as_a_stream() -> None:
    from agents import RunConfig, Runner

    async def main() -> None:
        helper = agent("helper", {"text": "streamed answer"})
        streamed = Runner.run_streamed(helper, "hi", run_config=RunConfig(tracing_disabled=True))
        deltas = [
            event.data.delta
            async for event in streamed.stream_events()
            if event.type == "raw_response_event"
            and event.data.type == "response.output_text.delta"
        ]
        assert deltas == ["streamed answer"]
        assert streamed.final_output == "streamed answer"

    asyncio.run(main())


def test_function_model_sees_tool_results_in_our_message_form() -> None:
    from agents import Agent, RunConfig, Runner

    from handoff_sim.adapters.openai_agents import SimModel

    async def main() -> None:
        seen: list[str | None] = []

        def decide(request: object) -> object:
            results = request.last_tool_results()  # type: ignore[attr-defined]
            if not results:
                return {"tool_calls": [call("c1", "helper", "look up")]}
            seen.append(results[-1].content)
            return "done"

        helper = agent("helper", {"text": "found it"})
        boss = Agent(
            name="boss",
            model=SimModel(FunctionModel(decide)),
            tools=[helper.as_tool("helper", "Ask the helper")],
        )
        result = await Runner.run(boss, "go", run_config=RunConfig(tracing_disabled=True))
        assert (result.final_output, seen) == ("done", ["found it"])

    asyncio.run(main())


# -- capture(): SDK runs as our traces ----------------------------------------------------------


def fan_out_parent(latency: bool = True) -> Agent[None]:
    researcher = agent("researcher", {"text": "facts", "latency": 2 if latency else 0})
    writer = agent("writer", {"text": "prose", "latency": 3 if latency else 0})
    return agent(
        "triage",
        {"tool_calls": [call("c1", "research"), call("c2", "write")]},
        {"text": "report"},
        tools=[researcher.as_tool("research", "Research"), writer.as_tool("write", "Write")],
    )


def test_parallel_fan_out_of_two_agents_as_tools_is_two_overlapping_handoffs() -> None:
    from agents import Runner

    from handoff_sim.adapters.openai_agents import simulate_run

    run = simulate_run(Runner.run(fan_out_parent(), "go"))
    assert run.result is not None
    assert run.result.final_output == "report"
    research, write = run.trace.handoffs()
    assert (research.tool, research.subagent, research.status) == (
        "research",
        "researcher",
        "completed",
    )
    assert (write.output, write.duration_ms, write.depth) == ("prose", 3000.0, 1)
    assert_ran_in_parallel(run, "research", "write")
    assert assert_handoffs_balanced(run) == 2
    assert run.elapsed_ms == 3000.0
    assert_sound(run.trace)


def test_a_captured_trace_renders_as_text_tree_and_mermaid() -> None:
    from agents import Runner

    from handoff_sim.adapters.openai_agents import simulate_run

    run = simulate_run(Runner.run(fan_out_parent(), "go"))
    tree = run.trace.render_tree()
    assert "triage → researcher via research [handoff:c1] status=completed" in tree
    assert "triage → writer via write [handoff:c2]" in tree
    assert "handoff_start" in run.trace.render()
    assert "sequenceDiagram" in run.trace.to_mermaid()


def test_captured_traces_of_the_same_run_are_byte_identical() -> None:
    from agents import Runner

    from handoff_sim.adapters.openai_agents import simulate_run

    first = simulate_run(Runner.run(fan_out_parent(), "go"), seed=3).trace.to_jsonl()
    second = simulate_run(Runner.run(fan_out_parent(), "go"), seed=3).trace.to_jsonl()
    assert first == second


def test_capture_records_a_real_time_run_and_puts_the_tracing_provider_back() -> None:
    from agents import Runner
    from agents.tracing import get_trace_provider

    from handoff_sim.adapters.openai_agents import capture

    async def main() -> None:
        before = get_trace_provider()
        with capture() as cap:
            result = await Runner.run(fan_out_parent(latency=False), "go")
        assert result.final_output == "report"
        assert get_trace_provider() is before
        assert [r.status for r in cap.trace.handoffs()] == ["completed", "completed"]
        assert_sound(cap.trace)

    asyncio.run(main())


def test_capture_exports_nothing_inside_the_block() -> None:
    from agents.tracing import get_trace_provider

    from handoff_sim.adapters.openai_agents import capture

    async def main() -> None:
        with capture():
            provider = get_trace_provider()
            processors = getattr(provider, "_multi_processor", None)
            names = [type(p).__name__ for p in getattr(processors, "_processors", ())]
        assert names == ["_Router"]

    asyncio.run(main())


def test_a_run_with_tracing_disabled_inside_capture_is_reported() -> None:
    from agents import RunConfig, Runner

    from handoff_sim.adapters.openai_agents import capture

    async def main() -> None:
        helper = agent("helper", {"text": "hi"})
        with pytest.raises(CaptureError, match="tracing_disabled"), capture():
            await Runner.run(helper, "go", run_config=RunConfig(tracing_disabled=True))

    asyncio.run(main())


def test_a_control_transfer_is_the_transfer_tool_call_and_a_new_run_in_the_same_session() -> None:
    from agents import Runner

    from handoff_sim.adapters.openai_agents import simulate_run

    billing = agent("Billing", {"text": "refunded"})
    triage = agent(
        "triage",
        {"tool_calls": [{"id": "t1", "name": "transfer_to_billing", "arguments": {}}]},
        handoffs=[billing],
    )
    run = simulate_run(Runner.run(triage, "refund please"))
    assert run.result is not None
    assert run.result.final_output == "refunded"
    [transfer] = run.transfers
    assert (transfer.from_agent, transfer.to_agent, transfer.call_id) == ("triage", "Billing", "t1")
    starts = run.trace.of_type("run_start")
    assert [(e.agent, e.input) for e in starts] == [
        ("triage", "refund please"),
        ("Billing", "refund please"),
    ]
    assert starts[0].session_id == starts[1].session_id  # type: ignore[attr-defined]
    assert starts[1].parent_run_id == starts[0].run_id  # type: ignore[attr-defined]
    [end] = [e for e in run.trace.of_type("tool_end") if e.tool == "transfer_to_billing"]  # type: ignore[attr-defined]
    assert json.loads(end.output) == {"assistant": "Billing"}  # type: ignore[attr-defined]
    assert run.trace.handoffs() == []
    assert_sound(run.trace)


# -- governed(): our policy on agent.as_tool --------------------------------------------------


def test_a_retried_timeout_makes_three_attempts_of_thirty_virtual_seconds() -> None:
    from agents import Runner

    from handoff_sim.adapters.openai_agents import governed, simulate_run

    slow = agent("slow", *[{"text": "late", "latency": "100s"}] * 3)
    boss = agent(
        "boss",
        {"tool_calls": [call("c1", "research")]},
        {"text": "gave up", "expect": {"last_tool_result_contains": "handoff timeout"}},
        tools=[
            governed(slow, tool_name="research", policy=HandoffPolicy(max_retries=2, timeout=30))
        ],
    )
    run = simulate_run(Runner.run(boss, "go"))
    [record] = run.trace.handoffs("research")
    assert (record.status, record.reason, record.attempts) == ("failed", "timeout", 3)
    assert record.attempt_outcomes == ("timeout", "timeout", "timeout")
    assert record.duration_ms == 90_000.0
    assert run.elapsed_ms == 90_000.0
    assert record.error == "handoff timeout for subagent tool research after 30000 ms"
    assert_retry_count(run, "research", 2)
    assert_timeout_per_attempt(run, "research", 30)
    assert [e.status for e in run.trace.of_type("run_end") if e.agent == "slow"] == [
        "cancelled"
    ] * 3  # type: ignore[attr-defined]
    assert_sound(run.trace)


def test_a_nested_delegation_past_max_depth_is_denied_and_aborts_the_run() -> None:
    from agents import Runner

    from handoff_sim.adapters.openai_agents import governed, simulate_run

    policy = HandoffPolicy(max_depth=1)
    leaf = agent("leaf", {"text": "unreachable"})
    middle = agent(
        "middle",
        {"tool_calls": [call("m1", "leaf")]},
        tools=[governed(leaf, tool_name="leaf", policy=policy)],
    )
    top = agent(
        "top",
        {"tool_calls": [call("t1", "middle")]},
        tools=[governed(middle, tool_name="middle", policy=policy)],
    )
    run = simulate_run(Runner.run(top, "go"), raise_errors=False)
    assert isinstance(run.error, HandoffDeniedError)
    assert (
        str(run.error)
        == "handoff denied for subagent tool leaf: handoff depth 2 exceeds max_depth 1"
    )
    assert_depth_exceeded(run, "leaf", depth=2, max_depth=1)
    [outer] = run.trace.handoffs("middle")
    assert (outer.status, outer.depth, outer.attempts) == ("failed", 1, 1)
    assert open_starts(run.trace) == []


def test_depth_is_held_per_task_under_parallel_fan_out() -> None:
    from agents import Runner

    from handoff_sim.adapters.openai_agents import governed, simulate_run

    policy = HandoffPolicy(max_depth=2)
    leaves = [agent(f"leaf{i}", {"text": f"leaf {i}"}) for i in range(2)]
    middles = [
        agent(
            f"mid{i}",
            {"tool_calls": [call(f"m{i}", f"leaf{i}")]},
            {"text": f"mid {i}"},
            tools=[governed(leaves[i], tool_name=f"leaf{i}", policy=policy)],
        )
        for i in range(2)
    ]
    top = agent(
        "top",
        {"tool_calls": [call("a", "mid0"), call("b", "mid1")]},
        {"text": "top"},
        tools=[governed(m, tool_name=m.name, policy=policy) for m in middles],
    )
    run = simulate_run(Runner.run(top, "go"))
    depths = {r.tool: (r.depth, r.status) for r in run.trace.handoffs()}
    assert depths == {
        "mid0": (1, "completed"),
        "mid1": (1, "completed"),
        "leaf0": (2, "completed"),
        "leaf1": (2, "completed"),
    }
    assert_sound(run.trace)


def test_a_denied_tool_without_fallback_answers_handoff_unavailable() -> None:
    from agents import Runner

    from handoff_sim.adapters.openai_agents import governed, simulate_run

    helper = agent("helper", {"text": "never runs"})
    policy = HandoffPolicy(denied_tools=["helper"], on_denied=FailureAction.FALLBACK_TO_PRIMARY)
    boss = agent(
        "boss",
        {"tool_calls": [call("c1", "helper")]},
        {"text": "ok", "expect": {"last_tool_result_contains": "handoff unavailable"}},
        tools=[governed(helper, tool_name="helper", policy=policy)],
    )
    run = simulate_run(Runner.run(boss, "go"))
    record = assert_fallback_unavailable(run, "helper", why="denied")
    assert record.output == (
        "handoff unavailable: subagent tool helper was denied (tool is in denied_tools) "
        "and no primary tool executor serves it (unknown tool: helper)"
    )
    assert_denied(run, "helper", reason="denied_tool")
    assert_sound(run.trace)


def test_a_denied_tool_with_a_fallback_function_serves_the_original_call() -> None:
    from agents import Runner

    from handoff_sim.adapters.openai_agents import governed, simulate_run

    helper = agent("helper", {"text": "never runs"})
    policy = HandoffPolicy(denied_tools=["helper"], on_denied=FailureAction.FALLBACK_TO_PRIMARY)
    served: list[ToolCall] = []

    def fallback(c: ToolCall) -> str:
        served.append(c)
        return "served locally"

    boss = agent(
        "boss",
        {"tool_calls": [call("c1", "helper", "x")]},
        {"text": "ok", "expect": {"last_tool_result_contains": "served locally"}},
        tools=[governed(helper, tool_name="helper", policy=policy, fallback=fallback)],
    )
    run = simulate_run(Runner.run(boss, "go"))
    [record] = run.trace.handoffs("helper")
    assert (record.status, record.reason, record.output) == (
        "fallback",
        "denied_tool",
        "served locally",
    )
    assert [c.arguments for c in served] == ['{"input":"x"}']


def test_report_to_model_and_input_filter_follow_our_runtime() -> None:
    from agents import Agent, Runner

    from handoff_sim.adapters.openai_agents import SimModel, governed, simulate_run

    seen: list[str] = []

    def remember(request: object) -> str:
        seen.append(request.messages[-1].content)  # type: ignore[attr-defined]
        return "filtered answer"

    helper = Agent(name="helper", model=SimModel(FunctionModel(remember)))
    policy = HandoffPolicy(
        input_filter=lambda c: ToolCall(c.id, c.name, json.dumps({"input": "redacted"})),
        allowed_tools=["helper"],
    )
    blocked = HandoffPolicy(allowed_tools=["other"], on_denied=FailureAction.REPORT_TO_MODEL)
    boss = agent(
        "boss",
        {"tool_calls": [call("c1", "helper", "secret"), call("c2", "blocked")]},
        {"text": "ok"},
        tools=[
            governed(helper, tool_name="helper", policy=policy),
            governed(agent("b", {"text": "x"}), tool_name="blocked", policy=blocked),
        ],
    )
    run = simulate_run(Runner.run(boss, "go"))
    assert seen == ["redacted"]
    ok, denied = run.trace.handoffs()
    assert (ok.status, ok.output) == ("completed", "filtered answer")
    assert (denied.status, denied.reason) == ("denied", "not_allowed")
    [end] = [e for e in run.trace.of_type("tool_end") if e.call_id == "c2"]  # type: ignore[attr-defined]
    assert end.output == "handoff denied for subagent tool blocked: tool is not in allowed_tools"  # type: ignore[attr-defined]
    assert end.status == "error"  # type: ignore[attr-defined]


def test_governed_refuses_what_it_cannot_govern() -> None:
    from handoff_sim import ConfigurationError
    from handoff_sim.adapters.openai_agents import governed

    with pytest.raises(ConfigurationError, match=r"takes an agents\.Agent"):
        governed("not an agent")  # type: ignore[arg-type]


# -- adversarial models: the SDK's own error handling, a balanced trace ----------------------


@pytest.mark.parametrize("seed", range(6))
def test_malformed_tool_calls_meet_the_sdks_error_handling_and_the_trace_stays_balanced(
    seed: int,
) -> None:
    from agents import Agent, ModelBehaviorError, Runner

    from handoff_sim.adapters.openai_agents import SimModel, governed, simulate_run

    helper = agent("helper", *[{"text": "fine"}] * 50)
    hostile = Agent(
        name="hostile",
        model=SimModel(
            AdversarialModel(
                seed, ["malformed_json", "non_object_arguments", "missing_task"], max_turns=2
            )
        ),
        tools=[governed(helper, tool_name="helper"), helper.as_tool("plain_helper", "Plain")],
    )
    run = simulate_run(Runner.run(hostile, "go"), raise_errors=False)
    assert run.error is None or isinstance(run.error, ModelBehaviorError)
    assert open_starts(run.trace) == []
    assert assert_handoffs_balanced(run) >= 0
    results = [e.output for e in run.trace.of_type("tool_end")]  # type: ignore[attr-defined]
    assert results, "the hostile calls reached the tools"


def test_an_unknown_tool_name_fails_the_run_the_sdk_way_and_every_start_ends() -> None:
    from agents import Agent, ModelBehaviorError, Runner

    from handoff_sim.adapters.openai_agents import SimModel, simulate_run

    hostile = Agent(
        name="hostile",
        model=SimModel(AdversarialModel(1, ["unknown_tool"], max_turns=1)),
    )
    run = simulate_run(Runner.run(hostile, "go"), raise_errors=False)
    assert isinstance(run.error, ModelBehaviorError)
    assert open_starts(run.trace) == []
    [end] = run.trace.of_type("run_end")
    assert end.status == "failed"  # type: ignore[attr-defined]
