"""What a fake model does for a call recorded cut off: it never answers, until cancelled."""

from __future__ import annotations

import asyncio

__all__ = ["never_answer"]

NEVER = 10 * 365 * 24 * 3600.0
"""Ten virtual years: past any deadline a run is given (the default is 30 days)."""


async def never_answer() -> None:
    """Wait until cancelled. The wait is first a timer, so virtual time runs on to a
    simulation's deadline as it did for the recorded call; with no deadline, after ten
    virtual years, a wait on nothing: a virtual deadlock, as nothing else can happen."""
    await asyncio.sleep(NEVER)
    await asyncio.get_running_loop().create_future()
