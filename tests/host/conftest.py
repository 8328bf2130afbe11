"""A table driven for real (the rules engine, SQLite log) with fake adapters and a fake clock."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from plugin.eventlog import EventLog, SqliteStore
from plugin.host.inputs import HOST, Input, Nominate, Sender, Start, Verdict
from plugin.host.settings import TableSettings
from plugin.host.table import Table
from testing import FakeClock, FakeHub, FakeRoom, FakeVoice

# Seat 1 is the don, 2 and 3 mafia, 4 the sheriff: fixed so tests can name them.
ROLES = {1: "don", 2: "mafia", 3: "mafia", 4: "sheriff"}


@dataclass
class Harness:
    """One table with its fakes; `send` submits like a WebSocket client would."""

    table: Table
    log: EventLog
    clock: FakeClock
    room: FakeRoom
    voice: FakeVoice
    hub: FakeHub
    path: Path
    settings: TableSettings

    async def send(self, sender: Sender, given: Input, client_id: str | None = None) -> Verdict:
        return await self.table.submit(sender, given, client_id=client_id)

    async def ok(self, sender: Sender, given: Input) -> Verdict:
        verdict = await self.send(sender, given)
        assert verdict.ok, verdict
        return verdict

    async def advance(self, seconds: float) -> None:
        """Move the fake clock, then let the table handle what the timers queued."""
        self.clock.advance(seconds)
        await self.table.settle()

    async def expire(self) -> None:
        """Let the running timer run out."""
        remaining = self.table.countdown.remaining()
        assert remaining is not None, "no timer runs"
        await self.advance(remaining)

    @property
    def state(self):
        return self.table.state

    @property
    def phase(self) -> str:
        return self.table.state.phase.value

    async def to_day_one(self) -> None:
        await self.ok(HOST, Start())
        while self.phase != "speech":
            await self.expire()

    async def to_vote(self, nominations=((1, 5), (2, 6))) -> None:
        """Day 1 with these nominations, every speech to its end, up to the open vote."""
        await self.to_day_one()
        pending = dict(nominations)
        while self.phase != "voting":
            speaker = self.state.speaker
            if self.phase == "speech" and speaker in pending:
                await self.ok(speaker, Nominate(target=pending.pop(speaker)))
            await self.expire()

    async def reopen(self) -> None:
        """Stop this table and build a new one from the same log (a restart), in place."""
        await self.table.stop()
        self.log.close()
        fresh = await open_table(self.path, self.settings, create=False)
        for name in ("table", "log", "clock", "room", "voice", "hub"):
            setattr(self, name, getattr(fresh, name))


async def open_table(path: Path, settings: TableSettings, *, create: bool = True) -> Harness:
    log = EventLog(SqliteStore(path))
    if create:
        log.create_table("t1", settings.to_record())
    clock, room, voice, hub = FakeClock(), FakeRoom(), FakeVoice(), FakeHub()
    table = Table("t1", settings, log=log, clock=clock, room=room, voice=voice, hub=hub)
    await table.start()
    return Harness(table, log, clock, room, voice, hub, path, settings)


@pytest.fixture
def settings() -> TableSettings:
    return TableSettings(preset="online", language="uk", seats=10, roles=ROLES, seed=1)


@pytest.fixture
async def harness(tmp_path: Path, settings: TableSettings) -> AsyncIterator[Harness]:
    opened = await open_table(tmp_path / "log.db", settings)
    yield opened
    await opened.table.stop()
    opened.log.close()
