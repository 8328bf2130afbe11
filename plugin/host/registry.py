"""All tables of one server: created from settings, rebuilt from the event log on start.

The registry owns the log (one SQLite file), the clock, and the factories that give each
table its room backend and voice. It saves every running timer's time left about once a
second (issue 4: a restart resumes timers give or take a second) and, on close, stops
every table (microphones given back) and checkpoints the log.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import Callable
from pathlib import Path

from .clock import RealClock
from .game import check_settings
from .log import EventLog
from .ports import Clock, Hub, RoomBackend, Voice
from .settings import TableSettings
from .silent import SilentRoom, SilentVoice
from .table import Table

logger = logging.getLogger(__name__)

RoomFactory = Callable[[str, TableSettings], RoomBackend]
VoiceFactory = Callable[[str, TableSettings], Voice]
CLOCK_SAVE_SECONDS = 1.0


def new_table_id() -> str:
    return secrets.token_hex(5)


class Registry:
    def __init__(
        self,
        db_path: str | Path,
        *,
        hub: Hub,
        clock: Clock | None = None,
        room_factory: RoomFactory | None = None,
        voice_factory: VoiceFactory | None = None,
        save_every: float = CLOCK_SAVE_SECONDS,
    ) -> None:
        self.log = EventLog(db_path)
        self.hub = hub
        self.clock = clock or RealClock()
        self._room_factory = room_factory or (lambda table_id, settings: SilentRoom())
        self._voice_factory = voice_factory or (lambda table_id, settings: SilentVoice())
        self._save_every = save_every
        self.tables: dict[str, Table] = {}
        self._saver: asyncio.Task[None] | None = None
        self._lock = asyncio.Lock()

    async def start(self) -> None:
        """Rebuild every table in the log (replay), then save running timers every second."""
        for table_id, record in self.log.tables():
            await self._open(table_id, TableSettings.from_record(record))
        if self._save_every > 0:
            self._saver = asyncio.create_task(self._save_clocks(), name="clock saver")

    async def create(self, settings: TableSettings, table_id: str | None = None) -> Table:
        """A new table in its lobby: checked, written to the log, then opened."""
        check_settings(settings)
        table_id = table_id or new_table_id()
        self.log.create_table(table_id, settings.to_record())
        return await self._open(table_id, settings)

    async def get(self, table_id: str) -> Table | None:
        """The table, opened from the log if another process (autohost table new) made it."""
        table = self.tables.get(table_id)
        if table is not None:
            return table
        async with self._lock:
            if table_id in self.tables:
                return self.tables[table_id]
            record = self.log.table_settings(table_id)
            if record is None:
                return None
            return await self._open(table_id, TableSettings.from_record(record))

    async def close(self) -> None:
        """Stop every table (timers saved, microphones given back) and flush the log."""
        if self._saver is not None:
            self._saver.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._saver
            self._saver = None
        for table in list(self.tables.values()):
            try:
                await table.stop()
            except Exception:
                logger.exception("table %s: stop failed", table.id)
        self.tables.clear()
        self.log.close()

    def save_clocks(self) -> None:
        """Write the time left of every running timer, in one transaction."""
        rows = {
            table.id: table.clock_row()
            for table in self.tables.values()
            if table.countdown.active and not table.paused
        }
        self.log.save_clocks(rows)
        for table_id, row in rows.items():
            self.tables[table_id].mark_clock_saved(row)

    async def _open(self, table_id: str, settings: TableSettings) -> Table:
        table = Table(
            table_id,
            settings,
            log=self.log,
            clock=self.clock,
            room=self._room_factory(table_id, settings),
            voice=self._voice_factory(table_id, settings),
            hub=self.hub,
        )
        await table.start()
        self.tables[table_id] = table
        return table

    async def _save_clocks(self) -> None:
        while True:
            await asyncio.sleep(self._save_every)
            try:
                self.save_clocks()
            except Exception:
                logger.exception("saving the clocks failed")
