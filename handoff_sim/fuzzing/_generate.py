"""Scenario dicts generated from a stream of small choices, whatever makes the choices.

    from handoff_sim.fuzzing import RandomChoices, ScenarioOptions, scenario

    case = scenario(RandomChoices(seed=7), ScenarioOptions(max_depth=2))


One description of what a generated case looks like serves two sources of choices:
hypothesis (``handoff_sim.strategies`` wraps its ``draw``; shrinking and the example
database work as for any strategy) and a seeded ``random.Random``, which
``handoff-sim fuzz`` uses because a hypothesis draw costs tens of microseconds and a
case makes about a hundred of them. Every choice is an integer counted from its
smallest value, and the smallest value is always the simpler case (no optional key,
the first name of a pool, fewer children), so lowering or dropping choices shrinks.
This module imports no hypothesis.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, Protocol, TypeVar

from handoff_sim.subagents._naming import normalize_tool_name
from handoff_sim.testing import Behaviour
from handoff_sim.testing._adversarial import ALL_BEHAVIOURS, DEFAULT_BEHAVIOURS

__all__ = [
    "COLLIDING_NAMES",
    "LATENCIES",
    "Choices",
    "RandomChoices",
    "ReplayChoices",
    "ScenarioOptions",
    "adversarial_spec",
    "agent_names",
    "behaviour_pool",
    "policy_block",
    "scenario",
    "script",
]

T = TypeVar("T")

COLLIDING_NAMES: tuple[str, ...] = (
    "code-reviewer",
    "Code Reviewer",
    "code_reviewer",
    "CODE--REVIEWER",
    "__code reviewer__",
    "数据分析",
    "分析",
    "!!!",
    "agent",
    "3d-modeler",
    "3D Modeler",
    "Résumé Writer",
    "r sum writer",
)
"""Sub-agent names whose generated tool names collide in groups."""

FAILURE_ACTIONS = ("fail", "fallback_to_primary", "report_to_model")
TIMEOUTS: tuple[float | str, ...] = (0.05, 0.25, 1.0, 2.5, "500ms", "3s")
LATENCIES: tuple[float | str, ...] = (0, 0, 0.01, 0.1, 0.5, 1, 4, "250ms", "2s")
_HOSTILE_NAMES = ("no_such_tool", "subagent_ghost", "SUBAGENT_x", "tool with spaces", "数据")
_RAW_ARGUMENTS = ("{", "[]", "42", "null", '"text"', "{}", '{"task": 7}', "", "{'a': 1}")
_ERROR_TYPES = ("RuntimeError", "ValueError", "KeyError", "TimeoutError", "ConnectionError")
_INPUTS = ("analyze", "go on", "¿otra vez?")
_TASKS = ("", "review auth", "  padded  ", "数据", "multi\nline", "x" * 40)
_TEXTS = ("done", "", "LGTM", "結果", "ok\n")
_CALL_IDS = ("c1", "c2", "dup", "dup")
_TOOL_RETURNS = ("ok", "42", "{tool} done")
_OVERSIZED = (64, 1024, 8192)
_AGENT_NAMES = (
    "manager",
    "reviewer",
    "Researcher",
    "writer-2",
    "analyst",
    "qa.bot",
    "critic",
    "helper",
    "3d-modeler",
    "数据分析",
    "Résumé Writer",
    "планировщик",
    "editor",
    "lead",
)
_EXPLICIT = ("delegate_review", "Delegate-Work", "t1", "x" * 64)
_BAD_EXPLICIT = ("bad name", "y" * 65)
_PLAIN_TOOLS = ("lookup", "search", "flaky")
_RESERVED_TOOL = ("subagent_plain",)  # construction must refuse it: the prefix is reserved
_SEEDS = 2**16
_POLICY_FILTERS = ("keep", "arguments", "raises")


class Choices(Protocol):
    """Where a generated case gets its choices: an integer in ``[low, high]``, low is simplest."""

    def integer(self, low: int, high: int) -> int: ...


class RandomChoices:
    """Choices from a seeded ``random.Random``, uniform in each range.

    Every choice made is kept in :attr:`made`, to replay or shrink the case.
    """

    def __init__(self, seed: int) -> None:
        self._random = random.Random(seed).random
        self.made: list[int] = []

    def integer(self, low: int, high: int) -> int:
        offset = int(self._random() * (high - low + 1)) if high > low else 0
        self.made.append(offset)
        return low + offset


class ReplayChoices:
    """Choices read back from a list (offsets from each smallest value), for shrinking.

    An offset too large for its range is clamped, and past the end of the list every
    choice is its smallest value; :attr:`made` holds what was actually used.
    """

    def __init__(self, offsets: Sequence[int]) -> None:
        self._offsets = offsets
        self._next = 0
        self.made: list[int] = []

    def integer(self, low: int, high: int) -> int:
        offset = self._offsets[self._next] if self._next < len(self._offsets) else 0
        self._next += 1
        offset = min(max(offset, 0), high - low)
        self.made.append(offset)
        return low + offset


def boolean(choices: Choices) -> bool:
    """True or False; False is the simpler."""
    return choices.integer(0, 1) == 1


def one_in(choices: Choices, n: int) -> bool:
    """True one time in ``n`` (for a random source); False is the simpler."""
    return choices.integer(0, n - 1) == n - 1


def pick(choices: Choices, pool: Sequence[T]) -> T:
    """One element of ``pool``; the first is the simpler."""
    return pool[choices.integer(0, len(pool) - 1)]


def small(choices: Choices, low: int, high: int) -> int:
    """A number in ``[low, high]``, ``low`` a third of the time or more (knobs of a case).

    Hypothesis favours small numbers by itself; this gives a random source the same
    leaning, so both make cases of a like weight.
    """
    return low if choices.integer(0, 2) == 0 else choices.integer(low, high)


def size(choices: Choices, least: int, most: int) -> int:
    """How many items: ``least``, and one more for each "yes" in a row, up to ``most``.

    Short lists are the common case, as in hypothesis' own lists.
    """
    count = least
    while count < most and boolean(choices):
        count += 1
    return count


def distinct(choices: Choices, pool: Sequence[T], least: int, most: int) -> list[T]:
    """Between ``least`` and ``most`` distinct elements of ``pool``, in the order picked."""
    left = list(pool)
    count = size(choices, min(least, len(left)), min(most, len(left)))
    return [left.pop(choices.integer(0, len(left) - 1)) for _ in range(count)]


@dataclass(frozen=True)
class ScenarioOptions:
    """The knobs of a generated scenario (see ``handoff_sim.strategies.scenarios``)."""

    max_depth: int = 2
    max_breadth: int = 2
    models: tuple[str, ...] = ("adversarial", "script")
    unicode: bool = True
    collisions: bool = True
    endless: bool = True

    def __post_init__(self) -> None:
        unknown = set(self.models) - {"adversarial", "script"}
        if unknown or not self.models:
            raise ValueError(
                f"models must name 'adversarial' and/or 'script', got {list(self.models)}"
            )


def policy_block(choices: Choices, pool: tuple[str, ...]) -> dict[str, Any]:
    """A policy block in the scenario-file shape; ``pool`` feeds allowed/denied lists."""
    policy: dict[str, Any] = {}
    if boolean(choices):
        policy["enabled"] = boolean(choices)
    if boolean(choices):
        policy["max_depth"] = choices.integer(0, 3)
    if boolean(choices):
        policy["max_retries"] = choices.integer(0, 2)
    if boolean(choices):
        policy["timeout"] = pick(choices, TIMEOUTS)
    for key in ("allowed_tools", "denied_tools"):
        if boolean(choices):
            policy[key] = distinct(choices, pool, 0, 3)
    for key in ("on_denied", "on_error"):
        if boolean(choices):
            policy[key] = pick(choices, FAILURE_ACTIONS)
    if boolean(choices):
        policy["input_filter"] = _input_filter(pick(choices, _POLICY_FILTERS))
    return policy


def _input_filter(kind: str) -> dict[str, Any]:
    """A fresh declarative input-filter block (never shared between cases)."""
    if kind == "arguments":
        return {"arguments": {"task": "filtered task"}}
    if kind == "raises":
        return {"raises": "filter refused"}
    return {"keep": True}


def behaviour_pool(
    behaviours: Sequence[Behaviour | str] | None, endless: bool
) -> tuple[Behaviour, ...]:
    """The behaviours an adversarial model block draws from."""
    if behaviours:
        return tuple(Behaviour(b) for b in behaviours)
    return ALL_BEHAVIOURS if endless else DEFAULT_BEHAVIOURS


def adversarial_spec(choices: Choices, pool: tuple[Behaviour, ...]) -> dict[str, Any]:
    """``{"adversarial": {...}}``: a seed, a mix of behaviours and small knobs."""
    return {
        "adversarial": {
            "seed": choices.integer(0, _SEEDS),
            "behaviours": [b.value for b in distinct(choices, pool, 1, 4)],
            "max_turns": small(choices, 1, 3),
            "fan_out": small(choices, 1, 12),
            "oversized_bytes": pick(choices, _OVERSIZED),
        }
    }


def _call(choices: Choices, tools: Sequence[str]) -> dict[str, Any]:
    call: dict[str, Any] = {"name": pick(choices, (*tools, *_HOSTILE_NAMES))}
    if boolean(choices):
        call["arguments"] = pick(choices, _RAW_ARGUMENTS)
    else:
        arguments = {"task": pick(choices, _TASKS)}
        if boolean(choices):
            arguments["context"] = pick(choices, _TASKS)
        call["arguments"] = arguments
    if boolean(choices):
        call["id"] = pick(choices, _CALL_IDS)
    return call


def _tool_step(choices: Choices, tools: Sequence[str]) -> dict[str, Any]:
    step: dict[str, Any] = {
        "tool_calls": [_call(choices, tools) for _ in range(size(choices, 1, 3))]
    }
    if boolean(choices):
        step["latency"] = pick(choices, LATENCIES)
    if boolean(choices):
        step["text"] = "calling tools"
    return step


def _final_step(choices: Choices) -> dict[str, Any] | str:
    kind = choices.integer(0, 3)
    if kind == 0:
        return "done"
    if kind == 3:
        return {"error": "model provider failed"}
    step: dict[str, Any] = {"text": pick(choices, _TEXTS)}
    if boolean(choices):
        step["latency"] = pick(choices, LATENCIES)
    return step


def script(
    choices: Choices, tools: Sequence[str], max_runs: int = 3, max_tool_turns: int = 2
) -> list[dict[str, Any] | str]:
    """Script steps for one agent: per run, a few tool-call turns then a final answer."""
    steps: list[dict[str, Any] | str] = []
    for _ in range(size(choices, 1, max_runs)):
        for _ in range(size(choices, 0, max_tool_turns)):
            steps.append(_tool_step(choices, tools))
        steps.append(_final_step(choices))
    return steps


def _tool_spec(choices: Choices) -> dict[str, Any]:
    spec: dict[str, Any]
    if boolean(choices):
        spec = {"raises": {"type": pick(choices, _ERROR_TYPES), "message": "tool broke"}}
    else:
        spec = {"returns": pick(choices, _TOOL_RETURNS)}
    latency = pick(choices, LATENCIES)
    if latency:
        spec["latency"] = latency
    return spec


def _shape(choices: Choices, max_depth: int, max_breadth: int) -> list[int]:
    """Parent index of every node of a tree (the root's is -1), breadth-first."""
    parents, frontier, at = [-1], [(0, 0)], 0
    while at < len(frontier):
        node, depth = frontier[at]
        at += 1
        if depth >= max_depth:
            continue
        least = 1 if node == 0 and max_breadth > 0 else 0  # the entry agent delegates
        for _ in range(choices.integer(least, max_breadth)):
            parents.append(node)
            frontier.append((len(parents) - 1, depth + 1))
    return parents


def mount_tool_name(mount: dict[str, Any]) -> str:
    """The tool name a mount block gives its sub-agent."""
    explicit = mount.get("tool_name")
    return str(explicit) if explicit else normalize_tool_name(mount.get("name") or mount["agent"])


def _make_unique(tools: list[str], mounts: list[dict[str, Any]]) -> None:
    """Give a colliding mount an explicit, unique tool name."""
    used = set(tools)
    for index, mount in enumerate(mounts):
        name = mount_tool_name(mount)
        if name in used:
            name = mount["tool_name"] = f"{name[:56]}_{index}"
        used.add(name)


def agent_names(unicode: bool) -> tuple[str, ...]:
    """The pool of agent names, ASCII-only on request."""
    return _AGENT_NAMES if unicode else tuple(n for n in _AGENT_NAMES if n.isascii())


@cache
def agent_keys(unicode: bool, count: int) -> tuple[str, ...]:
    """At least ``count`` distinct agent names: the pool, then numbered copies of it.

    A deep, wide tree has more agents than the pool has names (``max_depth=4,
    max_breadth=3`` allows 121), so the pool is extended with ``manager-2``… .
    """
    pool = agent_names(unicode)
    names = list(pool)
    taken = set(names)
    copy = 2
    while len(names) < count:
        for base in pool:
            name = f"{base}-{copy}"
            if name not in taken:
                names.append(name)
                taken.add(name)
        copy += 1
    return tuple(names)


@cache
def _mount_names(unicode: bool, collisions: bool) -> tuple[str, ...]:
    return agent_names(unicode) + (COLLIDING_NAMES if collisions else ())


def _mount(choices: Choices, child: str, options: ScenarioOptions) -> dict[str, Any]:
    mount: dict[str, Any] = {"agent": child}
    if boolean(choices):
        mount["name"] = pick(choices, _mount_names(options.unicode, options.collisions))
    if one_in(choices, 4):
        mount["tool_name"] = pick(
            choices, _EXPLICIT + (_BAD_EXPLICIT if options.collisions else ())
        )
    if one_in(choices, 4):
        mount["session_mode"] = "reuse_session"
    return mount


def _agent(
    choices: Choices, children: list[str], plain: tuple[str, ...], options: ScenarioOptions
) -> dict[str, Any]:
    mounts = [_mount(choices, child, options) for child in children]
    tools = distinct(choices, plain, 0, 2) if plain else []
    if not options.collisions:
        _make_unique(tools, mounts)
    offered = [*tools, *(mount_tool_name(m) for m in mounts)]
    if pick(choices, options.models) == "adversarial":
        model = adversarial_spec(choices, behaviour_pool(None, options.endless))
    else:
        model = {"script": script(choices, offered)}
    agent: dict[str, Any] = {"model": model}
    if tools:
        agent["tools"] = tools
    if mounts:
        agent["subagents"] = mounts
        if boolean(choices):
            agent["policy"] = policy_block(choices, tuple(sorted({*offered, "other_tool"})))
    if boolean(choices):
        agent["parallel_tool_calls"] = True
    agent["max_steps"] = small(choices, 2, 8)
    return agent


def scenario(choices: Choices, options: ScenarioOptions) -> dict[str, Any]:
    """A whole scenario dict: an agent tree, tools, policies, models and turns."""
    parents = _shape(choices, options.max_depth, options.max_breadth)
    keys = distinct(choices, agent_keys(options.unicode, len(parents)), len(parents), len(parents))
    reserved = options.collisions and one_in(choices, 8)
    pool = _PLAIN_TOOLS + (_RESERVED_TOOL if reserved else ())
    plain = tuple(distinct(choices, pool, 0, 3))
    children: list[list[str]] = [[] for _ in keys]
    for index, parent in enumerate(parents[1:], 1):
        children[parent].append(keys[index])
    agents = {key: _agent(choices, children[i], plain, options) for i, key in enumerate(keys)}
    return {
        "scenario": f"fuzz-{choices.integer(0, _SEEDS)}",
        "description": "generated by handoff_sim.strategies.scenarios",
        "seed": choices.integer(0, _SEEDS),
        "entry": keys[0],
        "agents": agents,
        "tools": {name: _tool_spec(choices) for name in plain},
        "run": [pick(choices, _INPUTS) for _ in range(size(choices, 1, 2))],
    }
