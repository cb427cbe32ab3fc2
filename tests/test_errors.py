"""The error tree: grouped by who must act, with messages that name what went wrong."""

from __future__ import annotations

import ast
import builtins
import re
from dataclasses import dataclass

import pytest

import handoff_sim.errors
from handoff_sim import (
    ConfigurationError,
    DuplicateToolNameError,
    HandoffDeniedError,
    MaxStepsExceededError,
    ReservedPrefixError,
    UnknownToolError,
)
from handoff_sim._errors._configuration import InvalidNameError
from handoff_sim.errors import (
    HandoffSimError,
    HandoffTimeoutError,
    InputFilterError,
    PolicyError,
    RunError,
    ScriptAssertionError,
    ScriptError,
    ScriptExhaustedError,
    UnconsumedStepsError,
    VirtualDeadlineError,
    VirtualDeadlockError,
    VirtualTimeError,
)
from tests._package_modules import modules


@pytest.mark.parametrize(
    ("error", "bases"),
    [
        (ConfigurationError, (HandoffSimError, ValueError)),
        (InvalidNameError, (ConfigurationError,)),
        (DuplicateToolNameError, (ConfigurationError,)),
        (ReservedPrefixError, (ConfigurationError,)),
        (PolicyError, (ConfigurationError,)),
        (InputFilterError, (ConfigurationError,)),
        (RunError, (HandoffSimError,)),
        (HandoffDeniedError, (RunError,)),
        (MaxStepsExceededError, (RunError,)),
        (VirtualTimeError, (RunError,)),
        (VirtualDeadlockError, (VirtualTimeError,)),
        (VirtualDeadlineError, (VirtualTimeError,)),
        (ScriptError, (HandoffSimError,)),
        (ScriptExhaustedError, (ScriptError,)),
        (ScriptAssertionError, (ScriptError, AssertionError)),
        (UnconsumedStepsError, (ScriptError, AssertionError)),
        (HandoffTimeoutError, (HandoffSimError, TimeoutError)),
        (UnknownToolError, (HandoffSimError, LookupError)),
    ],
)
def test_errors_are_grouped_by_who_must_act(
    error: type[BaseException], bases: tuple[type[BaseException], ...]
) -> None:
    for base in bases:
        assert issubclass(error, base), base


def test_s2_duplicate_tool_name_error_message_and_name() -> None:
    error = DuplicateToolNameError("subagent_x")
    assert (str(error), error.name) == ("duplicate subagent tool name: subagent_x", "subagent_x")


def test_s8_handoff_denied_error_message_and_fields() -> None:
    error = HandoffDeniedError("delegate_w", "denied_tool", "tool is in denied_tools", depth=1)
    assert str(error) == "handoff denied for subagent tool delegate_w: tool is in denied_tools"
    assert (error.tool, error.reason, error.detail, error.depth) == (
        "delegate_w",
        "denied_tool",
        "tool is in denied_tools",
        1,
    )


@pytest.mark.parametrize(("seconds", "ms"), [(5.0, "5000"), (0.01, "10"), (0.0105, "10.5")])
def test_s8_handoff_timeout_error_message_in_milliseconds(seconds: float, ms: str) -> None:
    error = HandoffTimeoutError("delegate_w", seconds)
    assert str(error) == f"handoff timeout for subagent tool delegate_w after {ms} ms"


def test_unknown_tool_error_has_a_default_message() -> None:
    assert str(UnknownToolError("ghost")) == "unknown tool: ghost"


# The tree in errors.py's docstring: one class a line, its place given by the box-drawing
# prefix, the standard bases it adds in parentheses, and where it is imported from in
# brackets when it is defined outside errors.py.
_TREE_LINE = re.compile(
    r"^(?P<prefix>(?:[│ ]   )*(?:[├└]── )?)(?P<name>[A-Z][A-Za-z]+)"
    r"(?: \((?P<extra>[^)]*)\))?(?:\s{2,}(?:\[(?P<home>[\w.]+)\])?.*)?$"
)


