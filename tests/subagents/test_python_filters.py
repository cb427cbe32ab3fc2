"""Input filters given by import path (``{python: package.module:function}``)."""

from __future__ import annotations

import re
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from handoff_sim import Agent, HandoffPolicy, RunResult, SubAgent, ToolCall, simulate
from handoff_sim.errors import InputFilterError, PolicyError
from handoff_sim.events import RunStartEvent
from tests._helpers import delegate, leaf, parent_of, tool_results, turn

ModuleMaker = Callable[[str], str]


@pytest.fixture
def make_module(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[ModuleMaker]:
    """Write a module with a name unique to the test into ``tmp_path``; forget it afterwards."""
    made: list[str] = []
    base = re.sub(r"\W", "_", request.node.name)

    def make(source: str) -> str:
        name = f"filters_{base}_{len(made)}"
        (tmp_path / f"{name}.py").write_text(textwrap.dedent(source), encoding="utf-8")
        made.append(name)
        return name

    yield make
    for name in made:
        sys.modules.pop(name, None)


REWRITE = """
    import json
    from handoff_sim import ToolCall

    def upper(call):
        args = json.loads(call.arguments)
        return ToolCall(call.id, call.name, json.dumps({"task": args["task"].upper()}))

    def keep(call):
        return None
"""


def policy_with(reference: str, search: tuple[Path, ...]) -> HandoffPolicy:
    return HandoffPolicy.from_block({"input_filter": {"python": reference}}, search=search)


def run_writer(policy: HandoffPolicy) -> tuple[RunResult, Agent]:
    child = leaf("writer", {"text": "writer-ok"})
    sub = SubAgent("writer", agent=child, tool_name="delegate_writer")
    parent = parent_of(
        [sub], turn(delegate("delegate_writer", task="draft", id="c1")), policy=policy
    )
    return simulate(parent, "go"), child


def test_a_python_filter_rewrites_the_call_the_sub_agent_receives(
    make_module: ModuleMaker, tmp_path: Path
) -> None:
    name = make_module(REWRITE)
    result, _ = run_writer(policy_with(f"{name}:upper", (tmp_path,)))
    (start,) = [e for e in result.trace.of_type(RunStartEvent) if e.agent == "writer"]
    assert start.input == "DRAFT"


def test_a_python_filter_returning_none_keeps_the_call(
    make_module: ModuleMaker, tmp_path: Path
) -> None:
    name = make_module(REWRITE)
    result, _ = run_writer(policy_with(f"{name}:keep", (tmp_path,)))
    (start,) = [e for e in result.trace.of_type(RunStartEvent) if e.agent == "writer"]
    assert start.input == "draft"


def test_the_import_path_is_searched_only_for_the_import(
    make_module: ModuleMaker, tmp_path: Path
) -> None:
    before = list(sys.path)
    name = make_module(REWRITE)
    policy_with(f"{name}:upper", (tmp_path,))
    assert sys.path == before
    with pytest.raises(InputFilterError, match="cannot import module"):
        policy_with(f"{make_module(REWRITE)}:upper", ())  # not on sys.path without the search
    assert sys.path == before


def test_an_installed_module_needs_no_search_path() -> None:
    policy = HandoffPolicy.from_block({"input_filter": {"python": "os.path:basename"}})
    assert policy.input_filter is not None


@pytest.mark.parametrize(
    ("source", "attribute", "message"),
    [
        (
            "raise ImportError('needs a GPU')",
            "f",
            "importing module '{m}' failed: ImportError: needs a GPU",
        ),
        (
            "import no_such_dependency_xyz",
            "f",
            "importing module '{m}' failed: ModuleNotFoundError",
        ),
        ("def f(call):\n    return call\n", "g", "module '{m}' (*) has no attribute 'g'"),
        ("f = 42\n", "f", "{m}:f is int, not a callable"),
        ("async def f(call):\n    return call\n", "f", "{m}:f is an async function"),
        ("def f():\n    return None\n", "f", "{m}:f cannot be called with one argument"),
        ("def f(a, b):\n    return None\n", "f", "{m}:f cannot be called with one argument"),
        ("import sys\nsys.exit(3)\n", "f", "importing module '{m}' failed: SystemExit: 3"),
        (
            "def __getattr__(name):\n    raise RuntimeError('lazy')\n",
            "f",
            "getting 'f' from module '{m}' failed: RuntimeError: lazy",
        ),
    ],
)
def test_what_stops_a_reference_from_being_a_filter_is_an_input_filter_error(
    make_module: ModuleMaker, tmp_path: Path, source: str, attribute: str, message: str
) -> None:
    name = make_module(source)
    with pytest.raises(InputFilterError) as caught:
        policy_with(f"{name}:{attribute}", (tmp_path,))
    expected = re.escape(message.format(m=name)).replace(r"\*", ".*")
    assert re.match(expected, str(caught.value)), str(caught.value)


def test_a_missing_module_says_where_it_was_looked_for(tmp_path: Path) -> None:
    with pytest.raises(InputFilterError) as caught:
        policy_with("no_such_filters_module:f", (tmp_path,))
    assert str(caught.value) == (
        f"cannot import module 'no_such_filters_module' (searched {tmp_path} and sys.path)"
    )


def test_a_malformed_reference_is_a_policy_error() -> None:
    with pytest.raises(PolicyError, match=r"must be an import path 'package\.module:function'"):
        HandoffPolicy.from_block({"input_filter": {"python": "os.path.basename"}})


def test_a_module_named_like_one_already_imported_from_elsewhere_is_refused(
    tmp_path: Path,
) -> None:
    (tmp_path / "json.py").write_text("def f(call):\n    return None\n", encoding="utf-8")
    with pytest.raises(InputFilterError, match="module 'json' is already imported from"):
        policy_with("json:f", (tmp_path,))


def test_a_filter_that_raises_fails_the_handoff_naming_filter_tool_and_agent(
    make_module: ModuleMaker, tmp_path: Path
) -> None:
    name = make_module("def f(call):\n    raise ValueError('secret found')\n")
    result, _ = run_writer(policy_with(f"{name}:f", (tmp_path,)))
    (record,) = result.trace.handoffs()
    message = (
        f"input filter {name}:f raised on tool 'delegate_writer' of agent 'parent': "
        "ValueError: secret found"
    )
    assert (record.status, record.reason, record.attempts) == ("failed", "error", 0)
    assert record.error == f"input filter failed: {message}"
    assert tool_results(result.messages)[0].content == f"Error: InputFilterError: {message}"


@pytest.mark.parametrize(
    ("returned", "shown"),
    [
        ("{'task': 'x'}", "dict"),
        ('\'{"task": "x"}\'', "str"),
        (
            "ToolCall(call.id, call.name, {'task': 'x'})",
            "a ToolCall whose arguments are dict, not text",
        ),
    ],
)
def test_a_filter_returning_something_else_than_a_tool_call_fails_the_handoff(
    make_module: ModuleMaker, tmp_path: Path, returned: str, shown: str
) -> None:
    name = make_module(f"from handoff_sim import ToolCall\ndef f(call):\n    return {returned}\n")
    result, _ = run_writer(policy_with(f"{name}:f", (tmp_path,)))
    (record,) = result.trace.handoffs()
    assert record.error == (
        f"input filter failed: input filter {name}:f returned {shown} on tool "
        "'delegate_writer' of agent 'parent'; it must return a ToolCall or None"
    )


def test_the_filter_is_called_with_the_tool_call_itself(
    make_module: ModuleMaker, tmp_path: Path
) -> None:
    name = make_module("SEEN = []\ndef f(call):\n    SEEN.append(call)\n")
    run_writer(policy_with(f"{name}:f", (tmp_path,)))
    seen = sys.modules[name].SEEN
    assert seen == [ToolCall("c1", "delegate_writer", '{"task":"draft"}')]
