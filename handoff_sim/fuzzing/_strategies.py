"""The hypothesis strategies behind ``handoff_sim.strategies`` (their public home; see there).

They live in the fuzzing package because they feed its one generator (``generate.py``)
with hypothesis' draws, and the fuzzer's state machine and policy search use them.
Importing this module imports hypothesis and registers the strategies for ``st.from_type``.
"""

from __future__ import annotations

import string
from collections.abc import Callable, Sequence
from functools import cache
from typing import TYPE_CHECKING, Any, TypeVar

from hypothesis import strategies as st

from handoff_sim.fuzzing import _generate as gen
from handoff_sim.fuzzing._generate import COLLIDING_NAMES, ScenarioOptions
from handoff_sim.subagents._definition import SubAgent
from handoff_sim.subagents._policy import HandoffPolicy
from handoff_sim.testing import Behaviour

if TYPE_CHECKING:
    from handoff_sim._agent import Agent
    from handoff_sim.scenarios import ScenarioSpec

__all__ = [
    "COLLIDING_NAMES",
    "adversarial_specs",
    "agent_trees",
    "durations",
    "names",
    "policies",
    "policy_dicts",
    "register_type_strategies",
    "scenario_specs",
    "scenarios",
    "scripts",
    "sub_agents",
    "tool_names",
]

T = TypeVar("T")
_IDENTIFIER = string.ascii_letters + string.digits + "_-"
_BOOLEANS = st.booleans()


class _DrawChoices:
    """The generator's choices as hypothesis draws, so hypothesis shrinks and replays them."""

    def __init__(self, draw: st.DrawFn) -> None:
        self._draw = draw

    def integer(self, low: int, high: int) -> int:
        if high <= low:
            return low
        if high == low + 1:
            return low + int(self._draw(_BOOLEANS))
        return self._draw(_integers(low, high))


@cache
def _integers(low: int, high: int) -> st.SearchStrategy[int]:
    return st.integers(low, high)


def _generated(make: Callable[[gen.Choices], T]) -> st.SearchStrategy[T]:
    """A strategy drawing ``make``'s choices from hypothesis."""

    @st.composite
    def build(draw: st.DrawFn) -> T:
        return make(_DrawChoices(draw))

    return build()


def names(*, unicode: bool = True, collisions: bool = True) -> st.SearchStrategy[str]:
    """Agent or sub-agent names: non-blank, trimmed; unicode and colliding ones on request."""
    return _names(unicode, collisions)


@cache
def _names(unicode: bool, collisions: bool) -> st.SearchStrategy[str]:
    parts: list[st.SearchStrategy[str]] = [
        st.from_regex(r"[A-Za-z][A-Za-z0-9 _.-]{0,14}[A-Za-z0-9]", fullmatch=True),
    ]
    if unicode:
        parts.append(
            st.text(
                st.characters(exclude_categories=("Cs", "Cc", "Zs", "Zl", "Zp")),
                min_size=1,
                max_size=10,
            )
        )
    if collisions:
        parts.append(st.sampled_from(COLLIDING_NAMES))
    return st.one_of(parts).map(str.strip).filter(bool)


def tool_names() -> st.SearchStrategy[str]:
    """Valid explicit tool names, ``^[A-Za-z0-9_-]{1,64}$``, never the reserved prefix."""
    return st.text(st.sampled_from(_IDENTIFIER), min_size=1, max_size=24).filter(
        lambda s: not s.startswith("subagent_")
    )


def durations() -> st.SearchStrategy[float | str]:
    """Latencies as scenario files write them: seconds or strings like ``"250ms"``."""
    return st.sampled_from(gen.LATENCIES)


def policy_dicts(*, tools: Sequence[str] = ()) -> st.SearchStrategy[dict[str, Any]]:
    """Policy blocks in the scenario-file shape; ``tools`` feeds allowed/denied lists."""
    return _policy_dicts(tuple(sorted({*tools, "other_tool"})))


@cache
def _policy_dicts(pool: tuple[str, ...]) -> st.SearchStrategy[dict[str, Any]]:
    return _generated(lambda choices: gen.policy_block(choices, pool))


def policies(*, tools: Sequence[str] = ()) -> st.SearchStrategy[HandoffPolicy]:
    """Valid :class:`HandoffPolicy` values, input filters included."""
    return policy_dicts(tools=tools).map(HandoffPolicy.from_block)


