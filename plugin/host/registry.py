"""All tables of one server: created from settings, rebuilt from the event log on start.

The registry owns the log (one SQLite file), the clock, and the factories that give each
table its room backend and voice. It saves every running timer's time left about once a
second (issue 4: a restart resumes timers give or take a second) and, on close, stops
every table (microphones given back) and checkpoints the log.

One bad table never stops the others: a table whose log cannot be replayed (an impossible
event, settings that no longer load) is marked broken with the reason, reported, and
left closed, while every other table opens. A finished table is archived when its game
ends and is not reopened at the next start; `max_tables` caps the live tables.
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
from .settings import SettingsError, TableSettings
from .silent import SilentRoom, SilentVoice
from .table import Table

logger = logging.getLogger(__name__)

RoomFactory = Callable[[str, TableSettings], RoomBackend]
VoiceFactory = Callable[[str, TableSettings], Voice]
CLOCK_SAVE_SECONDS = 1.0
MAX_TABLES = 500  # live tables on one server; a club's evening is a handful


class TooManyTables(SettingsError):
    """The server already hosts its maximum of live tables."""

    def __init__(self, limit: int) -> None:
        super().__init__(
            "too_many_tables",
            f"this server hosts at most {limit} live tables: archive a finished one first",
        )


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
        max_tables: int = MAX_TABLES,
    ) -> None:
        self.log = EventLog(db_path)
        self.max_tables = max_tables
        self.broken: dict[str, str] = {}  # table id -> why it could not be opened
        self.hub = hub
        self.clock = clock or RealClock()
        self._room_factory = room_factory or (lambda table_id, settings: SilentRoom())
        self._voice_factory = voice_factory or (lambda table_id, settings: SilentVoice())
        self._save_every = save_every
        self.tables: dict[str, Table] = {}
        self._saver: asyncio.Task[None] | None = None
        self._lock = asyncio.Lock()

    async def start(self) -> None:
        """Rebuild every live table in the log (replay), then save running timers every
        second. A table that cannot be rebuilt is marked broken; the others open."""
        for table_id, record in self.log.tables():
            await self._open_or_mark_broken(table_id, record)
        if self._save_every > 0:
            self._saver = asyncio.create_task(self._save_clocks(), name="clock saver")

    async def create(self, settings: TableSettings, table_id: str | None = None) -> Table:
        """A new table in its lobby: checked, written to the log, then opened."""
        check_settings(settings)
        if len(self.tables) >= self.max_tables:
            raise TooManyTables(self.max_tables)
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
            if table_id in self.broken or self.log.is_archived(table_id):
                return None
            record = self.log.table_settings(table_id)
            if record is None or len(self.tables) >= self.max_tables:
                return None
            return await self._open_or_mark_broken(table_id, record)

    async def archive(self, table_id: str) -> bool:
        """Stop a table (microphones given back, timer saved) and archive it: its record
        stays whole and exportable, it is not reopened. False if there is no such table."""
        table = self.tables.pop(table_id, None)
        if table is None and self.log.table_settings(table_id) is None:
            return False
        if table is not None:
            await table.stop()
        self.log.archive(table_id)
        self.broken.pop(table_id, None)
        return True

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

    async def _open_or_mark_broken(self, table_id: str, record: object) -> Table | None:
        """Open a table from its log. One whose game is over is archived instead (it was
        finished in an earlier run); one that cannot be rebuilt is marked broken."""
        try:
            table = await self._open(table_id, TableSettings.from_record(record))
        except Exception as error:  # the table's own data: the server goes on without it
            reason = f"{type(error).__name__}: {error}"
            self.broken[table_id] = reason
            logger.error("table %s is broken and stays closed: %s", table_id, reason)
            return None
        if table.state.over:
            await self.archive(table_id)
            return None
        return table

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
        try:
            await table.start()
        except BaseException:
            with contextlib.suppress(Exception):  # give back what the factories made
                await table.stop()
            raise
        self.tables[table_id] = table
        return table

    async def _save_clocks(self) -> None:
        while True:
            await asyncio.sleep(self._save_every)
            try:
                self.save_clocks()
            except Exception:
                logger.exception("saving the clocks failed")
