"""Imports point one way, down the layers of docs/architecture.md, and never in a circle.

Every import of a module of ours counts, at module level or inside a function; the
ones under ``if TYPE_CHECKING:`` count for the direction (an annotation is a
dependency too) but not for cycles (they never run). A name imported from the top
level (``from handoff_sim import Trace``) counts as an import of its home module. A name
with a leading underscore (a module or a name in one) is private to the component that
holds it.
"""

from __future__ import annotations

import ast
import dataclasses
import re
from functools import cache

import pytest

import handoff_sim
from tests._package_modules import ROOT, Import, SourceModule, imports, modules

# From the bottom, spelled as the folder listing spells them: a path in handoff_sim/
# (``_agent.py``, ``subagents/``) unless it names pytest_handoff/; ``__init__.py`` is the
# package's own top level. A module belongs to the layer of the longest entry that holds
# it (handoff_sim/scenarios/_load/_yaml.py is in "scenarios"). An entry may name a folder
# that does not exist yet.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "values",
        (
            "_durations.py",
            "_errors/",
            "_files.py",
            "_hooks.py",
            "_limits.py",
            "_matchers.py",
            "_models.py",
            "_moved.py",
            "_patterns.py",
            "_plugin_contract.py",
            "_references.py",
            "_safe.py",
            "_sessions.py",
            "_spans.py",
            "_terminal.py",
            "_version.py",
            "errors.py",
            "events.py",
            "messages.py",
        ),
    ),
    (
        "runtime",
        (
            "_agent.py",
            "_agent_checks.py",
            "_context.py",
            "_mermaid.py",
            "_otlp/",
            "_react_loop.py",
            "_text_forms.py",
            "_tool_calls.py",
            "_tools.py",
            "simulation/",
            "subagents/",
            "trace.py",
        ),
    ),
    (
        "styles and fakes",
        ("_invariant_pass.py", "_invariants.py", "_trajectory/", "styles/", "testing/"),
    ),
    ("scenarios", ("scenarios/",)),
    ("integrations", ("_gates/", "adapters/", "otel/", "recording/", "report/")),
    ("generation", ("fuzzing/", "strategies.py")),
    ("command line", ("__main__.py", "cli/")),
    ("package", ("__init__.py",)),
    ("pytest plugin", ("pytest_handoff/",)),
)


def _absolute(entry: str) -> str:
    """The dotted name of a LAYERS entry: ``subagents/`` is ``handoff_sim.subagents``."""
    if entry == "__init__.py":
        return "handoff_sim"
    dotted = entry.removesuffix("/").removesuffix(".py").replace("/", ".")
    return dotted if dotted.startswith("pytest_handoff") else f"handoff_sim.{dotted}"


@cache
def layer_of(module: str) -> int:
    """The index in LAYERS of ``module``'s layer."""
    best: tuple[int, int] | None = None
    for index, (_, entries) in enumerate(LAYERS):
        for entry in map(_absolute, entries):
            if module == entry or module.startswith(entry + "."):
                if entry == "handoff_sim" and module != entry:
                    continue  # the package's __init__ only
                if best is None or len(entry) > best[1]:
                    best = (index, len(entry))
    if best is None:
        raise LookupError(f"{module} is in no layer: add it to LAYERS in tests/test_layers.py")
    return best[0]


def component_of_private(name: str) -> str | None:
    """Who may import ``name``: None for a public name, else the owning component.

    The owner of ``handoff_sim._x`` is the package ``handoff_sim``; the owner of a
    private name deeper down (``handoff_sim.scenarios._load._yaml``) is the
    first-level component (``handoff_sim.scenarios``), whose sub-packages share it.
    """
    parts = name.split(".")
    for index, part in enumerate(parts):
        if part.startswith("_") and not part.startswith("__"):
            return ".".join(parts[: min(index, 2)])
    return None


def _top_level_homes() -> dict[str, str]:
    """Where each name of the top level is defined: ``handoff_sim._HOME``, and the version."""
    homes: dict[str, str] = dict(handoff_sim._HOME)
    homes["__version__"] = "handoff_sim._version"
    return homes


