"""The written recording: an ordinary scenario file a person can read, safe to commit."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import jsonschema
import pytest
import yaml

from handoff_sim import Agent, ConfigurationError, HandoffPolicy, SubAgent, simulate, tool
from handoff_sim.cli import main
from handoff_sim.recording import record
from handoff_sim.recording._writer import write_text
from handoff_sim.scenarios import load_path, run_scenario, scenario_json_schema
from handoff_sim.testing import ScriptedModel

PROMPT = "You triage refunds.\nNever promise a date.\n"


def _agent(worker_text: str = "refunded") -> Agent:
    @tool
    def lookup(order: int) -> str:
        """Look an order up."""
        return f"order {order}: shipped"

    worker = Agent(
        "billing",
        ScriptedModel(
            [
                {
                    "tool_calls": [{"id": "l1", "name": "lookup", "arguments": {"order": 42}}],
                    "latency": 0.0123456,
                },
                {"text": worker_text, "latency": 1.5},
            ]
        ),
        tools=[lookup],
    )
    return Agent(
        "triage",
        ScriptedModel(
            [
                {"tool_calls": [{"id": "c1", "name": "billing", "arguments": {"input": "42"}}]},
                {"text": "done", "latency": "250ms"},
            ]
        ),
        subagents=[SubAgent("billing", agent=worker, tool_name="billing")],
        handoff_policy=HandoffPolicy(timeout=10, max_retries=1, denied_tools={"wire"}),
        system_prompt=PROMPT,
    )


@pytest.fixture
def recording(tmp_path: Path) -> Path:
    path = tmp_path / "triage.yaml"
    agent = _agent()
    with record(agent, path):
        simulate(agent, "refund order 42")
    return path


def test_a_recording_loads_as_a_scenario_and_validates(
    recording: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (loaded,) = load_path(recording)
    assert loaded.spec.recorded is not None
    assert loaded.spec.recorded.format == 1
    assert main(["validate", str(recording)]) == 0
    jsonschema.validate(yaml.safe_load(recording.read_text()), scenario_json_schema())
    assert run_scenario(recording).passed


def test_the_header_says_how_to_replay_naming_the_file_only(recording: Path) -> None:
    head = recording.read_text().splitlines()[:3]
    assert all(line.startswith("#") for line in head)
    assert any("handoff-sim run triage.yaml" in line for line in head)


def test_a_long_prompt_is_a_literal_block_and_lists_are_block_style(recording: Path) -> None:
    text = recording.read_text()
    assert "    system_prompt: |\n      You triage refunds.\n      Never promise a date.\n" in text
    assert "\n    subagents:\n      - agent: billing\n" in text


def test_latencies_are_quantised_to_the_millisecond(recording: Path) -> None:
    document = yaml.safe_load(recording.read_text())
    billing = [s["latency"] for s in document["agents"]["billing"]["model"]["script"]]
    triage = [s["latency"] for s in document["agents"]["triage"]["model"]["script"]]
    assert billing == ["12ms", "1.5s"]
    assert triage == ["0ms", "250ms"]


def test_the_policy_and_the_graph_are_written_in_the_files_own_form(recording: Path) -> None:
    document = yaml.safe_load(recording.read_text())
    triage = document["agents"]["triage"]
    assert triage["policy"] == {"max_retries": 1, "timeout": "10s", "denied_tools": ["wire"]}
    assert triage["subagents"] == [{"agent": "billing", "tool_name": "billing"}]
    assert document["agents"]["billing"]["tools"] == ["lookup"]
    answers = document["tools"]["lookup"]["answers"]
    assert answers == [
        {"arguments": {"order": 42}, "returns": "order 42: shipped", "latency": "0ms"}
    ]


def test_keys_come_in_a_stable_order_two_recordings_differ_only_in_their_date(
    tmp_path: Path,
) -> None:
    texts = []
    for name in ("one", "two"):
        path = tmp_path / name / "r.yaml"
        agent = _agent()
        with record(agent, path):
            simulate(agent, "refund order 42")
        texts.append([line for line in path.read_text().splitlines() if "date:" not in line])
    assert texts[0] == texts[1]
    document = yaml.safe_load((tmp_path / "one" / "r.yaml").read_text())
    assert list(document) == [
        "scenario",
        "description",
        "recorded",
        "agents",
        "tools",
        "run",
        "expect",
    ]


def test_the_generated_expectations_describe_the_run(recording: Path) -> None:
    expect = yaml.safe_load(recording.read_text())["expect"]
    assert expect["output"] == "done"
    assert expect["elapsed"] == "1.762s"  # its replay's: latencies are kept to 1 ms
    assert expect["handoffs"] == [{"tool": "billing", "status": "completed", "attempts": 1}]
    assert expect["trace"]["match"] == "per_branch"


def test_a_changed_run_fails_the_generated_expectations(recording: Path, tmp_path: Path) -> None:
    edited = tmp_path / "edited.yaml"
    edited.write_text(recording.read_text().replace("text: done", "text: not done"))
    result = run_scenario(edited)
    assert not result.passed
    assert [m.field for m in result.mismatches] == ["expect.output"]


def test_nothing_is_written_when_the_block_raises(tmp_path: Path) -> None:
    path = tmp_path / "never.yaml"
    agent = _agent()

    def fails() -> None:
        with record(agent, path):
            simulate(agent, "refund order 42")
            raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        fails()
    assert not path.exists()


def test_a_recording_never_overwrites_its_own_input(tmp_path: Path) -> None:
    source = tmp_path / "source.yaml"
    source.write_text("original\n")
    with pytest.raises(ConfigurationError, match="overwrite its own input"):
        write_text(source, "new\n", source=tmp_path / "." / "source.yaml")
    assert source.read_text() == "original\n"


def test_writing_replaces_the_file_whole_and_leaves_no_temporary_file(tmp_path: Path) -> None:
    target = tmp_path / "r.yaml"
    target.write_text("old content that is longer than the new one\n")
    write_text(target, "new\n")
    assert target.read_text() == "new\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.yaml"]


def test_no_machine_path_reaches_the_file(tmp_path: Path) -> None:
    home, temporary, here = str(Path.home()), tempfile.gettempdir(), os.getcwd()
    leaky = f"see {home}/notes.txt, {temporary}/x/y.log and {here}/data; also C:\\Users\\me\\a.txt"
    agent = _agent(worker_text=leaky)
    path = tmp_path / "r.yaml"
    with record(agent, path):
        simulate(agent, leaky)
    text = path.read_text()
    for machine in (home, temporary, here, str(tmp_path), "C:\\Users", "/notes.txt"):
        assert machine not in text
    assert "<path>" in text
    assert "machine paths" in " ".join(yaml.safe_load(text)["recorded"]["redacted"])


def test_a_block_that_ran_nothing_is_refused_naming_why(tmp_path: Path) -> None:
    path = tmp_path / "empty.yaml"
    block = record(_agent(), path)
    block.__enter__()
    with pytest.raises(ConfigurationError, match="no run of the agent was made"):
        block.__exit__(None, None, None)
    assert not path.exists()


def test_without_an_agent_tree_the_graph_is_read_from_the_trace(tmp_path: Path) -> None:
    from handoff_sim.recording import Recorder, RecordingModel

    agent = _agent()
    recorder = Recorder()
    billing = agent.subagents[0].agent
    with (
        agent.override(model=RecordingModel(agent.model, recorder)),
        billing.override(model=RecordingModel(billing.model, recorder)),
    ):
        result = simulate(agent, "refund order 42")
    path = recorder.write(
        tmp_path / "t.yaml", result.trace, scenario="t", inputs=["refund order 42"]
    )
    document = yaml.safe_load(path.read_text())
    assert document["agents"]["triage"]["subagents"] == [
        {"agent": "billing", "tool_name": "billing"}
    ]
    assert document["agents"]["billing"]["tools"] == ["lookup"]
    assert any("read from the trace" in note for note in document["recorded"]["notes"])
    assert main(["validate", str(path)]) == 0


def test_recorded_tools_are_served_from_the_recording_in_a_replay(tmp_path: Path) -> None:
    from handoff_sim.recording import replay

    calls: list[int] = []

    def build() -> Agent:
        @tool
        def charge(amount: int) -> str:
            """Charge a card (a real payment service)."""
            calls.append(amount)
            return f"charged {amount}"

        return Agent(
            "shop",
            ScriptedModel(
                [
                    {"tool_calls": [{"id": "c", "name": "charge", "arguments": {"amount": 5}}]},
                    "paid",
                ]
            ),
            tools=[charge],
        )

    path = tmp_path / "shop.yaml"
    agent = build()
    with record(agent, path, tools="recorded"):
        simulate(agent, "pay")
    assert calls == [5]
    assert yaml.safe_load(path.read_text())["recorded"]["tools"] == "recorded"
    again = build()
    with replay(again, path):
        result = simulate(again, "pay")
    assert result.output == "paid"
    assert calls == [5]  # the service was not called again
    tool_end = [e for e in result.trace if e.type == "tool_end"]
    assert [e.output for e in tool_end] == ["charged 5"]  # type: ignore[attr-defined]


def test_usage_and_time_to_first_chunk_are_written_per_step(tmp_path: Path) -> None:
    from handoff_sim import ModelRequest, ModelResponse
    from handoff_sim.messages import Message, Usage
    from handoff_sim.recording import Recorder

    agent = Agent("solo", ScriptedModel(["hi"]))
    trace = simulate(agent, "hello").trace
    recorder = Recorder()
    request = ModelRequest(
        agent="solo", model="gpt-x", messages=(Message(role="user", content="hello"),)
    )
    answer = ModelResponse(text="hi", usage=Usage(input_tokens=12, output_tokens=3))
    recorder.model_call("solo", request, answer, None, 10.0, 10.75, 0.21, "gpt-x")
    path = recorder.write(tmp_path / "u.yaml", trace, scenario="u", inputs=["hello"])
    (step,) = yaml.safe_load(path.read_text())["agents"]["solo"]["model"]["script"]
    assert step["usage"] == {"input_tokens": 12, "output_tokens": 3}
    assert (step["latency"], step["first_chunk"]) == ("750ms", "210ms")
    assert step["request"]["model"] == "gpt-x"
    assert yaml.safe_load(path.read_text())["recorded"]["models"] == {"solo": "gpt-x"}


def test_a_record_block_inside_a_running_event_loop_writes_its_file(tmp_path: Path) -> None:
    import asyncio

    path = tmp_path / "async.yaml"

    async def main() -> None:
        agent = _agent()
        with record(agent, path):  # the file is replayed once, off this loop, for elapsed
            await agent.arun("refund order 42")

    asyncio.run(main())
    assert run_scenario(path).passed


def test_a_run_of_many_handoffs_lists_them_without_the_quadratic_tree(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import handoff_sim.recording._expect as expect_module
    import handoff_sim.recording._writer as writer_module

    for module in (expect_module, writer_module):  # the limit is 200: 3 keeps the run small
        monkeypatch.setattr(module, "MAX_TREE_HANDOFFS", 3)
    calls = [{"id": f"c{i}", "name": "work", "arguments": {"input": f"t{i}"}} for i in range(4)]
    worker = Agent("worker", ScriptedModel([f"done {i}" for i in range(4)]))
    boss = Agent(
        "boss",
        ScriptedModel([{"tool_calls": calls}, "all done"]),
        subagents=[SubAgent("worker", agent=worker, tool_name="work")],
        parallel_tool_calls=True,
    )
    path = tmp_path / "many.yaml"
    with record(boss, path):
        simulate(boss, "go")
    document = yaml.safe_load(path.read_text())
    assert len(document["expect"]["handoffs"]) == 4
    assert "trace" not in document["expect"]
    assert any("more than 3 handoffs" in note for note in document["recorded"]["notes"])
    assert run_scenario(path).passed
