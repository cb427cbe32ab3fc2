"""Hostile input filters (given by import path) and hostile confirmation policies.

Every case runs through ``run_hostile``: each start gets its end and no task is left on
the loop. A filter that misbehaves in a run fails its handoff with an InputFilterError
naming the filter, the tool and the agent; a confirmation policy that misbehaves gives
``error`` decisions, one per request, and the calls it was asked about never run.
"""

from __future__ import annotations

import asyncio
import re
import sys
import textwrap
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from handoff_sim import Agent, HandoffPolicy, SubAgent, check_invariants
from handoff_sim.errors import InputFilterError
from handoff_sim.events import ConfirmationDecisionEvent
from handoff_sim.styles.sophi import ConfirmationRequest, RiskLevel, sophi_agent
from handoff_sim.styles.sophi._confirmation import ConfirmationPolicy
from handoff_sim.testing import ScriptedModel
from tests._helpers import delegate, leaf, parent_of, turn
from tests.hostile._support import HostileOutcome, run_hostile
from tests.styles._support import Counter, call, counting_tool, definition

FILES = Path(__file__).parent / "files"


@pytest.fixture
def filters(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[tuple[str, Path]]:
    """A module of hostile filters under a name unique to the test, and where it is."""
    name = "hostile_filters_" + re.sub(r"\W", "_", request.node.name)
    source = """
        import asyncio, sys
        from handoff_sim import ToolCall

        def exits(call):
            sys.exit(5)

        def coroutine(call):
            async def later():
                return call
            return later()

        def renames(call):
            return ToolCall(call.id, "some_other_tool", call.arguments)

        def huge(call):
            return ToolCall(call.id, call.name, '{"task": "' + "x" * 2_000_000 + '"}')

        def keyboard(call):
            raise GeneratorExit("not an Exception subclass")
    """
    (tmp_path / f"{name}.py").write_text(textwrap.dedent(source), encoding="utf-8")
    yield name, tmp_path
    sys.modules.pop(name, None)


def writer_parent(reference: str, search: Path) -> Agent:
    policy = HandoffPolicy.from_block({"input_filter": {"python": reference}}, search=(search,))
    child = leaf("writer", {"text": "writer-ok"})
    sub = SubAgent("writer", agent=child, tool_name="delegate_writer")
    return parent_of([sub], turn(delegate("delegate_writer", id="c1")), policy=policy)


def handoff_error(outcome: HostileOutcome) -> str:
    (record,) = outcome.trace.handoffs()
    assert (record.status, record.attempts) == ("failed", 0)
    assert record.error is not None
    return record.error


def test_a_filter_calling_sys_exit_fails_its_handoff_and_the_run_goes_on(
    filters: tuple[str, Path],
) -> None:
    name, where = filters
    outcome = run_hostile(writer_parent(f"{name}:exits", where))
    assert handoff_error(outcome).endswith(
        f"input filter {name}:exits raised on tool 'delegate_writer' of agent 'parent': "
        "SystemExit: 5"
    )
    assert outcome.result.output == "done"


def test_a_filter_returning_a_coroutine_is_refused_and_the_coroutine_closed(
    filters: tuple[str, Path],
) -> None:
    name, where = filters
    outcome = run_hostile(writer_parent(f"{name}:coroutine", where))  # no "never awaited" warning
    assert "returned a coroutine (an input filter is not awaited)" in handoff_error(outcome)


def test_a_filter_renaming_the_call_still_reaches_the_mounted_sub_agent(
    filters: tuple[str, Path],
) -> None:
    name, where = filters
    outcome = run_hostile(writer_parent(f"{name}:renames", where))
    (record,) = outcome.trace.handoffs()
    assert (record.tool, record.status, record.output) == (
        "delegate_writer",
        "completed",
        "writer-ok",
    )


def test_a_filter_returning_huge_arguments_is_handled_like_any_input(
    filters: tuple[str, Path],
) -> None:
    name, where = filters
    outcome = run_hostile(writer_parent(f"{name}:huge", where))
    (record,) = outcome.trace.handoffs()
    assert record.status == "completed"


def test_a_base_exception_that_is_not_an_error_is_not_swallowed(
    filters: tuple[str, Path],
) -> None:
    name, where = filters
    outcome = run_hostile(writer_parent(f"{name}:keyboard", where), expect=GeneratorExit)
    assert isinstance(outcome.error, GeneratorExit)


def test_the_hostile_filter_module_of_the_corpus_is_refused_where_it_should_be() -> None:
    with pytest.raises(InputFilterError, match="NOT_CALLABLE is list, not a callable"):
        HandoffPolicy.from_block(
            {"input_filter": {"python": "hostile_input_filters:NOT_CALLABLE"}}, search=(FILES,)
        )
    sys.modules.pop("hostile_input_filters", None)


# -- hostile confirmation policies ----------------------------------------------------------


class RaisingLookup(Mapping[str, bool]):
    """A mapping whose every lookup raises."""

    def __getitem__(self, key: str) -> bool:
        raise RuntimeError("lookup exploded")

    def __iter__(self) -> Iterator[str]:
        return iter(())

    def __len__(self) -> int:
        return 0

    def get(self, key: str, default: Any = None) -> Any:
        raise RuntimeError("lookup exploded")


def sophi(policy: ConfirmationPolicy, counter: Counter, steps: list[Any]) -> Agent:
    return sophi_agent(
        "main",
        ScriptedModel(steps),
        definitions=[definition("operator", "danger")],
        registry=[counting_tool("danger", counter, RiskLevel.DESTRUCTIVE)],
        confirmation_policy=policy,
    )


def decisions(outcome: HostileOutcome) -> list[tuple[str, str, str | None]]:
    found = outcome.trace.of_type(ConfirmationDecisionEvent)
    return [(d.call_id, d.decision, d.error) for d in found]


def test_a_policy_answer_whose_lookup_raises_gives_error_decisions() -> None:
    counter = Counter()
    agent = sophi(lambda requests: RaisingLookup(), counter, [turn(call("danger", {}, "c1")), "x"])
    outcome = run_hostile(agent)
    assert decisions(outcome) == [("c1", "error", "RuntimeError: lookup exploded")]
    assert counter["danger"] == 0
    assert check_invariants(outcome.trace) == []


def test_truthy_answers_that_are_not_true_are_refusals() -> None:
    counter = Counter()

    def sloppy(requests: Sequence[ConfirmationRequest]) -> dict[str, Any]:
        return {r.call_id: "yes" for r in requests}

    outcome = run_hostile(sophi(sloppy, counter, [turn(call("danger", {}, "c1")), "x"]))
    assert decisions(outcome) == [("c1", "refused", None)]
    assert counter["danger"] == 0


def test_an_async_policy_that_raises_late_gives_error_decisions_at_that_time() -> None:
    counter = Counter()

    async def late(requests: Sequence[ConfirmationRequest]) -> dict[str, bool]:
        await asyncio.sleep(3)
        raise PermissionError("approver left")

    steps = [turn(call("danger", {}, "c1"), call("danger", {}, "c2")), "x"]
    outcome = run_hostile(sophi(late, counter, steps))
    assert decisions(outcome) == [
        ("c1", "error", "PermissionError: approver left"),
        ("c2", "error", "PermissionError: approver left"),
    ]
    assert {e.t for e in outcome.trace.of_type(ConfirmationDecisionEvent)} == {3.0}
    assert counter["danger"] == 0
    assert check_invariants(outcome.trace) == []


def test_a_policy_that_never_answers_is_cancelled_with_the_run_and_recorded() -> None:
    counter = Counter()

    async def never(requests: Sequence[ConfirmationRequest]) -> dict[str, bool]:
        await asyncio.Event().wait()
        return {}

    agent = sophi(never, counter, [turn(call("danger", {}, "c1")), "x"])

    async def cut_short() -> None:
        task = asyncio.ensure_future(agent.arun("go"))
        await asyncio.sleep(7)
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)

    outcome = run_hostile(cut_short)
    assert decisions(outcome) == [("c1", "cancelled", None)]
    assert check_invariants(outcome.trace) == []