def adversarial_specs(
    *, behaviours: Sequence[Behaviour | str] | None = None, endless: bool = True
) -> st.SearchStrategy[dict[str, Any]]:
    """``{"adversarial": {...}}`` model blocks: a seed, a mix of behaviours and small knobs."""
    return _adversarial_specs(gen.behaviour_pool(behaviours, endless))


@cache
def _adversarial_specs(pool: tuple[Behaviour, ...]) -> st.SearchStrategy[dict[str, Any]]:
    return _generated(lambda choices: gen.adversarial_spec(choices, pool))


def scripts(
    *, tools: Sequence[str] = (), max_runs: int = 3, max_tool_turns: int = 2
) -> st.SearchStrategy[list[dict[str, Any] | str]]:
    """Script steps for one agent: per run, a few tool-call turns then a final answer."""
    return _scripts(tuple(tools), max_runs, max_tool_turns)


@cache
def _scripts(
    tools: tuple[str, ...], max_runs: int, max_tool_turns: int
) -> st.SearchStrategy[list[dict[str, Any] | str]]:
    return _generated(lambda choices: gen.script(choices, tools, max_runs, max_tool_turns))


def scenarios(
    *,
    max_depth: int = 2,
    max_breadth: int = 2,
    models: Sequence[str] = ("adversarial", "script"),
    unicode: bool = True,
    collisions: bool = True,
    endless: bool = True,
) -> st.SearchStrategy[dict[str, Any]]:
    """Whole scenarios as scenario-file dicts: an agent tree, tools, policies, models, turns.

    Args:
        max_depth: deepest sub-agent level (the entry agent is level 0).
        max_breadth: most sub-agents one agent mounts.
        models: model kinds to draw from: ``"adversarial"`` and/or ``"script"``.
        unicode: allow non-ASCII agent and sub-agent names.
        collisions: allow colliding sub-agent names and a reserved-prefix tool, so that
            some scenarios must fail at construction.
        endless: allow the ``endless_latency`` adversarial behaviour.
    """
    options = ScenarioOptions(
        max_depth=max_depth,
        max_breadth=max_breadth,
        models=tuple(models),
        unicode=unicode,
        collisions=collisions,
        endless=endless,
    )
    return _scenarios(options)


@cache
def _scenarios(options: ScenarioOptions) -> st.SearchStrategy[dict[str, Any]]:
    return _generated(lambda choices: gen.scenario(choices, options))


def scenario_specs(
    *, max_depth: int = 2, max_breadth: int = 2, models: Sequence[str] = ("adversarial", "script")
) -> st.SearchStrategy[ScenarioSpec]:
    """Validated :class:`~handoff_sim.scenarios.ScenarioSpec` values of :func:`scenarios`."""
    from handoff_sim.scenarios import ScenarioSpec

    return scenarios(max_depth=max_depth, max_breadth=max_breadth, models=models).map(
        ScenarioSpec.model_validate
    )


def agent_trees(
    *, max_depth: int = 2, max_breadth: int = 2, models: Sequence[str] = ("adversarial", "script")
) -> st.SearchStrategy[Agent]:
    """Built entry agents with fresh models: a sub-agent tree of bounded depth and breadth."""
    from handoff_sim.fuzzing._case import build_case

    return scenarios(
        max_depth=max_depth, max_breadth=max_breadth, models=models, collisions=False
    ).map(build_case)


def sub_agents(
    *, max_depth: int = 1, max_breadth: int = 2, models: Sequence[str] = ("adversarial", "script")
) -> st.SearchStrategy[SubAgent]:
    """:class:`SubAgent` mounts of a built agent tree, under a generated name and tool name."""
    mount = st.fixed_dictionaries(
        {"name": st.sampled_from(gen.agent_names(True))},
        optional={
            "tool_name": st.sampled_from(("delegate_review", "Delegate-Work", "t1")),
            "session_mode": st.just("reuse_session"),
        },
    )
    trees = agent_trees(max_depth=max_depth, max_breadth=max_breadth, models=models)
    return st.builds(lambda options, agent: SubAgent(agent=agent, **options), mount, trees)


def register_type_strategies() -> None:
    """Teach ``st.from_type`` the handoff types: policy, sub-agent, agent tree, scenario."""
    from handoff_sim._agent import Agent
    from handoff_sim.scenarios import ScenarioSpec

    st.register_type_strategy(HandoffPolicy, lambda _type: policies())
    st.register_type_strategy(SubAgent, lambda _type: sub_agents())
    st.register_type_strategy(Agent, lambda _type: agent_trees())
    st.register_type_strategy(ScenarioSpec, lambda _type: scenario_specs())


register_type_strategies()
