"""Scenario files and a runner shared by the plugin's pytester tests."""

from __future__ import annotations

import pytest

PASSING = """\
scenario: delegate-review
description: the manager hands the review to the reviewer
tags: [smoke]
agents:
  manager:
    model:
      script:
        - tool_calls: [{id: c1, name: subagent_reviewer, arguments: {task: review}}]
        - text: done
    subagents: [reviewer]
  reviewer:
    model: {script: [LGTM]}
run: [go]
expect:
  output: done
  handoffs:
    - {tool: subagent_reviewer, status: completed, attempts: 1}
"""

FAILING = """\
scenario: wrong-expectations
tags: [nightly]
agents:
  manager:
    model:
      script:
        - tool_calls: [{id: c1, name: subagent_reviewer, arguments: {task: review}}]
        - text: done
    subagents: [reviewer]
  reviewer:
    model: {script: [LGTM]}
run: [go]
expect:
  output: finished
"""

MATRIX = """\
scenario: retry
agents:
  manager:
    model:
      script:
        - tool_calls: [{id: c1, name: subagent_flaky, arguments: {task: x}}]
        - text: done
    subagents: [flaky]
  flaky:
    model: {script: [{error: boom}, fixed]}
run: [go]
matrix:
  - id: no-retry
    policies: {manager: {max_retries: 0}}
    expect: {handoffs: [{tool: subagent_flaky, status: failed, attempts: 1}]}
  - id: one-retry
    policies: {manager: {max_retries: 1}}
    expect: {handoffs: [{tool: subagent_flaky, status: completed, attempts: 2}]}
"""

BROKEN = """\
scenario: broken
agents:
  manager:
    model: {script: [done]}
    policy:
      max_depth: -1
run: [go]
"""


ECHO_SCENARIO = """\
scenario: echo-kind
agents:
  bot:
    model: {kind: echo, prefix: "echo: "}
run: [hello]
expect:
  output: "echo: hello"
"""

ECHO_CONFTEST = """
from handoff_sim.testing import FunctionModel

def pytest_handoff_make_model(config, scenario, agent_name, model_spec):
    if model_spec["kind"] != "echo":
        return None
    prefix = model_spec["prefix"]
    return FunctionModel(lambda request: prefix + request.messages[-1].content)
"""

SNAPSHOT_SCENARIO = """\
scenario: snap
agents:
  manager:
    model:
      script:
        - tool_calls: [{id: c1, name: subagent_reviewer, arguments: {task: review}}]
        - text: done
    subagents: [reviewer]
  reviewer:
    model: {script: [{text: LGTM, latency: 250ms}]}
run: [go]
expect:
  snapshot: true
"""


def run(pytester: pytest.Pytester, mode: str, *args: str) -> pytest.RunResult:
    """Run pytest in the test project: in-process, or with ``-n 2`` (the controller in
    this process, its two workers in their own).

    The workers skip hypothesis' plugin: it imports all of hypothesis in every process.
    """
    if mode == "xdist":
        return pytester.runpytest_inprocess("-p", "no:hypothesispytest", "-n", "2", *args)
    return pytester.runpytest_inprocess(*args)
