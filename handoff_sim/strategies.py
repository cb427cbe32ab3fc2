"""Hypothesis strategies for handoff configurations: names, policies, scripts, scenarios.

Every function returns a strategy, so you can pass parameters and pay nothing
at import time::

    from hypothesis import given
    from handoff_sim import strategies as hs

    @given(policy=hs.policies(), scenario=hs.scenarios(max_depth=2))
    def test_my_runtime(policy, scenario): ...

``st.from_type(HandoffPolicy)`` draws from :func:`policies`: importing this module
registers it, and so does the ``hypothesis`` entry point of this package as soon as
both hypothesis and ``handoff_sim`` are imported, in either order. Scenario dicts have
the scenario-file shape (``handoff_sim.scenarios``); adversarial model blocks
may carry ``max_turns``, ``fan_out`` and ``oversized_bytes`` knobs.
"""

from __future__ import annotations

import string
from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING, Any

from hypothesis import strategies as st

from handoff_sim.subagents import HandoffPolicy, normalize_tool_name
from handoff_sim.testing.adversarial import ALL_BEHAVIOURS, DEFAULT_BEHAVIOURS, Behaviour

if TYPE_CHECKING:
    from handoff_sim.agent import Agent

__all__ = [
    "COLLIDING_NAMES",
    "adversarial_specs",
    "agent_trees",
    "durations",
    "names",
    "policies",
    "policy_dicts",
    "scenarios",
    "scripts",
    "tool_names",
]

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

_FAILURE_ACTIONS = ("fail", "fallback_to_primary", "report_to_model")
_TIMEOUTS: tuple[float | str, ...] = (0.05, 0.25, 1.0, 2.5, "500ms", "3s")
_LATENCIES: tuple[float | str, ...] = (0, 0, 0.01, 0.1, 0.5, 1, 4, "250ms", "2s")
_HOSTILE_NAMES = ("no_such_tool", "subagent_ghost", "SUBAGENT_x", "tool with spaces", "数据")
_RAW_ARGUMENTS = ("{", "[]", "42", "null", '"text"', "{}", '{"task": 7}', "", "{'a': 1}")
_ERROR_TYPES = ("RuntimeError", "ValueError", "KeyError", "TimeoutError", "ConnectionError")
_INPUTS = ("analyze", "go on", "¿otra vez?")
_TASKS = ("", "review auth", "  padded  ", "数据", "multi\nline", "x" * 40)
_TEXTS = ("done", "", "LGTM", "結果", "ok\n")
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
_BOOLEANS = st.booleans()
_ONE_IN_FOUR = st.integers(0, 3).map(lambda n: n == 0)
_MAX_STEPS = st.integers(2, 8)
_SEEDS = st.integers(0, 2**16)
_IDENTIFIER = string.ascii_letters + string.digits + "_-"


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
    return st.sampled_from(_LATENCIES)


def policy_dicts(*, tools: Sequence[str] = ()) -> st.SearchStrategy[dict[str, Any]]:
    """Policy blocks in the scenario-file shape; ``tools`` feeds allowed/denied lists."""
    return _policy_dicts(tuple(sorted({*tools, "other_tool"})))


@cache
def _policy_dicts(pool: tuple[str, ...]) -> st.SearchStrategy[dict[str, Any]]:
    tool_lists = st.none() | st.lists(st.sampled_from(pool), max_size=3, unique=True)
    filters = st.none() | st.sampled_from(
        [{"keep": True}, {"arguments": {"task": "filtered task"}}, {"raises": "filter refused"}]
    )
    return st.fixed_dictionaries(
        {},
        optional={
            "enabled": st.booleans(),
            "max_depth": st.integers(0, 3),
            "max_retries": st.integers(0, 2),
            "timeout": st.sampled_from(_TIMEOUTS),
            "allowed_tools": tool_lists,
            "denied_tools": tool_lists,
            "on_denied": st.sampled_from(_FAILURE_ACTIONS),
            "on_error": st.sampled_from(_FAILURE_ACTIONS),
            "input_filter": filters,
        },
    ).map(lambda d: {k: v for k, v in d.items() if v is not None})


def policies(*, tools: Sequence[str] = ()) -> st.SearchStrategy[HandoffPolicy]:
    """Valid :class:`HandoffPolicy` values, input filters included."""
    return policy_dicts(tools=tools).map(HandoffPolicy.from_block)


def adversarial_specs(
    *, behaviours: Sequence[Behaviour | str] | None = None, endless: bool = True
) -> st.SearchStrategy[dict[str, Any]]:
    """``{"adversarial": {...}}`` model blocks: a seed, a mix of behaviours and small knobs."""
    pool = (
        tuple(Behaviour(b) for b in behaviours)
        if behaviours
        else (ALL_BEHAVIOURS if endless else DEFAULT_BEHAVIOURS)
    )
    return _adversarial_specs(pool)


