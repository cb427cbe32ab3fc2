"""Which failed attempts are retried: the policy's ``retry_on``, the mount's ``retryable``."""

from __future__ import annotations

import asyncio
import re
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from handoff_sim import (
    Agent,
    FailureAction,
    HandoffDeniedError,
    HandoffPolicy,
    RunResult,
    SubAgent,
    check_invariants,
    simulate,
)
from handoff_sim.errors import PolicyError, RetryClassifierError
from handoff_sim.events import HandoffAttemptEndEvent
from handoff_sim.messages import ModelRequest
from handoff_sim.testing import FunctionModel
from tests._helpers import RecordingExecutor, delegate, ends, parent_of, tool_results, turn


class Tripwire(Exception):
    """An error no retry can fix (as a framework's guardrail tripwire)."""


class Flaky(Exception):
    """An error a retry may fix."""


def _raising(*errors: BaseException | None, seen: list[str] | None = None) -> FunctionModel:
    """A model raising ``errors`` one call after another; ``None`` answers ``child-ok``."""
    queue = list(errors)

    async def answer(request: ModelRequest) -> str:
        error = queue.pop(0) if queue else None
        if seen is not None:
            seen.append(type(error).__name__ if error else "ok")
        if error is not None:
            raise error
        return "child-ok"

    return FunctionModel(answer)


def _run(
    policy: HandoffPolicy, *errors: BaseException | None, **mount: object
) -> tuple[RunResult, list[str]]:
    seen: list[str] = []
    child = Agent(name="writer", model=_raising(*errors, seen=seen))
    sub = SubAgent("writer", agent=child, tool_name="delegate_writer", **mount)  # type: ignore[arg-type]
    parent = parent_of([sub], turn(delegate("delegate_writer", id="c1")), policy=policy)
    return simulate(parent, "go"), seen


def _outcomes(result: RunResult) -> list[str]:
    return [e.outcome for e in result.trace if isinstance(e, HandoffAttemptEndEvent)]


def _not_a_tripwire(error: BaseException) -> bool:
    return not isinstance(error, Tripwire)


def test_every_error_is_retried_when_neither_policy_nor_mount_classifies() -> None:
    result, seen = _run(HandoffPolicy(max_retries=2), Tripwire("no"), Flaky("again"), None)
    (end,) = ends(result.trace)
    assert (end.status, end.attempts, seen) == ("completed", 3, ["Tripwire", "Flaky", "ok"])


def test_retry_on_false_ends_the_handoff_after_that_attempt() -> None:
    policy = HandoffPolicy(max_retries=3, retry_on=_not_a_tripwire)
    result, seen = _run(policy, Flaky("once"), Tripwire("tripped"), None)
    (end,) = ends(result.trace)
    assert (end.status, end.reason, end.attempts, end.error) == ("failed", "error", 2, "tripped")
    assert seen == ["Flaky", "Tripwire"]
    assert _outcomes(result) == ["error", "error"]
    assert tool_results(result.messages)[0].content == "Error: Tripwire: tripped"
    check_invariants(result.trace)


def test_mount_retryable_decides_when_the_policy_does_not() -> None:
    result, seen = _run(
        HandoffPolicy(max_retries=3), Tripwire("tripped"), retryable=_not_a_tripwire
    )
    (end,) = ends(result.trace)
    assert (end.status, end.reason, end.attempts, seen) == ("failed", "error", 1, ["Tripwire"])


def test_policy_retry_on_overrides_the_mount_retryable() -> None:
    policy = HandoffPolicy(max_retries=1, retry_on=lambda error: True)
    result, seen = _run(policy, Tripwire("tripped"), None, retryable=_not_a_tripwire)
    (end,) = ends(result.trace)
    assert (end.status, end.attempts, seen) == ("completed", 2, ["Tripwire", "ok"])


def test_policy_retry_on_can_refuse_what_the_mount_would_retry() -> None:
    policy = HandoffPolicy(max_retries=2, retry_on=lambda error: False)
    result, seen = _run(policy, Flaky("x"), None, retryable=lambda error: True)
    assert (ends(result.trace)[0].attempts, seen) == (1, ["Flaky"])


