"""Shared by the load and crash tests: the real server process and the table driver live in
plugin/testing (the same code the load benchmark runs)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from plugin.testing import Ledger, ServerProcess, TableDriver

# Long automatic timers (vote intro, revote pause, night phases): only the host's `next`
# and the players move a table on, so its state stands still between the last state a
# widget read before a crash and the first one after the restart.
STILL = {
    "intro_seconds": 600,
    "revote_pause_seconds": 600,
    "black_meeting_seconds": 600,
    "don_meeting_seconds": 600,
    "sheriff_meeting_seconds": 600,
    "free_seating_seconds": 600,
    "night_action_seconds": 600,
}


@pytest.fixture
def server(tmp_path: Path):
    process = ServerProcess(tmp_path / "autohost.db")
    process.start()
    yield process
    process.stop()


async def until_votes(ledger: Ledger, count: int, timeout: float) -> None:
    """Wait until `count` ballots were acked (the load really carries votes)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while len(ledger.acked) < count:
        assert not ledger.errors, ledger.error_samples
        assert loop.time() < deadline, f"only {len(ledger.acked)} ballots in {timeout} s"
        await asyncio.sleep(0.2)


async def close_all(drivers: list[TableDriver]) -> None:
    await asyncio.gather(*(d.close() for d in drivers))