@dataclass(frozen=True)
class _Node:
    name: str
    parent: str | None
    bases: tuple[str, ...]
    home: str | None


def _documented_tree() -> dict[str, _Node]:
    """Every class the docstring names, with its parent, extra bases and home."""
    nodes: dict[str, _Node] = {}
    stack: list[str] = []
    doc = handoff_sim.errors.__doc__ or ""
    for line in doc.splitlines():
        found = _TREE_LINE.match(line)
        if found is None:
            if not line.strip():
                stack = []  # a blank line ends a tree
            continue
        depth = len(found["prefix"]) // 4
        del stack[depth:]
        parent = stack[-1] if stack else None
        extra = tuple(b.strip() for b in (found["extra"] or "").split(",") if b.strip())
        assert found["name"] not in nodes, f"{found['name']} is named twice"
        nodes[found["name"]] = _Node(found["name"], parent, extra, found["home"])
        stack.append(found["name"])
    return nodes


def _continuation_homes() -> dict[str, str]:
    """Homes written on the line after a class whose name and bases fill its line."""
    homes: dict[str, str] = {}
    last = None
    for line in (handoff_sim.errors.__doc__ or "").splitlines():
        found = _TREE_LINE.match(line)
        if found is not None:
            last = found["name"]
            continue
        home = re.match(r"^[│ ]*\s+\[(?P<home>[\w.]+)\]", line)
        if home and last is not None:
            homes[last] = home["home"]
    return homes


@dataclass(frozen=True)
class _Defined:
    name: str
    module: str
    bases: tuple[str, ...]


def _is_exception_base(name: str, ours: dict[str, _Defined]) -> bool:
    """A builtin exception, one of ours, or a framework's (``AgentsException``)."""
    value = getattr(builtins, name, None)
    builtin = isinstance(value, type) and issubclass(value, BaseException)
    return builtin or name in ours or name.endswith("Exception")


def _defined_exceptions() -> dict[str, _Defined]:
    """Every exception or warning class defined at the top of a module of ours (read, not run)."""
    classes: list[_Defined] = []
    for module in modules().values():
        for node in module.tree.body:
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                bases = tuple(ast.unparse(b).rpartition(".")[2] for b in node.bases)
                classes.append(_Defined(node.name, module.name, bases))
    exceptions: dict[str, _Defined] = {}
    grew = True
    while grew:
        grew = False
        for c in classes:
            if c.name not in exceptions and any(_is_exception_base(b, exceptions) for b in c.bases):
                exceptions[c.name] = c
                grew = True
    return exceptions


def test_the_docstring_tree_names_exactly_the_exception_classes_that_exist() -> None:
    documented, defined = set(_documented_tree()), _defined_exceptions()
    missing = [f"{defined[n].module}.{n}" for n in sorted(set(defined) - documented)]
    assert not missing, f"defined but not in errors.py's tree: {missing}"
    assert documented <= set(defined), (
        f"in the tree but defined nowhere: {documented - set(defined)}"
    )


def test_each_class_sits_under_its_real_base_with_its_extra_bases_in_parentheses() -> None:
    tree, defined = _documented_tree(), _defined_exceptions()
    wrong = []
    for name, node in tree.items():
        documented = ((node.parent,) if node.parent else ()) + node.bases
        documented = documented or ("Exception",)  # a root with no base named
        if name in defined and defined[name].bases != documented:
            wrong.append(f"{name}: bases {defined[name].bases}, docstring says {documented}")
    assert not wrong, "\n".join(wrong)


def test_each_class_is_imported_from_the_place_the_docstring_says() -> None:
    tree, defined = _documented_tree(), _defined_exceptions()
    homes = {name: node.home for name, node in tree.items()} | _continuation_homes()
    wrong = []
    for name, home in homes.items():
        module = "handoff_sim.errors" if home is None else home
        if not module.startswith(("pytest_handoff", "handoff_sim")):
            module = f"handoff_sim.{home}"
        exported = _exported(module)
        if name not in exported:
            wrong.append(f"{name} ({defined[name].module}) is not in {module}.__all__")
    assert not wrong, "\n".join(wrong)