@cache
def _adversarial_specs(pool: tuple[Behaviour, ...]) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {
            "seed": st.integers(0, 2**16),
            "behaviours": st.lists(st.sampled_from(pool), min_size=1, max_size=4, unique=True).map(
                lambda bs: [b.value for b in bs]
            ),
            "max_turns": st.integers(1, 3),
            "fan_out": st.integers(1, 12),
            "oversized_bytes": st.sampled_from([64, 1024, 8192]),
        }
    ).map(lambda spec: {"adversarial": spec})


def _call(tools: Sequence[str]) -> st.SearchStrategy[dict[str, Any]]:
    task = st.sampled_from(_TASKS)
    arguments = st.one_of(
        st.fixed_dictionaries({"task": task}, optional={"context": task}),
        st.sampled_from(_RAW_ARGUMENTS),
    )
    return st.fixed_dictionaries(
        {"name": st.sampled_from([*tools, *_HOSTILE_NAMES]), "arguments": arguments},
        optional={"id": st.sampled_from(["c1", "c2", "dup", "dup"])},
    )


def _tool_step(tools: Sequence[str]) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {"tool_calls": st.lists(_call(tools), min_size=1, max_size=3)},
        optional={"latency": durations(), "text": st.just("calling tools")},
    )


def _final_step() -> st.SearchStrategy[dict[str, Any] | str]:
    text = st.fixed_dictionaries(
        {"text": st.sampled_from(_TEXTS)}, optional={"latency": durations()}
    )
    error = st.fixed_dictionaries({"error": st.just("model provider failed")})
    return st.one_of(text, text, st.just("done"), error)


def scripts(
    *, tools: Sequence[str] = (), max_runs: int = 3, max_tool_turns: int = 2
) -> st.SearchStrategy[list[dict[str, Any] | str]]:
    """Script steps for one agent: per run, a few tool-call turns then a final answer."""
    return _scripts(tuple(tools), max_runs, max_tool_turns)


@cache
def _scripts(
    tools: tuple[str, ...], max_runs: int, max_tool_turns: int
) -> st.SearchStrategy[list[dict[str, Any] | str]]:
    tool_step = _tool_step(tools)
    final_step = _final_step()

    @st.composite
    def build(draw: st.DrawFn) -> list[dict[str, Any] | str]:
        steps: list[dict[str, Any] | str] = []
        for _ in range(draw(st.integers(1, max_runs))):
            steps.extend(draw(st.lists(tool_step, max_size=max_tool_turns)))
            steps.append(draw(final_step))
        return steps

    return build()


@cache
def _tool_spec() -> st.SearchStrategy[dict[str, Any]]:
    returns = st.fixed_dictionaries({"returns": st.sampled_from(["ok", "42", "{tool} done"])})
    raises = st.fixed_dictionaries(
        {
            "raises": st.fixed_dictionaries(
                {"type": st.sampled_from(_ERROR_TYPES), "message": st.just("tool broke")}
            )
        }
    )
    return st.tuples(st.one_of(returns, raises), st.sampled_from(_LATENCIES)).map(
        lambda pair: {**pair[0], "latency": pair[1]} if pair[1] else pair[0]
    )


@st.composite
def _shape(draw: st.DrawFn, max_depth: int, max_breadth: int) -> list[int]:
    """Parent index of every node of a tree (the root's is -1), breadth-first."""
    parents, frontier = [-1], [(0, 0)]
    while frontier:
        node, depth = frontier.pop(0)
        if depth >= max_depth:
            continue
        least = 1 if node == 0 and max_breadth > 0 else 0  # the entry agent delegates
        for _ in range(draw(st.integers(least, max_breadth))):
            parents.append(node)
            frontier.append((len(parents) - 1, depth + 1))
    return parents


def _mount_tool_name(mount: dict[str, Any]) -> str:
    explicit = mount.get("tool_name")
    return str(explicit) if explicit else normalize_tool_name(mount.get("name") or mount["agent"])


def _make_unique(tools: list[str], mounts: list[dict[str, Any]]) -> None:
    """Give a colliding mount an explicit, unique tool name."""
    used = set(tools)
    for index, mount in enumerate(mounts):
        name = _mount_tool_name(mount)
        if name in used:
            name = mount["tool_name"] = f"{name[:56]}_{index}"
        used.add(name)