def through_home(found: Import, homes: dict[str, str]) -> Import:
    """An import of a top-level name (``from handoff_sim import Agent``) as one of its home.

    The top level only forwards each name to the module that defines it, on first use, so
    the import depends on that module, not on everything the top level lists.
    """
    if found.target != "handoff_sim":
        return found
    home = homes.get(found.name.removeprefix("handoff_sim."))
    if home is None or home not in modules():
        return found
    return dataclasses.replace(found, target=home)


@cache
def _all_imports() -> tuple[tuple[SourceModule, Import], ...]:
    """Every import of every module, found once for all the tests here (a walk of each tree)."""
    homes = _top_level_homes()
    return tuple(
        (module, through_home(found, homes) if module.name != "handoff_sim" else found)
        for module in modules().values()
        for found in imports(module)
    )


def test_every_module_is_in_a_layer() -> None:
    for name in modules():
        layer_of(name)


def _listing() -> set[str]:
    """The modules and packages right inside handoff_sim/, spelled as LAYERS spells them."""
    top = ROOT / "handoff_sim"
    files = {p.name for p in top.glob("*.py")}
    folders = {f"{p.name}/" for p in top.iterdir() if (p / "__init__.py").is_file()}
    return files | folders


def test_the_layers_list_the_folder_listing_of_handoff_sim() -> None:
    entries = {entry for _, layer in LAYERS for entry in layer} - {"pytest_handoff/"}
    assert sorted(_listing() - entries) == [], "add these to LAYERS"
    stale = sorted(e for e in entries - _listing() if not e.endswith("/"))
    assert stale == [], "no such module: rename or drop these entries of LAYERS"


def test_no_import_points_up_a_layer() -> None:
    upward = [
        f"{module.where}:{found.line}: {module.name} ({LAYERS[layer_of(module.name)][0]}) "
        f"imports {found.name} ({LAYERS[layer_of(found.target)][0]})"
        for module, found in _all_imports()
        if layer_of(found.target) > layer_of(module.name)
    ]
    assert not upward, "\n".join(upward)


# Public modules that are the public face of another component, whose private modules
# they re-export: the contract fixes the name handoff_sim.strategies, the fuzzing package
# holds the strategies (they feed its generator); pytest_handoff.hookspecs documents the
# hooks of the plugin contract, which the runtime side specifies (the command calls them).
FACES = {
    "handoff_sim.strategies": "handoff_sim.fuzzing",
    "pytest_handoff.hookspecs": "handoff_sim",
}


def reaches_inside_an_interface(target: str) -> bool:
    """Whether the private module ``target`` lies below another private module.

    A component's internal interface is the private modules and sub-packages right inside
    a public one (``handoff_sim.scenarios._load``, ``handoff_sim.subagents._naming``,
    ``handoff_sim.styles.sophi._confirmation``, ``handoff_sim._terminal``): what our other
    components and pytest_handoff share, which users must not rely on. What lies deeper
    (``handoff_sim.scenarios._load._yaml``) is the component's alone.
    """
    parts = target.split(".")
    first = next(i for i, part in enumerate(parts) if part.startswith("_"))
    return first < len(parts) - 1


@pytest.mark.parametrize(
    ("target", "inside"),
    [
        ("handoff_sim.scenarios._load", False),
        ("handoff_sim.styles.sophi._confirmation", False),
        ("handoff_sim._terminal", False),
        ("handoff_sim.scenarios._load._yaml", True),
        ("handoff_sim._errors._run", True),
    ],
)
def test_an_interface_is_one_private_level_below_a_public_module(target: str, inside: bool) -> None:
    assert reaches_inside_an_interface(target) is inside


def test_no_module_imports_another_components_private_name() -> None:
    trespass = []
    for module, found in _all_imports():
        owner = component_of_private(found.name)
        if owner is None or FACES.get(module.name) == owner:
            continue
        if module.name == owner or module.name.startswith(owner + "."):
            continue
        if not reaches_inside_an_interface(found.target):
            continue
        trespass.append(f"{module.where}:{found.line}: {module.name} imports {found.name}")
    assert not trespass, "\n".join(trespass)