def test_a_timeout_is_retried_whatever_retry_on_says() -> None:
    asked: list[BaseException] = []

    def never(error: BaseException) -> bool:
        asked.append(error)
        return False

    latencies = [10.0, 0.0]  # the first attempt times out, the second answers

    async def slow_then_ok(request: ModelRequest) -> str:
        await asyncio.sleep(latencies.pop(0))
        return "child-ok"

    child = Agent(name="writer", model=FunctionModel(slow_then_ok))
    sub = SubAgent("writer", agent=child, tool_name="delegate_writer", retryable=never)
    policy = HandoffPolicy(max_retries=1, timeout=1, retry_on=never)
    parent = parent_of([sub], turn(delegate("delegate_writer")), policy=policy)
    result = simulate(parent, "go")
    (end,) = ends(result.trace)
    assert (end.status, end.attempts, asked) == ("completed", 2, [])
    assert _outcomes(result) == ["timeout", "ok"]


def test_the_last_attempt_does_not_ask_the_classification() -> None:
    asked: list[str] = []

    def record(error: BaseException) -> bool:
        asked.append(str(error))
        return True

    result, _ = _run(HandoffPolicy(max_retries=1, retry_on=record), Flaky("a"), Flaky("b"))
    assert (ends(result.trace)[0].attempts, asked) == (2, ["a"])


def test_a_nested_denial_is_never_retried_even_if_retry_on_says_so() -> None:
    grandchild = Agent(name="deep", model=_raising(None))
    child = parent_of(
        [SubAgent("deep", agent=grandchild)],
        turn(delegate("subagent_deep")),
        name="writer",
        policy=HandoffPolicy(),
    )
    policy = HandoffPolicy(max_retries=3, retry_on=lambda error: True)
    parent = parent_of(
        [SubAgent("writer", agent=child)], turn(delegate("subagent_writer")), policy=policy
    )
    with pytest.raises(HandoffDeniedError):
        simulate(parent, "go")


def test_an_unretried_error_goes_to_the_fallback_under_on_error_fallback() -> None:
    primary = RecordingExecutor("primary-ok")
    policy = HandoffPolicy(
        max_retries=3, retry_on=_not_a_tripwire, on_error=FailureAction.FALLBACK_TO_PRIMARY
    )
    child = Agent(name="writer", model=_raising(Tripwire("tripped")))
    sub = SubAgent("writer", agent=child, tool_name="delegate_writer")
    parent = parent_of(
        [sub], turn(delegate("delegate_writer")), policy=policy, tool_executor=primary
    )
    result = simulate(parent, "go")
    (end,) = ends(result.trace)
    assert (end.status, end.reason, end.attempts) == ("fallback", "error", 1)


@pytest.mark.parametrize(
    ("rule", "problem"),
    [
        (lambda error: 1 / 0, r"raised on Tripwire: tripped: ZeroDivisionError: division by zero"),
        (lambda error: "yes", r"returned str on Tripwire: tripped; it must return True or False"),
    ],
    ids=["raises", "not-a-bool"],
)
def test_a_failing_retry_on_ends_the_handoff_with_an_error_naming_it(
    rule: Callable[[BaseException], bool], problem: str
) -> None:
    result, seen = _run(HandoffPolicy(max_retries=3, retry_on=rule), Tripwire("tripped"), None)
    (end,) = ends(result.trace)
    assert (end.status, end.reason, end.attempts, seen) == ("failed", "error", 1, ["Tripwire"])
    assert end.error is not None
    assert re.search(r"^retry_on \S+<lambda> " + problem, end.error), end.error
    content = tool_results(result.messages)[0].content
    assert content.startswith("Error: RetryClassifierError: retry_on ")


def test_retry_on_must_be_a_plain_function() -> None:
    async def asynchronous(error: BaseException) -> bool:
        return True

    with pytest.raises(PolicyError, match=r"HandoffPolicy\.retry_on: is an async function"):
        HandoffPolicy(retry_on=asynchronous)  # type: ignore[arg-type]
    with pytest.raises(PolicyError, match=r"HandoffPolicy\.retry_on: must be a function"):
        HandoffPolicy(retry_on=5)  # type: ignore[arg-type]


def test_subagent_retryable_must_be_a_plain_function() -> None:
    child = Agent(name="writer", model=_raising(None))
    with pytest.raises(RetryClassifierError, match=r"subagent 'writer': retryable must be"):
        SubAgent("writer", agent=child, retryable="Tripwire")  # type: ignore[arg-type]


