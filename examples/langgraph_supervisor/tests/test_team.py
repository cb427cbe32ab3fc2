"""The team's handoffs under handoff-sim: scripted, governed, timed out, fuzzed, snapshotted."""

import pytest
from team import POLICY, build_orchestrator, build_supervisor, build_swarm

from handoff_sim import FailureAction, HandoffPolicy, check_invariants
from handoff_sim.adapters.langgraph import SimChatModel, simulate_run
from handoff_sim.testing import AdversarialModel, ScriptedModel
from pytest_handoff import (
    assert_handoffs_balanced,
    assert_ran_in_parallel,
    assert_retry_count,
    assert_timeout_per_attempt,
)

QUESTION = {"messages": [{"role": "user", "content": "What is the combined headcount of FAANG?"}]}


def call(call_id, tool, **arguments):
    return {"id": call_id, "name": tool, "arguments": arguments}


def test_the_supervisor_sends_research_then_math_and_answers(models, handoff_snapshot):
    app = build_supervisor(
        *models(
            [
                {"tool_calls": [call("s1", "transfer_to_research_expert")]},
                {"tool_calls": [call("s2", "transfer_to_math_expert")]},
                "The combined headcount is 1,977,586.",
            ],
            [
                {"tool_calls": [call("r1", "web_search", query="FAANG headcount 2024")]},
                "found them",
            ],
            [
                {"tool_calls": [call("m1", "add", a=67317, b=164000)], "latency": "2s"},
                "1,977,586",
            ],
        )
    )
    run = simulate_run(lambda: app.ainvoke(QUESTION))
    assert run.result["messages"][-1].content == "The combined headcount is 1,977,586."
    assert [(t.from_agent, t.to_agent) for t in run.transfers] == [
        ("supervisor", "research_expert"),
        ("research_expert", "supervisor"),  # langgraph-supervisor's automatic transfer back
        ("supervisor", "math_expert"),
        ("math_expert", "supervisor"),
    ]
    assert run.elapsed_ms == 2000  # the math expert's 2 s, in virtual time
    assert check_invariants(run.trace) == []
    assert handoff_snapshot == run.trace


def test_a_denied_transfer_keeps_the_supervisor_in_charge(models):
    app = build_supervisor(
        *models(
            [
                {"tool_calls": [call("s1", "transfer_to_math_expert")]},
                {
                    "text": "I cannot ask the math expert.",
                    "expect": {"last_tool_result_contains": "denied"},
                },
            ],
            [],
            [],
        ),
        transfers=HandoffPolicy(
            denied_tools=["transfer_to_math_expert"], on_denied=FailureAction.REPORT_TO_MODEL
        ),
    )
    run = simulate_run(lambda: app.ainvoke(QUESTION))
    assert run.result["messages"][-1].content == "I cannot ask the math expert."
    assert run.transfers == ()
    [denied] = run.trace.handoffs()
    assert (denied.tool, denied.status, denied.reason) == (
        "transfer_to_math_expert",
        "denied",
        "denied_tool",
    )


def test_the_swarm_hands_alice_over_to_bob(models):
    app = build_swarm(
        *models(
            [{"tool_calls": [call("a1", "transfer_to_bob")]}],
            ["Arr, ahoy there!"],
        )
    )
    run = simulate_run(
        lambda: app.ainvoke({"messages": [{"role": "user", "content": "talk to bob"}]})
    )
    assert run.result["messages"][-1].content == "Arr, ahoy there!"
    assert run.result["active_agent"] == "Bob"
    assert [(t.from_agent, t.to_agent, t.tool) for t in run.transfers] == [
        ("Alice", "Bob", "transfer_to_bob")
    ]


def test_the_governed_experts_run_in_parallel(models):
    app = build_orchestrator(
        *models(
            [
                {
                    "tool_calls": [
                        call("o1", "research", task="headcounts"),
                        call("o2", "math", task="2+2"),
                    ]
                },
                "done",
            ],
            [{"text": "facts", "latency": "2s"}],
            [{"text": "4", "latency": "3s"}],
        )
    )
    run = simulate_run(lambda: app.ainvoke(QUESTION))
    assert_ran_in_parallel(run, "research", "math")
    assert run.elapsed_ms == 3000


def test_a_stuck_researcher_times_out_three_times_in_90_virtual_seconds(models):
    app = build_orchestrator(
        *models(
            [
                {"tool_calls": [call("o1", "research", task="headcounts")]},
                {
                    "text": "Research is unavailable.",
                    "expect": {"last_tool_result_contains": "timeout"},
                },
            ],
            [{"text": "never", "latency": "1h"}] * 3,
            [],
        )
    )
    run = simulate_run(lambda: app.ainvoke(QUESTION))
    assert run.result["messages"][-1].content == "Research is unavailable."
    assert_retry_count(run, "research", 2)
    assert_timeout_per_attempt(run, "research", 30)
    assert run.elapsed_ms == 90_000  # 30 s x 3 attempts


@pytest.mark.parametrize("seed", range(8))
def test_an_adversarial_supervisor_model_cannot_unbalance_the_trace(seed):
    app = build_supervisor(
        SimChatModel(AdversarialModel(seed, max_turns=3, fan_out=6)),
        SimChatModel(ScriptedModel(["facts"] * 50)),
        SimChatModel(ScriptedModel(["42"] * 50)),
        transfers=HandoffPolicy(on_denied=FailureAction.REPORT_TO_MODEL),
    )
    run = simulate_run(lambda: app.ainvoke(QUESTION), seed=seed, raise_errors=False)
    assert_handoffs_balanced(run)
    assert check_invariants(run.trace) == []


@pytest.mark.parametrize("seed", range(8))
def test_an_adversarial_orchestrator_cannot_break_the_policy(seed):
    app = build_orchestrator(
        SimChatModel(AdversarialModel(seed, max_turns=3, fan_out=6)),
        SimChatModel(ScriptedModel(["facts"] * 50)),
        SimChatModel(ScriptedModel(["42"] * 50)),
    )
    run = simulate_run(lambda: app.ainvoke(QUESTION), seed=seed, raise_errors=False)
    assert_handoffs_balanced(run)
    assert check_invariants(run.trace) == []
    assert all(h.depth <= POLICY.max_depth for h in run.trace.handoffs())
