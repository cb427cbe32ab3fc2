"""Issue 19, item 14: every number ``handoff-sim fuzz`` takes is bounded, and so is the tree.

Before, ``--max-depth 100 --max-breadth 10`` (trees of 10^100 agents) ended in a
``MemoryError`` traceback, ``--max-breadth 2000`` ran for minutes and ``--seconds nan``
ran nothing and exited 0. Each is now a usage error naming the option and its range,
exit 2, before any case runs.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from handoff_sim.cli import main as handoff_sim
from handoff_sim.cli._fuzz import (
    MAX_AGENTS,
    MAX_BREADTH,
    MAX_DEPTH,
    MAX_EXAMPLES,
    MAX_SEED,
    main,
    tree_size,
)

DOCS = Path(__file__).resolve().parents[2] / "docs" / "fuzzing.md"


@pytest.fixture(autouse=True)
def _elsewhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Run where no ./scenarios folder is bundled, and write nothing to the repository."""
    monkeypatch.chdir(tmp_path)


REFUSED: list[tuple[list[str], str]] = [
    (["--max-depth", "100", "--max-breadth", "10"], "--max-depth: must be an integer from 0 to 20"),
    (["--max-breadth", "2000"], "--max-breadth: must be an integer from 0 to 100, got '2000'"),
    (["--max-depth", "-1"], "--max-depth: must be an integer from 0 to 20, got '-1'"),
    (["--max-depth", "2.5"], "--max-depth: must be an integer from 0 to 20, got '2.5'"),
    (["--seconds", "nan"], "--seconds: must be a number of seconds more than 0 and at most"),
    (["--seconds", "inf"], "got 'inf'"),
    (["--seconds", "1e400"], "got '1e400'"),
    (["--seconds", "31622401"], "at most 31,622,400 (a year)"),
    (["--seconds", "0"], "more than 0"),
    (["--seconds", "-1"], "more than 0"),
    (["--examples", "0"], "--examples: must be an integer from 1 to 10,000,000, got '0'"),
    (["--examples", "1" + "0" * 5000], "--examples: must be an integer from 1 to 10,000,000"),
    (["--examples", "nan"], "--examples: must be an integer"),
    (["--seed", "-1"], "--seed: must be an integer from 0 to 18,446,744,073,709,551,615"),
    (["--seed", str(2**64)], "--seed: must be an integer from 0"),
    (
        ["--max-depth", "4", "--max-breadth", "10"],
        "--max-depth 4 with --max-breadth 10 allows trees of 11,111 agents "
        "(1 + b + b^2 + ... + b^d), more than 1,000: lower one of them",
    ),
    (["--max-depth", "20", "--max-breadth", "2"], "allows trees of 2,097,151 agents"),
]


@pytest.mark.parametrize(("args", "message"), REFUSED, ids=[" ".join(a)[:40] for a, _ in REFUSED])
def test_fuzz_refuses_a_number_out_of_its_range_before_running_anything(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*args, "-q"]) == 2
    printed = capsys.readouterr()
    assert printed.out == ""  # no case ran, no summary
    assert printed.err.startswith("usage: handoff-sim fuzz")
    assert message in printed.err
    assert "Traceback" not in printed.err


def test_the_handoff_sim_command_refuses_them_the_same_way(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert handoff_sim(["fuzz", "--max-depth", "100", "--max-breadth", "10"]) == 2
    assert "argument --max-depth: must be an integer from 0 to 20" in capsys.readouterr().err


@pytest.mark.parametrize(
    "args",
    [
        ["--max-depth", "0", "--max-breadth", "0"],
        ["--max-depth", str(MAX_DEPTH), "--max-breadth", "1"],
        ["--max-depth", "1", "--max-breadth", str(MAX_BREADTH)],
        ["--max-depth", "2", "--max-breadth", "31"],  # 993 agents, the widest under the bound
        ["--seed", str(MAX_SEED)],
    ],
    ids=lambda v: " ".join(v),
)
def test_fuzz_runs_at_the_edges_of_the_ranges(
    args: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*args, "--examples", "1", "-q", "--out", str(tmp_path / "out")]) == 0
    assert "0 failure(s)" in capsys.readouterr().out


def test_a_fractional_time_budget_is_still_accepted(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--seconds", "0.05", "--seed", "1", "-q"]) == 0
    assert "runs" in capsys.readouterr().out


def test_tree_size_counts_every_agent_a_tree_may_hold() -> None:
    assert [tree_size(0, 5), tree_size(2, 2), tree_size(4, 3), tree_size(2, 31)] == [1, 7, 121, 993]
    assert tree_size(3, 10) == 1111 > MAX_AGENTS
    assert tree_size(MAX_DEPTH, 0) == 1


def test_the_ranges_are_documented_as_the_code_has_them() -> None:
    text = DOCS.read_text(encoding="utf-8")
    rows = dict(re.findall(r"^\| `(--[a-z-]+) [A-Z]+` \| ([^|]+) \|", text, re.MULTILINE))
    assert rows["--examples"].strip() == f"1 to {MAX_EXAMPLES:,}"
    assert rows["--max-depth"].strip() == f"0 (the entry agent alone) to {MAX_DEPTH}"
    assert rows["--max-breadth"].strip() == f"0 to {MAX_BREADTH}"
    assert rows["--seed"].strip() == "0 to 2^64 - 1"
    assert MAX_SEED == 2**64 - 1
    assert f"| at most {MAX_AGENTS:,} |" in text
