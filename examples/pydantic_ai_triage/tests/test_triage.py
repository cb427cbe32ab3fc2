"""The triage agent's delegations under handoff-sim: scripted, timed out, fuzzed, snapshotted."""

import pytest
from pydantic_ai.exceptions import AgentRunError, UserError
from triage import POLICY, StyleGuide, build_editor, build_triage

from handoff_sim import check_invariants
from handoff_sim.adapters.pydantic_ai import SimModel, simulate_run
from handoff_sim.testing import AdversarialModel, AdversarialModelError, ScriptedModel
from pytest_handoff import (
    assert_handoffs_balanced,
    assert_ran_in_parallel,
    assert_retry_count,
    assert_timeout_per_attempt,
)


def call(call_id, tool, text):
    return {"id": call_id, "name": tool, "arguments": {"task": text}}


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
    run = simulate_run(lambda: agent.run("How far away is the Moon?"))
    assert run.result.output == "The Moon is about 384,400 km from Earth."
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
    run = simulate_run(lambda: agent.run("Tell me about the Moon"))
    assert_ran_in_parallel(run, "research", "write")
    assert run.elapsed_ms == 3000


def test_the_models_can_be_overridden_the_pydantic_ai_way(scripted_model):
    agent = build_triage()
    with agent.override(model=SimModel(scripted_model(["no delegation needed"]))):
        run = simulate_run(lambda: agent.run("hi"))
    assert run.result.output == "no delegation needed"
    assert run.trace.handoffs() == []


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
    run = simulate_run(lambda: agent.run("How far away is the Moon?"))
    assert run.result.output == "Research is unavailable."
    assert_retry_count(run, "research", 2)
    assert_timeout_per_attempt(run, "research", 30)
    assert run.elapsed_ms == 90_000  # 30 s x 3 attempts, in milliseconds of wall time


def test_the_editors_own_draft_tool_is_governed_with_its_deps_and_usage(scripted_model):
    draft = {"title": "The Moon", "body": "It is 384,400 km away."}
    editor = build_editor(
        SimModel(
            scripted_model(
                [
                    {"tool_calls": [{"id": "d1", "name": "draft", "arguments": {"topic": "moon"}}]},
                    {"text": "The Moon", "expect": {"last_tool_result_contains": '"The Moon"'}},
                ]
            )
        ),
        SimModel(
            scripted_model(
                [
                    {"text": "never", "latency": "1h"},  # the first attempt is stuck
                    {"tool_calls": [{"id": "h1", "name": "house_rules", "arguments": {}}]},
                    {
                        "tool_calls": [{"id": "o1", "name": "final_result", "arguments": draft}],
                        "expect": {"last_tool_result_contains": "short sentences"},  # the deps
                    },
                ]
            )
        ),
    )
    rules = StyleGuide("short sentences")
    run = simulate_run(lambda: editor.run("Write about the Moon", deps=rules))
    assert run.result.output == "The Moon"
    [handoff] = run.trace.handoffs()
    assert (handoff.tool, handoff.subagent, handoff.status) == ("draft", "writer", "completed")
    assert handoff.output == '{"title":"The Moon","body":"It is 384,400 km away."}'
    assert_retry_count(run, "draft", 1)
    assert_timeout_per_attempt(run, "draft", 30)
    # ctx.usage: the editor's two requests and the writer's two (the stuck one never answered)
    assert run.result.usage.requests == 4
    # the structured output is the writer's output, not a failed final_result call
    assert [e.tool for e in run.trace.of_type("tool_end")] == ["house_rules", "draft"]
    assert check_invariants(run.trace) == []


@pytest.mark.parametrize("seed", range(12))
def test_an_adversarial_triage_model_cannot_break_the_policy(seed):
    agent = build_triage(
        SimModel(AdversarialModel(seed, max_turns=3, fan_out=8)),
        SimModel(ScriptedModel(["facts"] * 50)),
        SimModel(ScriptedModel(["prose"] * 50)),
    )
    run = simulate_run(lambda: agent.run("go"), seed=seed, raise_errors=False)
    # pydantic-ai's own refusals (retries run out, bad output) or the model's own failure
    expected = (AgentRunError, UserError, AdversarialModelError)
    assert run.error is None or isinstance(run.error, expected)
    assert_handoffs_balanced(run)
    assert check_invariants(run.trace) == []
    assert all(h.depth <= POLICY.max_depth for h in run.trace.handoffs())


def test_the_policy_holds_under_generated_delegation_trees(handoff_fuzz):
    handoff_fuzz.check(POLICY, examples=25)