def test_a_public_face_only_re_exports_and_its_component_never_imports_it() -> None:
    for face, component in FACES.items():
        module = modules()[face]
        extra = [
            f"{module.where}:{node.lineno}"
            for node in module.tree.body[1:]  # after the docstring
            if not isinstance(node, ast.ImportFrom)
            and not (isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) == "__all__")
        ]
        assert not extra, f"{face} should only re-export {component}: {extra}"
        back = [
            f"{source.where}:{found.line}"
            for source, found in _all_imports()
            if found.target == face and source.name.startswith(component)
        ]
        assert not back, f"{component} imports its own public face {face}: {back}"


def _graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {name: set() for name in modules()}
    for module, found in _all_imports():
        if not found.type_checking:
            graph[module.name].add(found.target)
    return graph


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    cycles.append(sorted(component))
    return cycles


def test_no_import_cycles_counting_function_level_imports() -> None:
    cycles = import_cycles(_graph())
    assert not cycles, "\n".join(" <-> ".join(cycle) for cycle in cycles)


@pytest.mark.parametrize(
    ("graph", "expected"),
    [
        ({"a": {"b"}, "b": {"c"}, "c": set()}, []),
        ({"a": {"b"}, "b": {"a"}, "c": {"a"}}, [["a", "b"]]),
        ({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"d"}}, [["a", "b", "c"]]),
    ],
)
def test_cycle_finder_finds_exactly_the_cycles(
    graph: dict[str, set[str]], expected: list[list[str]]
) -> None:
    assert import_cycles(graph) == expected


@pytest.mark.parametrize(
    ("name", "owner"),
    [
        ("handoff_sim.trace.Trace", None),
        ("handoff_sim._context.Frame", "handoff_sim"),
        ("handoff_sim.scenarios._load._yaml.parse_yaml", "handoff_sim.scenarios"),
        ("handoff_sim.scenarios._run.runner._expected", "handoff_sim.scenarios"),
        ("handoff_sim.subagents._input", "handoff_sim.subagents"),
        ("pytest_handoff._records._fail", "pytest_handoff"),
        ("handoff_sim.__version__", None),
    ],
)
def test_private_names_belong_to_their_component(name: str, owner: str | None) -> None:
    assert component_of_private(name) == owner


def _documented_layers() -> list[tuple[str, set[str]]]:
    """The layers table of docs/architecture.md: each row's name and the modules it names."""
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = text.split("\n## Layers\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| ")][2:]
    found = []
    for row in rows:
        name, cell = (part.strip() for part in row.strip("|").split("|"))
        cell = cell.split(":", 1)[0]  # "`scenarios/`: its phases" names the package
        found.append((name, {_entry_of(path) for path in re.findall(r"`([^`]+)`", cell)}))
    return found


def _entry_of(path: str) -> str:
    """A LAYERS entry for a path of the table (``handoff_sim/__init__.py`` is the top level)."""
    return path.removeprefix("handoff_sim/")


def test_the_layers_are_the_ones_docs_architecture_describes() -> None:
    documented = _documented_layers()
    assert [name for name, _ in documented] == [name for name, _ in LAYERS]
    for (name, modules_named), (_, entries) in zip(documented, LAYERS, strict=True):
        assert modules_named == set(entries), name


def test_a_module_is_in_the_layer_of_its_longest_entry() -> None:
    assert layer_of("handoff_sim") == 7
    assert layer_of("handoff_sim.cli") == 6
    assert layer_of("pytest_handoff.plugin") == 8
    assert layer_of("pytest_handoff.hookspecs") == 8
    assert layer_of("handoff_sim._plugin_contract") == 0
    assert layer_of("handoff_sim.scenarios._load._yaml") == 3
    with pytest.raises(LookupError, match=r"handoff_sim\.nowhere is in no layer"):
        layer_of("handoff_sim.nowhere")


def test_a_top_level_name_counts_as_an_import_of_its_home() -> None:
    homes = {"Trace": "handoff_sim.trace"}
    found = Import("handoff_sim", "handoff_sim.Trace", 1, False)
    assert through_home(found, homes).target == "handoff_sim.trace"
    unknown = Import("handoff_sim", "handoff_sim.nothing", 1, False)
    assert through_home(unknown, homes).target == "handoff_sim"
    deeper = Import("handoff_sim.trace", "handoff_sim.trace.Trace", 1, False)
    assert through_home(deeper, homes) == deeper
