"""The triage agent's delegations under handoff-sim: scripted, timed out, fuzzed, snapshotted."""

import pytest
from agents import Runner
from agents.exceptions import AgentsException
from triage import POLICY, build_triage

from handoff_sim import check_invariants
from handoff_sim.adapters.openai_agents import SimModel, simulate_run
from handoff_sim.testing import AdversarialModel, AdversarialModelError, ScriptedModel
from pytest_handoff import (
    assert_handoffs_balanced,
    assert_ran_in_parallel,
    assert_retry_count,
    assert_timeout_per_attempt,
)


def call(call_id, tool, text):
    return {"id": call_id, "name": tool, "arguments": {"input": text}}


def test_triage_researches_then_writes_from_the_notes(triage, handoff_snapshot):
    agent = triage(
        [
            {"tool_calls": [call("r1", "research", "distance to the moon")]},
            {
                "tool_calls": [call("w1", "write", "notes: 384,400 km")],
                "expect": {"last_tool_result_contains": "384,400 km"},
            },
            "The Moon is about 384,400 km from Earth.",
        ],
        [{"text": "384,400 km on average", "latency": "2s"}],
        [{"text": "The Moon is about 384,400 km from Earth.", "latency": "3s"}],
    )
    run = simulate_run(Runner.run(agent, "How far away is the Moon?"))
    assert run.result.final_output == "The Moon is about 384,400 km from Earth."
    assert [(h.tool, h.subagent, h.status) for h in run.trace.handoffs()] == [
        ("research", "researcher", "completed"),
        ("write", "writer", "completed"),
    ]
    assert run.elapsed_ms == 5000  # 2 s of research, then 3 s of writing: virtual time
    assert handoff_snapshot == run.trace


def test_research_and_writing_asked_in_one_turn_run_in_parallel(triage):
    agent = triage(
        [{"tool_calls": [call("r1", "research", "moon"), call("w1", "write", "moon")]}, "done"],
        [{"text": "facts", "latency": "2s"}],
        [{"text": "prose", "latency": "3s"}],
    )
    run = simulate_run(Runner.run(agent, "Tell me about the Moon"))
    assert_ran_in_parallel(run, "research", "write")
    assert run.elapsed_ms == 3000


def test_a_stuck_researcher_times_out_three_times_and_triage_goes_on(triage):
    agent = triage(
        [
            {"tool_calls": [call("r1", "research", "moon")]},
            {
                "text": "Research is unavailable.",
                "expect": {"last_tool_result_contains": "timeout"},
            },
        ],
        [{"text": "never", "latency": "1h"}] * 3,
        [],
    )
    run = simulate_run(Runner.run(agent, "How far away is the Moon?"))
    assert run.result.final_output == "Research is unavailable."
    assert_retry_count(run, "research", 2)
    assert_timeout_per_attempt(run, "research", 30)
    assert run.elapsed_ms == 90_000  # 30 s x 3 attempts, in milliseconds of wall time


@pytest.mark.parametrize("seed", range(12))
def test_an_adversarial_triage_model_cannot_break_the_policy(seed):
    agent = build_triage(
        SimModel(AdversarialModel(seed, max_turns=3, fan_out=8)),
        SimModel(ScriptedModel(["facts"] * 50)),
        SimModel(ScriptedModel(["prose"] * 50)),
    )
    run = simulate_run(Runner.run(agent, "go"), seed=seed, raise_errors=False)
    # the SDK's own refusals (bad arguments, unknown tools) or the model's own failure
    assert run.error is None or isinstance(run.error, AgentsException | AdversarialModelError)
    assert_handoffs_balanced(run)
    assert check_invariants(run.trace) == []
    assert all(h.depth <= POLICY.max_depth for h in run.trace.handoffs())


def test_the_policy_holds_under_generated_delegation_trees(handoff_fuzz):
    handoff_fuzz.check(POLICY, examples=25)


def test_the_applications_own_graph_runs_on_fakes_swapped_by_agent_name(handoff_models):
    agent = build_triage()  # as the application builds it: models given by name
    handoff_models(
        agent,
        {
            "triage": ScriptedModel([{"tool_calls": [call("r1", "research", "moon")]}, "done"]),
            "*": ScriptedModel(["384,400 km"]),
        },
    )
    run = simulate_run(Runner.run(agent, "How far away is the Moon?"))
    assert run.final_output == "done"
    assert [(h.subagent, h.output) for h in run.trace.handoffs()] == [("researcher", "384,400 km")]