def _exported(module: str) -> set[str]:
    """The names in a module's ``__all__`` list, read from its source."""
    source = modules()[module]
    for node in source.tree.body:
        if isinstance(node, ast.Assign | ast.AnnAssign):
            target = node.targets[0] if isinstance(node, ast.Assign) else node.target
            if isinstance(target, ast.Name) and target.id == "__all__" and node.value:
                return set(ast.literal_eval(node.value))
    return set()


def test_every_error_of_the_main_tree_is_a_handoff_sim_error() -> None:
    tree = _documented_tree()
    for name, node in tree.items():
        root = node
        while root.parent is not None:
            root = tree[root.parent]
        if root.name != "HandoffSimError":
            assert root.name in _OUTSIDE_ON_PURPOSE, name


# A fake model raises these to imitate a provider failing; warnings are not errors; the
# other exceptions steer control flow inside the package and never reach a user.
_OUTSIDE_ON_PURPOSE = {
    "AttemptAbandoned",
    "SimulatedModelError",
    "SubAgentNotOfferedWarning",
    "AgentDefinitionWarning",
    "JsonProblem",
    "MarkerProblem",
    "ScenarioRefused",
    "StopShrinking",
    "UnreadableFile",
}


def test_the_fake_provider_errors_stay_outside_the_tree() -> None:
    from handoff_sim.testing import AdversarialTimeoutError, SimulatedModelError

    assert not issubclass(SimulatedModelError, HandoffSimError)
    assert issubclass(AdversarialTimeoutError, SimulatedModelError)
    assert issubclass(AdversarialTimeoutError, TimeoutError)
    assert not issubclass(AdversarialTimeoutError, HandoffTimeoutError)


@pytest.mark.parametrize(
    "error",
    [
        "handoff_sim.InvariantViolationError",
        "handoff_sim.fuzzing.FuzzFailure",
        "pytest_handoff.HandoffAssertionError",
        "pytest_handoff._collection.ScenarioFailed",
    ],
)
def test_failed_checks_are_handoff_sim_errors_and_assertion_errors(error: str) -> None:
    import importlib

    module, _, name = error.rpartition(".")
    cls = getattr(importlib.import_module(module), name)
    assert issubclass(cls, HandoffSimError)
    assert issubclass(cls, AssertionError)


def test_the_tree_parser_reads_parents_bases_and_homes() -> None:
    tree = _documented_tree()
    assert tree["HandoffSimError"] == _Node("HandoffSimError", None, (), None)
    assert tree["ConfigurationError"] == _Node(
        "ConfigurationError", "HandoffSimError", ("ValueError",), "handoff_sim"
    )
    assert tree["VirtualDeadlockError"].parent == "VirtualTimeError"
    assert tree["ScenarioFileError"] == _Node("ScenarioFileError", "ScenarioError", (), "scenarios")
    assert tree["AdversarialTimeoutError"].parent == "AdversarialModelError"
    assert _continuation_homes()["HandoffDeniedInRunError"] == "adapters.openai_agents"


# The families under HandoffSimError, one per who must act, in the order errors.py draws them.
FAMILIES = (
    "ConfigurationError",
    "SetupError",
    "RunError",
    "ToolCallError",
    "ScriptError",
    "ScenarioError",
    "DataError",
    "CheckFailedError",
)


def test_the_families_are_exactly_the_classes_right_under_handoff_sim_error() -> None:
    tree = _documented_tree()
    children = tuple(name for name, node in tree.items() if node.parent == "HandoffSimError")
    assert children == FAMILIES


def _ancestors(name: str, defined: dict[str, _Defined]) -> set[str]:
    """Every class of ours ``name`` derives from, read from the source (extras not needed)."""
    seen: set[str] = set()
    todo = [name]
    while todo:
        for base in defined[todo.pop()].bases:
            if base in defined and base not in seen:
                seen.add(base)
                todo.append(base)
    return seen


