"""No name, id or reason adds a statement to ``render --format mermaid``.

The statements are read the way Mermaid's sequence-diagram lexer reads them: a line
break (``\\r`` included: Mermaid turns it into one), a JavaScript line terminator or a
``;`` ends a statement, ``#`` and ``%%`` start a comment, ``#name;`` is an entity code.
The same scenario runs with ordinary names and with names built to inject a ``link ...
javascript:`` statement, a ``Note``, a comment or a directive; the diagrams must hold
the same statements, in the same order.
"""

from __future__ import annotations

import json
import re

import pytest

from handoff_sim.scenarios import load_text, run_scenario
from handoff_sim.trace import Trace

# boss delegates to worker (call id CALL), whose first attempt fails and second answers
TEMPLATE = """\
scenario: mermaid
agents:
  BOSS:
    policy: {max_retries: 1}
    model:
      script:
        - tool_calls: [{id: CALL, name: delegate_worker, arguments: {task: t}}]
        - text: done
    subagents: [{agent: WORKER, tool_name: delegate_worker}]
  WORKER:
    model: {script: [{error: ERROR}, {text: out}]}
run: [go]
"""

INJECTED = "\nlink A1: Evil @ javascript:alert(1)\nNote over A1: pwned\n"
HOSTILE = {
    "BOSS": f"boss{INJECTED}",
    "WORKER": "worker\rNote over A1: pwned\r\nlinks A1: {'x': 'javascript:alert(1)'}",
    "CALL": (
        f"c1{INJECTED};link A2: y @ javascript:alert(2);%%{{init: {{'securityLevel': 'loose'}}}}"
        '%%"#<img src=x onerror=alert(3)>&amp;\u2028Note over A2: x\u2029\x85;Note over A1: y'
    ),
    "ERROR": f"boom{INJECTED}",
}
ORDINARY = {"BOSS": "boss", "WORKER": "worker", "CALL": "c1", "ERROR": "boom"}

_ENTITY = re.compile(r"#\w+;")
_END = re.compile("[\n;\u2028\u2029\x85]")


def statements(diagram: str) -> list[str]:
    """The statements Mermaid reads from ``diagram``, comments and blanks left out."""
    text = _ENTITY.sub("\x00", re.sub("\r\n?", "\n", diagram))  # entity codes are text
    found = []
    for piece in _END.split(text):
        piece = piece.split("#", 1)[0]
        if piece.lstrip().startswith("%%"):
            continue
        if piece.strip():
            found.append(piece.strip())
    return found


def kind(statement: str) -> str:
    """What a statement does: its keyword, or the arrow of a message."""
    arrow = re.match(r"\w+\s*(--?>>|--?x)", statement)
    return arrow.group(1) if arrow else statement.split()[0]


def diagram(names: dict[str, str]) -> str:
    text = TEMPLATE
    for placeholder, value in names.items():
        text = text.replace(placeholder, json.dumps(value))
    (scenario,) = load_text(text, "mermaid.yaml")
    return run_scenario(scenario).trace.to_mermaid()


def test_hostile_labels_add_no_statement_to_the_mermaid_diagram() -> None:
    ordinary, hostile = statements(diagram(ORDINARY)), statements(diagram(HOSTILE))
    assert [kind(s) for s in hostile] == [kind(s) for s in ordinary]
    assert [kind(s) for s in ordinary] == [
        "sequenceDiagram",
        "participant",
        "participant",
        "->>",
        "Note",
        "-->>",
    ]
    assert not [s for s in hostile if s.split()[0].lower() in {"link", "links", "click"}]
    assert [s for s in hostile if s.startswith("Note")] == [
        s for s in ordinary if s.startswith("Note")
    ]


def labels(diagram: str) -> list[str]:
    """The text of each statement: after ``as`` of a participant, else after its ``:``."""
    found = []
    for line in diagram.rstrip("\n").split("\n")[1:]:
        _, _, label = line.partition(" as " if "participant" in line else ": ")
        found.append(label)
    return found


def test_hostile_labels_keep_the_diagram_one_statement_a_line() -> None:
    text = diagram(HOSTILE)
    lines = text.rstrip("\n").split("\n")
    assert len(lines) == len(statements(text)) == 6
    for label in labels(text):
        assert not re.search('[\r\u2028\u2029\x85;%"<>&#]', _ENTITY.sub("", label)), label


def test_ordinary_labels_read_as_before() -> None:
    lines = diagram(ORDINARY).rstrip("\n").split("\n")
    assert lines == [
        "sequenceDiagram",
        "    participant A1 as boss",
        "    participant A2 as worker",
        "    A1->>A2: delegate_worker (handoff:c1)",
        "    Note over A1: attempt 1 error after 0 ms",
        "    A2-->>A1: completed",
    ]


@pytest.mark.parametrize(
    ("name", "label"),
    [
        ("a;b", "a#59;b"),
        ("a#b", "a#35;b"),
        ("100%%", "100#37;#37;"),
        ('say "hi" <b>&', "say #34;hi#34; #60;b#62;#38;"),
        ("line\nbreak\rand\u2028more", "line\\nbreak\\rand\\u2028more"),
    ],
)
def test_each_character_mermaid_reads_as_syntax_is_an_entity_code_or_an_escape(
    name: str, label: str
) -> None:
    lines = diagram({**ORDINARY, "BOSS": name}).split("\n")
    assert f"    participant A1 as {label}" in lines


def test_a_recorded_trace_adds_no_statement_either() -> None:
    from tests.hostile.test_terminal_output import OTLP

    text = Trace.from_otlp(OTLP).to_mermaid()
    assert [kind(s) for s in statements(text)] == [
        "sequenceDiagram",
        "participant",
        "participant",
        "->>",
        "Note",
        "--x",
    ]
