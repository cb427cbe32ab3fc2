"""Secrets never reach a recording, and a redacted recording still replays."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
import yaml

from handoff_sim import Agent, ConfigurationError, SubAgent, simulate, tool
from handoff_sim.errors import PatternTimeoutError
from handoff_sim.recording import Redaction, record, replay
from handoff_sim.testing import ScriptedModel

KEY = "sk-live-4f9a8b7c6d5e4f3a2b1c0d9e"
ASK = f"rotate {KEY}"
TOKEN = "eyJhbGciOiJIUzI1NiJ9.payload.signature"


def _agent() -> Agent:
    @tool
    def credentials(service: str) -> str:
        """Fetch the credentials of a service."""
        return f"service {service}: key {KEY}, header Authorization: Bearer {TOKEN}"

    worker = Agent(
        "ops",
        ScriptedModel(
            [
                {
                    "tool_calls": [
                        {"id": "t1", "name": "credentials", "arguments": {"service": "db"}}
                    ]
                },
                {"text": f"use api_key={KEY[3:]} carefully", "latency": "20ms"},
            ]
        ),
        tools=[credentials],
    )
    return Agent(
        "lead",
        ScriptedModel(
            [
                {
                    "tool_calls": [
                        {"id": "c1", "name": "ops", "arguments": {"input": f"rotate {KEY}"}}
                    ]
                },
                {"text": "rotated", "latency": "5ms"},
            ]
        ),
        subagents=[SubAgent("ops", agent=worker, tool_name="ops")],
        system_prompt="Customer 4711 is a VIP.",
    )


PROMPT = f"please rotate the key {KEY} for order-4711"


def _recorded(path: Path, redact: Redaction | None = None) -> str:
    agent = _agent()
    with record(agent, path, redact=redact):
        simulate(agent, PROMPT)
    return path.read_text()


def test_R_a_key_in_a_prompt_and_in_a_tool_result_never_reaches_the_file(tmp_path: Path) -> None:
    text = _recorded(tmp_path / "r.yaml")
    assert KEY not in text
    assert KEY[3:] not in text
    assert TOKEN not in text
    assert "[REDACTED]" in text


def test_R_recorded_redacted_names_the_rules_and_counts_never_the_secret(tmp_path: Path) -> None:
    text = _recorded(tmp_path / "r.yaml")
    redacted = yaml.safe_load(text)["recorded"]["redacted"]
    joined = " ".join(redacted)
    assert "API keys" in joined
    assert "bearer tokens" in joined
    assert "api_key= values" in joined
    assert all("(" in entry and "match" in entry for entry in redacted)
    assert KEY not in joined


def test_R_a_redacted_recording_still_replays_into_the_agents(tmp_path: Path) -> None:
    path = tmp_path / "r.yaml"
    _recorded(path)
    agent = _agent()
    with replay(agent, path):  # the fingerprints were taken before redaction: they match
        result = simulate(agent, PROMPT)
    assert result.output == "rotated"


def test_R_user_patterns_redact_what_they_match(tmp_path: Path) -> None:
    rules = Redaction(patterns=[r"order-\d+", r"Customer \d+"])
    text = _recorded(tmp_path / "r.yaml", rules)
    assert "order-4711" not in text
    assert "Customer 4711" not in text
    redacted = yaml.safe_load(text)["recorded"]["redacted"]
    assert any(entry.startswith("pattern 1 (") for entry in redacted)
    assert any(entry.startswith("pattern 2 (") for entry in redacted)


def test_R_secret_headers_are_masked_by_name() -> None:
    scrub = Redaction(headers=["X-Tenant"]).scrubber()
    masked = scrub.headers(
        {"Authorization": "Basic abc", "x-api-key": "k", "X-Tenant": "acme", "Accept": "json"}
    )
    assert masked == {
        "Authorization": "[REDACTED]",
        "x-api-key": "[REDACTED]",
        "X-Tenant": "[REDACTED]",
        "Accept": "json",
    }
    assert scrub.report() == ["authorization headers (3 matches)"]


def test_R_header_lines_in_text_are_masked() -> None:
    scrub = Redaction().scrubber()
    text = (
        'GET /\nAuthorization: Basic dXNlcjpwYXNz\nCookie: session=abc123\n{"x-api-key": "zz99zz"}'
    )
    cleaned = scrub.text(text)
    for secret in ("dXNlcjpwYXNz", "session=abc123", "zz99zz"):
        assert secret not in cleaned


def test_R_redacting_twice_changes_nothing_more() -> None:
    once = Redaction().scrubber().text(f"key {KEY} and Authorization: Bearer {TOKEN}")
    scrub = Redaction().scrubber()
    assert scrub.text(once) == once
    assert scrub.report() == []


def test_R_an_invalid_user_pattern_is_refused_naming_it() -> None:
    with pytest.raises(ConfigurationError, match="Redaction pattern 2: invalid regular expression"):
        Redaction(patterns=["ok", "(unclosed"])
    with pytest.raises(ConfigurationError, match="a list of strings"):
        Redaction(patterns="sk-.*")


@pytest.mark.slow  # it spends the pattern's real one-second budget
def test_R_a_backtracking_user_pattern_stops_in_bounded_time() -> None:
    # ^(a|a)+$ on sixty a's and a '!' backtracks for hours; the match is stopped at its budget
    # (one second: this test takes about that long, by design)
    scrub = Redaction(patterns=[r"^(a|a)+$"]).scrubber()
    began = time.monotonic()
    with pytest.raises(PatternTimeoutError):
        scrub.text("a" * 60 + "!")
    assert time.monotonic() - began < 30  # the outer limit: generous, never the bound itself


def test_R_without_the_defaults_only_the_users_rules_and_machine_paths_apply() -> None:
    scrub = Redaction(patterns=["secret"], defaults=False).scrubber()
    assert scrub.text(f"{KEY} secret /home/me/x") == f"{KEY} [REDACTED] <path>"