@cache
def _mount_names(unicode: bool, collisions: bool) -> st.SearchStrategy[str]:
    pool = _agent_names(unicode) + (COLLIDING_NAMES if collisions else ())
    return st.sampled_from(pool)


@cache
def _explicit_tool_names(collisions: bool) -> st.SearchStrategy[str]:
    return st.sampled_from(_EXPLICIT + (_BAD_EXPLICIT if collisions else ()))


def _agent_names(unicode: bool) -> tuple[str, ...]:
    return _AGENT_NAMES if unicode else tuple(n for n in _AGENT_NAMES if n.isascii())


@cache
def _agent_keys(unicode: bool, count: int) -> tuple[str, ...]:
    """At least ``count`` distinct agent names: the pool, then numbered copies of it.

    A deep, wide tree has more agents than the pool has names (``max_depth=4,
    max_breadth=3`` allows 121), so the pool is extended with ``manager-2``… .
    """
    pool = _agent_names(unicode)
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


@st.composite
def _mount(draw: st.DrawFn, child: str, options: dict[str, Any]) -> dict[str, Any]:
    mount: dict[str, Any] = {"agent": child}
    if draw(_BOOLEANS):
        mount["name"] = draw(_mount_names(options["unicode"], options["collisions"]))
    if draw(_ONE_IN_FOUR):
        mount["tool_name"] = draw(_explicit_tool_names(options["collisions"]))
    if draw(_ONE_IN_FOUR):
        mount["session_mode"] = "reuse_session"
    return mount


@st.composite
def _agent(
    draw: st.DrawFn, children: list[str], plain: tuple[str, ...], options: dict[str, Any]
) -> dict[str, Any]:
    mounts = [draw(_mount(child, options)) for child in children]
    tools = draw(st.lists(st.sampled_from(plain), unique=True, max_size=2)) if plain else []
    if not options["collisions"]:
        _make_unique(tools, mounts)
    offered = [*tools, *(_mount_tool_name(m) for m in mounts)]
    kind = draw(st.sampled_from(options["models"]))
    model = (
        draw(adversarial_specs(endless=options["endless"]))
        if kind == "adversarial"
        else {"script": draw(scripts(tools=offered))}
    )
    agent: dict[str, Any] = {"model": model}
    if tools:
        agent["tools"] = tools
    if mounts:
        agent["subagents"] = mounts
        if draw(_BOOLEANS):
            agent["policy"] = draw(policy_dicts(tools=offered))
    if draw(_BOOLEANS):
        agent["parallel_tool_calls"] = True
    agent["max_steps"] = draw(_MAX_STEPS)
    return agent


@st.composite
def _scenario(draw: st.DrawFn, options: dict[str, Any]) -> dict[str, Any]:
    parents = draw(_shape(options["max_depth"], options["max_breadth"]))
    keys = draw(st.permutations(_agent_keys(options["unicode"], len(parents))))[: len(parents)]
    reserved = options["collisions"] and draw(_ONE_IN_FOUR) and draw(_BOOLEANS)
    pool = _PLAIN_TOOLS + (_RESERVED_TOOL if reserved else ())
    plain = tuple(draw(st.lists(st.sampled_from(pool), unique=True, max_size=3)))
    agents = {
        key: draw(_agent([keys[i] for i, p in enumerate(parents) if p == index], plain, options))
        for index, key in enumerate(keys)
    }
    return {
        "scenario": f"fuzz-{draw(_SEEDS)}",
        "description": "generated by handoff_sim.strategies.scenarios",
        "seed": draw(_SEEDS),
        "entry": keys[0],
        "agents": agents,
        "tools": {name: draw(_tool_spec()) for name in plain},
        "run": draw(st.lists(st.sampled_from(_INPUTS), min_size=1, max_size=2)),
    }


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
    unknown = set(models) - {"adversarial", "script"}
    if unknown or not models:
        raise ValueError(f"models must name 'adversarial' and/or 'script', got {list(models)}")
    options = {
        "max_depth": max_depth,
        "max_breadth": max_breadth,
        "models": tuple(models),
        "unicode": unicode,
        "collisions": collisions,
        "endless": endless,
    }
    return _scenario(options)


def agent_trees(
    *, max_depth: int = 2, max_breadth: int = 2, models: Sequence[str] = ("adversarial", "script")
) -> st.SearchStrategy[Agent]:
    """Built entry agents with fresh models: a sub-agent tree of bounded depth and breadth."""
    from handoff_sim.fuzzing import build_case

    return scenarios(
        max_depth=max_depth, max_breadth=max_breadth, models=models, collisions=False
    ).map(build_case)


st.register_type_strategy(HandoffPolicy, lambda _type: policies())
