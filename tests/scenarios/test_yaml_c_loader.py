"""Scenario files read with libyaml and without it: the same data, lines, columns and messages.

libyaml (PyYAML's C parser) is used when PyYAML has it; the pure-Python parser is the
reference. Every file of the malformed and hostile corpora and every bundled scenario
must load, or be refused, word for word the same either way, including in an
interpreter where libyaml cannot be imported at all.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from handoff_sim._limits import MAX_YAML_DEPTH
from handoff_sim.scenarios import Problem, ScenarioFileError, load_file, load_text
from handoff_sim.scenarios._load import _yaml

from ._util import BUNDLED, REPO

HAS_LIBYAML = _yaml.LIBYAML is not None
NO_LIBYAML = "PyYAML was built without libyaml here"

CORPUS = sorted(
    p
    for folder in (REPO / "tests/scenarios/malformed", REPO / "tests/hostile/files", BUNDLED)
    for p in folder.rglob("*.y*ml")
    if p.is_file()
)


@pytest.fixture(params=["libyaml", "pure"])
def parser(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Run the test once with libyaml first (when PyYAML has it), once without."""
    if request.param == "pure":
        monkeypatch.setattr(_yaml, "LIBYAML", None)
    elif not HAS_LIBYAML:
        pytest.skip(NO_LIBYAML)
    return str(request.param)


def _paths(data: Any, at: tuple[str | int, ...] = ()) -> Iterator[tuple[str | int, ...]]:
    """Every field path of plain data (each shared value once)."""
    yield at
    if isinstance(data, dict):
        for key, value in data.items():
            yield from _paths(value, (*at, str(key)))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            yield from _paths(value, (*at, index))


def _reading(text: str) -> Any:
    """What the parser made of ``text``: the refusal, or the data, problems and positions."""
    parsed = _yaml.parse_yaml(text, "f.yaml")
    if not isinstance(parsed, _yaml.ParsedYaml):
        return parsed.format()
    positions: dict[tuple[str | int, ...], tuple[int, int]] = {(): parsed.source.position(())}
    if "*" not in text:  # with aliases, a path per expansion would be too many
        positions = {p: parsed.source.position(p) for p in _paths(parsed.data)}
    return repr(parsed.data), [p.format() for p in parsed.problems], positions


def _both(text: str, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Any]:
    first = _reading(text)
    with monkeypatch.context() as m:
        m.setattr(_yaml, "LIBYAML", None)
        return first, _reading(text)


def _loaded(path: Path) -> Any:
    """Each scenario of ``path`` (id, line, tags, seed, spec, where expect is), or its error."""
    try:
        scenarios = load_file(path)
    except ScenarioFileError as exc:
        return str(exc)
    return [
        (s.id, s.line, s.tags, s.seed, s.spec.model_dump(mode="json"), s.location("expect"))
        for s in scenarios
    ]


