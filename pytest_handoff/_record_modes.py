"""The record modes of ``--handoff-record-mode`` and the rule that CI only replays.

Imports only pytest and the standard library: the options are read at start-up.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Literal, cast

import pytest

__all__ = [
    "MATCHES",
    "RECORD_MODES",
    "Mode",
    "add_options",
    "blocks_models",
    "check_modes",
    "in_ci",
    "record_mode",
]

Mode = Literal["none", "once", "new_episodes", "all"]

#: pytest-recording's names, in the order of how much they may write.
RECORD_MODES: tuple[Mode, ...] = ("none", "once", "new_episodes", "all")

#: How strictly a replay checks each request against its recorded step.
MATCHES = ("fingerprint", "tools", "order")

_OFF = ("", "0", "false")


def add_options(parser: pytest.Parser) -> None:
    """``--handoff-record-mode`` (ini ``handoff_record_mode``) and ``--handoff-block-models``."""
    group = parser.getgroup("handoff", "handoff-sim scenarios")
    group.addoption(
        "--handoff-record-mode",
        dest="handoff_record_mode",
        default=None,
        choices=RECORD_MODES,
        help="what the handoff_recording fixture does with a test's recording: none (replay "
        "only; the default, and the only mode allowed when CI is set), once (record a "
        "missing recording), new_episodes (once, and re-record a recording that no longer "
        "matches the code), all (always re-record); overrides the handoff_record_mode ini key",
    )
    group.addoption(
        "--handoff-block-models",
        action="store_true",
        dest="handoff_block_models",
        default=False,
        help="during a replay, a model call of an agent the recording has no lane for is an "
        "error naming the agent, instead of a call to its real model",
    )
    parser.addini(
        "handoff_record_mode",
        default="none",
        help="the record mode when --handoff-record-mode is not given: none (default), "
        "once, new_episodes or all",
    )


def in_ci(environ: Mapping[str, str] | None = None) -> bool:
    """``CI`` is set to anything but empty, ``0`` or ``false`` (any case), as CI services do."""
    value = (os.environ if environ is None else environ).get("CI", "")
    return value.strip().lower() not in _OFF


def record_mode(config: pytest.Config) -> Mode:
    """The session's record mode: the option, else the ini key, else ``none``."""
    given = config.getoption("handoff_record_mode", None)
    if given is None:
        given = str(config.getini("handoff_record_mode") or "none").strip()
    return cast("Mode", given)


def blocks_models(config: pytest.Config) -> bool:
    """Whether ``--handoff-block-models`` was given."""
    return bool(config.getoption("handoff_block_models", False))


def check_modes(config: pytest.Config) -> None:
    """A usage error for an unknown ini mode, or for any mode but ``none`` under ``CI``."""
    mode = record_mode(config)
    from_cli = config.getoption("handoff_record_mode", None) is not None
    source = "--handoff-record-mode" if from_cli else "handoff_record_mode (ini)"
    if mode not in RECORD_MODES:
        raise pytest.UsageError(
            f"{source}: unknown record mode {mode!r}; choose one of {', '.join(RECORD_MODES)}"
        )
    if mode != "none" and in_ci():
        raise pytest.UsageError(
            f"{source}={mode}: the CI environment variable is set, and CI only replays "
            "recordings (mode none); record locally and commit the files, or unset CI"
        )