def test_a_policy_with_retry_on_stays_frozen_and_hashable() -> None:
    policy = HandoffPolicy(retry_on=_not_a_tripwire)
    assert hash(policy) == hash(HandoffPolicy(retry_on=_not_a_tripwire))
    with pytest.raises(Exception, match="frozen"):
        policy.retry_on = None  # type: ignore[misc]


# --- the file form: retry_on: {python: package.module:function} ---

CLASSIFIERS = """
    def not_value_errors(error):
        return not isinstance(error, ValueError)

    def never(error):
        return False

    def two(error, extra):
        return True

    value = 5
"""


@pytest.fixture
def module(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[str]:
    name = "retry_" + re.sub(r"\W", "_", request.node.name)
    (tmp_path / f"{name}.py").write_text(textwrap.dedent(CLASSIFIERS), encoding="utf-8")
    yield name
    sys.modules.pop(name, None)


def test_retry_on_by_import_path_classifies_errors(module: str, tmp_path: Path) -> None:
    block = {"max_retries": 2, "retry_on": {"python": f"{module}:not_value_errors"}}
    policy = HandoffPolicy.from_block(block, search=(tmp_path,))
    assert policy == HandoffPolicy.from_block(block, search=(tmp_path,))
    result, seen = _run(policy, Flaky("x"), ValueError("bad"), None)
    assert (ends(result.trace)[0].attempts, seen) == (2, ["Flaky", "ValueError"])


@pytest.mark.parametrize(
    ("attribute", "problem"),
    [
        ("missing", "has no attribute 'missing'"),
        ("two", "cannot be called with one argument (the error)"),
        ("value", "must be a function of the error returning a bool, got int"),
    ],
)
def test_an_unusable_retry_on_reference_is_refused_when_the_policy_is_built(
    module: str, tmp_path: Path, attribute: str, problem: str
) -> None:
    block = {"retry_on": {"python": f"{module}:{attribute}"}}
    with pytest.raises(RetryClassifierError) as caught:
        HandoffPolicy.from_block(block, search=(tmp_path,))
    assert problem in str(caught.value)


def test_a_malformed_retry_on_block_names_the_field() -> None:
    with pytest.raises(PolicyError, match=r"HandoffPolicy\.retry_on\.python: must be an import"):
        HandoffPolicy.from_block({"retry_on": {"python": "no_colon"}})
    with pytest.raises(PolicyError, match=r"HandoffPolicy\.retry_on\.extra"):
        HandoffPolicy.from_block({"retry_on": {"python": "a:b", "extra": 1}})


def _scenario_file(tmp_path: Path, reference: str) -> Path:
    path = tmp_path / "s.yaml"
    path.write_text(
        textwrap.dedent(
            f"""\
            scenario: retry-classification
            agents:
              manager:
                policy:
                  max_retries: 3
                  retry_on: {{python: "{reference}"}}
                model:
                  script:
                    - tool_calls: [{{id: c1, name: delegate_worker, arguments: {{task: x}}}}]
                    - done
                subagents: [{{agent: worker, tool_name: delegate_worker}}]
              worker:
                model:
                  script:
                    - {{error: invalid}}
                    - never reached
            run: [go]
            expect:
              output: done
              handoffs: [{{status: failed, reason: error, attempts: 1}}]
            """
        ),
        encoding="utf-8",
    )
    return path


def test_a_scenario_file_s_retry_on_is_imported_next_to_it(module: str, tmp_path: Path) -> None:
    from handoff_sim.scenarios import run_scenario

    result = run_scenario(_scenario_file(tmp_path, f"{module}:never"))
    assert result.passed, result.render_failure()


def test_validate_does_not_import_retry_on_and_run_names_the_file_and_line(
    tmp_path: Path,
) -> None:
    from handoff_sim.cli import main
    from handoff_sim.scenarios import run_scenario

    path = _scenario_file(tmp_path, "absent_retry_module:decide")
    assert main(["validate", str(path)]) == 0
    result = run_scenario(path)
    assert isinstance(result.error, RetryClassifierError)
    assert str(result.error).startswith(
        f"{path}:6: agents.manager.policy.retry_on.python: cannot import module "
        "'absent_retry_module'"
    )


def test_the_json_schema_offers_retry_on_as_an_import_path() -> None:
    from handoff_sim.scenarios._schema import scenario_json_schema

    defs = scenario_json_schema()["$defs"]
    assert defs["RetryOnBlock"]["required"] == ["python"]
    assert defs["RetryOnBlock"]["additionalProperties"] is False