@pytest.mark.parametrize("path", CORPUS, ids=[str(p.relative_to(REPO)) for p in CORPUS])
def test_corpus_file_reads_the_same_with_and_without_libyaml(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each bundled, malformed or hostile file: the same data, problems and positions.

    The scenarios loaded from it, or its error lines, are compared with the pure
    parser's in an interpreter without libyaml, once for every file
    (``test_without_libyaml_installed_every_file_reads_the_same``).
    """
    text = path.read_bytes().decode("utf-8", errors="replace")
    read_with_libyaml, read_pure = _both(text, monkeypatch)
    assert read_with_libyaml == read_pure


DIVERGENT = {
    "question mark in a flow list": "run: [what is it?]\n",
    "question mark in a flow key": "a: {b?c: 1}\n",
    "comment glued to a block scalar header": "a: |#note\n  text\n",
    "empty value tagged !": "a: !\nb: [! ]\n",
    "tab after a colon": "a:\t1\n",
    "tab in a flow list": "b: [\t1]\n",
    "byte-order mark inside": "a: 1\n\ufeffb: 2\n",
    "document marker alone, no line break": "---",
}
UNICODE_BREAKS = {
    "next-line character": "a: x\x85b: 2\n",
    "line separator": "a: x\u2028b: [1,\u20282]\n",
    "paragraph separator": "- a\u2029- b\n",
}


@pytest.mark.parametrize(
    "text", [*DIVERGENT.values(), *UNICODE_BREAKS.values()], ids=[*DIVERGENT, *UNICODE_BREAKS]
)
def test_spellings_libyaml_reads_otherwise_get_the_pure_verdict(
    text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with_libyaml, pure = _both(text, monkeypatch)
    assert with_libyaml == pure


@pytest.mark.skipif(not HAS_LIBYAML, reason=NO_LIBYAML)
@pytest.mark.parametrize("text", DIVERGENT.values(), ids=DIVERGENT.keys())
def test_those_spellings_do_differ_in_raw_libyaml(text: str) -> None:
    """Each spelling above is one where libyaml alone would give another answer."""
    import yaml

    def outcome(loader: Any) -> Any:
        try:
            node = loader(text).get_single_node()
            marks = [(n.start_mark.line, n.start_mark.column) for n in _nodes(node)]
            return repr(loader(text).get_single_data()), marks
        except yaml.YAMLError as exc:
            return type(exc).__name__

    assert outcome(yaml.CSafeLoader) != outcome(yaml.SafeLoader)


def _nodes(node: Any) -> Iterator[Any]:
    yield node
    if isinstance(node.value, list):
        for child in node.value:
            for part in child if isinstance(child, tuple) else (child,):
                yield from _nodes(part)


def test_a_question_in_a_flow_list_is_refused_as_before(parser: str) -> None:
    """A plain ``?`` inside ``[...]`` is a YAML error for the reference parser: still refused."""
    with pytest.raises(ScenarioFileError) as caught:
        load_text("scenario: q\nagents: {m: {model: {script: [a]}}}\nrun: [is it?]\n", "q.yaml")
    assert str(caught.value).startswith("q.yaml:3:")
    assert "invalid YAML" in str(caught.value)


def _nested(depth: int, block: bool) -> str:
    if block:
        return "".join(f"{'  ' * i}k:\n" for i in range(depth - 1)) + f"{'  ' * (depth - 1)}k: v\n"
    return "a: " + "[" * (depth - 1) + "x" + "]" * (depth - 1) + "\n"


@pytest.mark.parametrize("block", [False, True], ids=["flow", "block"])
def test_depth_limit_holds_with_either_parser(parser: str, block: bool) -> None:
    """The deepest document allowed reads; one level deeper is a located refusal."""
    # The root mapping is level 1, each key and value one more.
    fits = _yaml.parse_yaml(_nested(MAX_YAML_DEPTH - 1, block), "d.yaml")
    assert isinstance(fits, _yaml.ParsedYaml)
    refused = _yaml.parse_yaml(_nested(MAX_YAML_DEPTH, block), "d.yaml")
    assert isinstance(refused, Problem)
    assert f"nested deeper than {MAX_YAML_DEPTH} levels" in refused.message
    assert (refused.path, refused.field) == ("d.yaml", "<yaml>")


ALIASES = {
    "shared value": "a: &x {k: 1}\nb: *x\nc: [*x, *x]\n",
    "recursive": "a: &x [1, *x]\n",
    "bomb": "a: &a [1,1,1,1,1,1,1,1,1,1]\n"
    + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 10)}]\n" for i in range(6)
    ),
    "deep through aliases": "a: &a [[[[[[[[[[x]]]]]]]]]]\n"
    + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [[[[[[[[[[*{chr(97 + i)}]]]]]]]]]]\n" for i in range(10)
    ),
    "duplicate key in a shared value": "a: &x {k: 1, k: 2}\nb: *x\n",
}


@pytest.mark.parametrize("text", ALIASES.values(), ids=ALIASES.keys())
def test_aliases_read_the_same_and_bombs_stay_refused(
    text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with_libyaml, pure = _both(text, monkeypatch)
    assert with_libyaml == pure


def test_alias_bomb_is_refused_with_either_parser(parser: str) -> None:
    refused = _yaml.parse_yaml(ALIASES["bomb"], "b.yaml")
    assert isinstance(refused, Problem)
    assert "values once aliases are expanded" in refused.message


_PIECES = st.sampled_from(
    [
        *"abc1:-?[]{},'\"!&*|>#%@` \n",
        ": ",
        "- ",
        "\n  ",
        "\n- ",
        "k: ",
        "&x ",
        "*x",
        "!!str ",
        "! ",
        "|-\n  t",
        " #c",
        "\u00e9",
        "\u65e5",
        "\r\n",
        "\t",
        "\ufeff",
        "2024-01-01",
        "0x1f",
        "<<: ",
        "---",
        "...",
    ]
)


@settings(
    max_examples=400,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(pieces=st.lists(_PIECES, min_size=1, max_size=16))
@pytest.mark.slow
def test_any_text_reads_the_same_with_and_without_libyaml(
    pieces: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    text = "".join(pieces)
    with_libyaml, pure = _both(text, monkeypatch)
    assert with_libyaml == pure


_WITHOUT_LIBYAML = """
import json, sys
sys.modules["yaml._yaml"] = None  # as if PyYAML had been built without libyaml
from handoff_sim.scenarios import ScenarioFileError, load_file
from handoff_sim.scenarios._load import _yaml
out = {"libyaml": _yaml.LIBYAML is not None, "files": {}}
for name in sys.argv[1:]:
    try:
        out["files"][name] = [
            (s.id, s.line, s.tags, s.seed, s.spec.model_dump(mode="json"), s.location("expect"))
            for s in load_file(name)
        ]
    except ScenarioFileError as exc:
        out["files"][name] = str(exc)
print(json.dumps(out))
"""


@pytest.mark.slow
def test_without_libyaml_installed_every_file_reads_the_same() -> None:
    """In an interpreter where libyaml cannot be imported, the pure parser does it all:
    every corpus file gives the same scenarios (each field, each location) or error."""
    names = [str(p) for p in CORPUS]
    proc = subprocess.run(
        [sys.executable, "-c", _WITHOUT_LIBYAML, *names],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    out = json.loads(proc.stdout)
    assert out["libyaml"] is False
    for name in names:
        here = json.loads(json.dumps(_loaded(Path(name))))  # tuples as the JSON lists
        assert out["files"][name] == here, name


@pytest.mark.parametrize(
    "text",
    [
        "scenario: s\nexpect:\n  output: {match: '^a.*b'}\n  tags: [x, '*']\n",
        "a:\n  - pattern: .*\n    b: [1, {c: '**'}]\n",
        "a: 'x*y'\nb: '&amp'\n",
    ],
)
def test_a_star_that_is_no_alias_reads_the_same_with_and_without_libyaml(
    text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a '*' in a regex or a quoted text is no alias: every position still matches
    def reading() -> Any:
        parsed = _yaml.parse_yaml(text, "f.yaml")
        assert isinstance(parsed, _yaml.ParsedYaml)
        positions = {p: parsed.source.position(p) for p in _paths(parsed.data)}
        return repr(parsed.data), positions

    first = reading()
    monkeypatch.setattr(_yaml, "LIBYAML", None)
    assert first == reading()