def test_every_error_derives_from_exactly_one_family() -> None:
    defined = _defined_exceptions()
    wrong = []
    for name in sorted(defined):
        ancestors = _ancestors(name, defined)
        if "HandoffSimError" not in ancestors or name in FAMILIES:
            continue
        families = sorted(ancestors & set(FAMILIES))
        if len(families) != 1:
            wrong.append(f"{defined[name].module}.{name}: families {families}")
    assert not wrong, "\n".join(wrong)


def test_the_one_family_check_sees_a_class_with_two_families() -> None:
    defined = {
        "HandoffSimError": _Defined("HandoffSimError", "m", ("Exception",)),
        "RunError": _Defined("RunError", "m", ("HandoffSimError",)),
        "ScriptError": _Defined("ScriptError", "m", ("HandoffSimError",)),
        "Both": _Defined("Both", "m", ("RunError", "ScriptError")),
    }
    assert _ancestors("Both", defined) & set(FAMILIES) == {"RunError", "ScriptError"}


@pytest.mark.parametrize("family", FAMILIES)
def test_each_family_has_one_public_home_the_top_level_or_handoff_sim_errors(family: str) -> None:
    import handoff_sim

    homes = [m for m in (handoff_sim, handoff_sim.errors) if family in m.__all__]
    assert len(homes) == 1, [m.__name__ for m in homes]
    assert getattr(homes[0], family).__bases__[0] is HandoffSimError


@pytest.mark.parametrize(
    ("error", "standard"),
    [
        ("handoff_sim.ConfigurationError", (ValueError,)),
        ("handoff_sim.errors.HandoffTimeoutError", (TimeoutError,)),
        ("handoff_sim.UnknownToolError", (LookupError,)),
        ("handoff_sim.errors.OtlpFormatError", (ValueError,)),
        ("handoff_sim.errors.ModelResponseError", (TypeError,)),
        ("handoff_sim.errors.ScriptAssertionError", (AssertionError,)),
        ("handoff_sim.errors.UnconsumedStepsError", (AssertionError,)),
        ("handoff_sim.adapters.MissingExtraError", (ImportError,)),
        ("handoff_sim.styles.flink._normalize.ResultNormalizationError", (TypeError, ValueError)),
        ("handoff_sim.InvariantViolationError", (AssertionError,)),
        ("handoff_sim.fuzzing.FuzzFailure", (AssertionError,)),
    ],
)
def test_grouping_in_families_keeps_the_standard_bases_users_catch(
    error: str, standard: tuple[type[BaseException], ...]
) -> None:
    import importlib

    module, _, name = error.rpartition(".")
    cls = getattr(importlib.import_module(module), name)
    for base in standard:
        assert issubclass(cls, base), base


@pytest.mark.parametrize(
    ("error", "family"),
    [
        ("handoff_sim.errors.SessionStoreError", "DataError"),
        ("handoff_sim.errors.OtlpError", "DataError"),
        ("handoff_sim.errors.HandoffTimeoutError", "ToolCallError"),
        ("handoff_sim.UnknownToolError", "ToolCallError"),
        ("handoff_sim.errors.PatternTimeoutError", "CheckFailedError"),
        ("handoff_sim.adapters.MissingExtraError", "SetupError"),
        ("handoff_sim.adapters.ScenarioNotApplicable", "ScenarioError"),
        ("handoff_sim.scenarios.ScenarioFileError", "ScenarioError"),
        ("handoff_sim.InvariantViolationError", "CheckFailedError"),
        ("pytest_handoff.HandoffAssertionError", "CheckFailedError"),
    ],
)
def test_an_error_is_caught_by_its_family(error: str, family: str) -> None:
    import importlib

    module, _, name = error.rpartition(".")
    cls = getattr(importlib.import_module(module), name)
    assert issubclass(cls, getattr(handoff_sim.errors, family))
