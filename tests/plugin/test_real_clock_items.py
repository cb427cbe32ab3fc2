"""Issue 14, item 8 under pytest: a ``clock: real`` scenario is an item like any other,
run on a real event loop; its bounds are collection errors at file:line."""

from __future__ import annotations

import pytest

from tests.plugin.conftest import Write

REAL = """\
scenario: real
clock: real
agents:
  manager:
    policy: {timeout: 5ms}
    model:
      script:
        - tool_calls: [{id: c1, name: delegate_slow, arguments: {task: x}}]
        - done
    subagents: [{agent: slow, tool_name: delegate_slow}]
  slow:
    model: {script: [{text: late, latency: %s}]}
run: [go]
expect:
  output: done
  handoffs: [{status: failed, reason: timeout}]
"""


def test_a_real_clock_scenario_is_a_passing_item(
    pytester: pytest.Pytester, write_scenario: Write
) -> None:
    write_scenario("real.yaml", REAL % "1s")
    result = pytester.runpytest_inprocess("--handoff-scenarios", "scenarios", "-v")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*real.yaml::real PASSED*"])


def test_a_latency_over_the_real_clock_bound_is_a_collection_error_at_its_line(
    pytester: pytest.Pytester, write_scenario: Write
) -> None:
    write_scenario("real.yaml", REAL % "2s")
    result = pytester.runpytest_inprocess("--handoff-scenarios", "scenarios")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        ["*real.yaml:12:*: agents.slow.model.script.0.latency: must be <= 1s under clock: real*"]
    )
