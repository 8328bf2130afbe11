"""Shared by the load and crash tests: the real server process and the table driver live in
testing (the same code the load benchmark runs)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from testing import Ledger, ServerProcess, TableDriver, eventually

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
    """Wait until `count` ballots were acked (the load really carries votes); no error on
    the way."""

    def enough() -> bool:
        if len(ledger.acked) >= count:
            return True
        assert not ledger.errors, ledger.error_samples
        return False

    def acked() -> str:
        return f"only {len(ledger.acked)} ballots"

    await eventually(enough, f"{count} ballots", seconds=timeout, interval=0.2, explain=acked)


async def close_all(drivers: list[TableDriver]) -> None:
    await asyncio.gather(*(d.close() for d in drivers))
