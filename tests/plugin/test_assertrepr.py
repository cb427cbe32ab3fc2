"""``trace == other_trace`` failing shows a line diff of the two rendered traces."""

from __future__ import annotations

import pytest


def test_trace_comparison_shows_the_differing_events(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        from handoff_sim import simulate

        def run(agent_builder, latency):
            reviewer = agent_builder("reviewer", [{"text": "LGTM", "latency": latency}])
            manager = agent_builder(
                "manager",
                [agent_builder.delegate("subagent_reviewer", "x", id="c1"), "done"],
                subagents=[reviewer],
            )
            return simulate(manager, "go").trace

        def test_traces(agent_builder):
            assert run(agent_builder, 1) == run(agent_builder, 2)
        """
    )
    result = pytester.runpytest_inprocess()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "E       assert Trace(16 events) == Trace(16 events): first difference at event 9",
            "E         left:     9     1000ms   model_response        reviewer: step=1 *",
            "E         right:    9     2000ms   model_response        reviewer: step=1 *",
        ]
    )
    verbose = pytester.runpytest_inprocess("-vv")
    verbose.stdout.fnmatch_lines(
        [
            "E         --- left",
            "E         +++ right",
            'E         -   9     1000ms   model_response        reviewer: step=1 text="LGTM"*',
            'E         +   9     2000ms   model_response        reviewer: step=1 text="LGTM"*',
            "E         handoff trees:",
        ],
        consecutive=False,
    )


def test_other_comparisons_are_left_alone(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_numbers():\n    assert [1, 2] == [1, 3]\n")
    result = pytester.runpytest_inprocess()
    result.stdout.fnmatch_lines(["E         At index 1 diff: 2 != 3"])
