"""All tables of one server: created from settings, rebuilt from the event log on start.

The registry owns the log (one SQLite file), the clock, and the factories that give each
table its room backend and voice. It saves every running timer's time left about once a
second (issue 4: a restart resumes timers give or take a second) and, on close, stops
every table (microphones given back) and checkpoints the log.

One bad table never stops the others: a table whose log cannot be replayed (an impossible
event, settings that no longer load) is marked broken with the reason, reported, and
left closed, while every other table opens. A finished table is archived when its game
ends and is not reopened at the next start; `max_tables` caps the live tables. Its final
view is still served read-only from its log (`final`), and its next game is a new table
recorded in its log (`next_game`, a `table.successor` record).

The registry is given its log (the assembly chose it) and, on a shared log (PostgreSQL,
issue 16), the leases: a table is hosted by one server at a time through its lease, and
the registry opens only the tables it claimed; the lease loop (plugin.host.leasing)
heartbeats, claims and drops. On close it hands its tables over: it stops them without
giving the microphones back and expires its leases, so another server takes over at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import secrets
import time
from collections.abc import Callable, Sequence
from typing import Any, Literal, TypeVar

from plugin.tasks import cancel_and_wait

from .clock import RealClock
from .ending import end_view
from .game import check_settings, is_event_record, replay
from .leasing import LeaseLoop
from .ports import Clock, Fenced, Hub, Leases, Log, LogUnavailable, RoomBackend, Snapshot, Voice
from .records import SUCCESSOR, link_generations, reissued
from .settings import SettingsError, TableSettings
from .silent import SilentRoom, SilentVoice
from .table import Table

logger = logging.getLogger(__name__)
T = TypeVar("T")

RoomFactory = Callable[[str, TableSettings], RoomBackend]
VoiceFactory = Callable[[str, TableSettings], Voice]
CLOCK_SAVE_SECONDS = 1.0
HEARTBEAT_SECONDS = 0.4  # a shared log's leases are renewed this often (they last 2 s)
MAX_TABLES = 500  # live tables on one server; a club's evening is a handful


class GameNotOver(SettingsError):
    """The next game is started only once this one is over."""

    def __init__(self, table_id: str) -> None:
        super().__init__("game_not_over", f"the game at table {table_id} is not over yet")


class HostingRefused(SettingsError):
    """This server will not host one more table (409): its cap, or it hosts one only."""


class OnlyOneTable(HostingRefused):
    """A one-table server (`autohost livekit --room`) hosts its own table and no other,
    even on a database it shares with full servers: it has no room for any other."""

    def __init__(self, table_id: str) -> None:
        super().__init__(
            "one_table_server",
            f"this server hosts table {table_id} only (autohost livekit --room): "
            "make other tables on an `autohost serve` server",
        )


class TooManyTables(HostingRefused):
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
        log: Log,
        *,
        leases: Leases | None = None,
        hub: Hub,
        clock: Clock | None = None,
        room_factory: RoomFactory | None = None,
        voice_factory: VoiceFactory | None = None,
        save_every: float = CLOCK_SAVE_SECONDS,
        max_tables: int = MAX_TABLES,
        heartbeat: float = HEARTBEAT_SECONDS,
        only: str | None = None,
    ) -> None:
        self.log = log
        self.leases = leases  # None: a log of one server (SQLite), every table its own
        # A one-table server's table: it opens, claims and makes no other (OnlyOneTable).
        self.only = only
        self.max_tables = max_tables
        self.broken: dict[str, str] = {}  # table id -> why it could not be opened
        self.hub = hub
        self.clock = clock or RealClock()
        self._room_factory = room_factory or (lambda table_id, settings: SilentRoom())
        self._voice_factory = voice_factory or (lambda table_id, settings: SilentVoice())
        self._save_every = save_every
        self.tables: dict[str, Table] = {}
        self._saver: asyncio.Task[None] | None = None
        self._leasing = None if leases is None else LeaseLoop(self, leases, heartbeat=heartbeat)
        # Called with a table's id once it is dropped here (the web app closes its
        # sockets, so its widgets reconnect and find the server that hosts it now).
        self.on_drop: Callable[[str], None] = lambda table_id: None
        self.lock = asyncio.Lock()  # one table opened at a time (get, claims)
        self._next_lock = asyncio.Lock()  # one next game at a time (a double click)
        self.opening: set[str] = set()  # tables being replayed and started

    @property
    def owner(self) -> str | None:
        """This server's name in the leases of a shared log (None: not shared)."""
        return None if self.leases is None else self.leases.owner

    def owner_url(self, table_id: str) -> str | None:
        """The public URL of the server whose live lease hosts the table (a shared log)."""
        return None if self.leases is None else self.leases.owner_url(table_id)

    async def start(self) -> None:
        """Rebuild every live table in the log (replay), then save running timers every
        second. A table that cannot be rebuilt is marked broken; the others open. On a
        shared log: only the tables nobody holds, claimed first; then the heartbeat."""
        if self._leasing is not None:
            await self._leasing.start()
        else:
            for table_id, record in self.log.tables():
                if self.may_host(table_id):
                    await self.open_or_mark_broken(table_id, record)
        if self._save_every > 0:
            self._saver = asyncio.create_task(self._save_clocks(), name="clock saver")

    async def create(self, settings: TableSettings, table_id: str | None = None) -> Table:
        """A new table in its lobby: checked, written to the log, then opened."""
        check_settings(settings)
        if self.only is not None and table_id != self.only:
            raise OnlyOneTable(self.only)
        if len(self.tables) >= self.max_tables:
            raise TooManyTables(self.max_tables)
        table_id = table_id or new_table_id()
        if self._leasing is not None:  # made with its lease
            self._leasing.claimed[table_id] = time.monotonic()
        await self.log.commit_table(table_id, settings.to_record())
        return await self._open(table_id, settings)

    async def get(self, table_id: str) -> Table | None:
        """The table, opened from the log if another process (autohost table new) made it."""
        table = self.tables.get(table_id)
        if table is not None:  # a lease not renewed in time (resumed after a pause): not ours
            return table if self.holds(table_id) else None
        if not self.may_host(table_id):
            return None
        async with self.lock:
            if table_id in self.tables:
                return self.tables[table_id]
            try:
                if table_id in self.broken or self.log.is_archived(table_id):
                    return None
                record = self.log.table_settings(table_id)
                if record is None or len(self.tables) >= self.max_tables:
                    return None
                if not await self._claim(table_id):  # another server hosts it
                    return None
            except LogUnavailable:  # the database is away: not here for now
                return None
            return await self.open_or_mark_broken(table_id, record)

    async def archive(self, table_id: str) -> bool:
        """Stop a table (microphones given back, timer saved) and archive it: its record
        stays whole and exportable, it is not reopened. False if there is no such table.
        On a shared log only the owner archives (the write is fenced by its lease): a table
        nobody holds is claimed first; one another server hosts raises Fenced, unchanged."""
        table = self.tables.get(table_id)
        if table is None and self.log.table_settings(table_id) is None:
            return False
        leases = self.leases
        unowned = table is None and leases is not None and not self.log.is_archived(table_id)
        if unowned and leases is not None and not await leases.claim(table_id):
            raise Fenced(f"another server hosts table {table_id}: archive it there")
        if table is not None and table.state.over and table.successor is None:
            # The next game's table id, reserved while this server may still write here:
            # on a shared log nobody may write to an archived table (no lease), and the
            # host may start the next game long after (next_game makes the table).
            try:
                await table.record_successor(new_table_id())
            except LogUnavailable as failure:
                logger.error("table %s: no successor reserved: %s", table_id, failure)
        table = self.tables.pop(table_id, None)
        if table is not None:
            await table.stop()
        try:
            await self.log.commit_archive(table_id)
        finally:
            if leases is not None and table is None:  # claimed only to archive it
                with contextlib.suppress(LogUnavailable):
                    await leases.release([table_id])
        self.broken.pop(table_id, None)
        if self._leasing is not None:
            self._leasing.claimed.pop(table_id, None)
        return True

    def final(self, table_id: str) -> Snapshot | None:
        """The last moment of an archived table whose game is over, replayed read-only from
        its log (nothing opened, nothing written): its players see their end screen, not
        a refusal, after a restart (issue 15). None for any other table, and for one whose
        log cannot be read back (then marked broken, like a live one)."""
        if table_id in self.broken or not self.log.is_archived(table_id):
            return None
        return self._read_archived(table_id, lambda: self._final(table_id))

    def _final(self, table_id: str) -> Snapshot | None:
        record = self.log.table_settings(table_id)
        if record is None:
            return None
        settings = TableSettings.from_record(record)
        entries = self.log.entries(table_id)
        records = [e.record for e in entries]
        state, _ = replay(settings, [r for r in records if is_event_record(r)])
        if not state.over:  # archived by the admin before the end: nothing to show
            return None
        successors = [r["table"] for r in records if r.get("type") == SUCCESSOR]
        # A reserved successor counts once its table exists (the host started it).
        started = successors and self.log.table_settings(successors[-1]) is not None
        return Snapshot(
            table_id=table_id, version=state.version, state=state, settings=settings,
            timer_id=None, timer_remaining=None, paused=False, present=frozenset(),
            ending=end_view(settings, records), successor=successors[-1] if started else None,
        )  # fmt: skip

    def link_generations(self, table_id: str) -> dict[int | str, int]:
        """Each seat's current link generation at a table, open or archived (none for a
        table whose log cannot be read back: it admits nobody, `final` is None)."""
        table = self.tables.get(table_id)
        if table is not None:
            return dict(table.generations)
        if table_id in self.broken:  # read back once: it admits nobody
            return {}

        def read() -> dict[int | str, int]:
            return link_generations(e.record for e in self.log.entries(table_id))

        return self._read_archived(table_id, read) or {}

    def _read_archived(self, table_id: str, read: Callable[[], T]) -> T | None:
        """A read-only replay of a table that is not open here. A record that no longer
        decodes or replays (a damaged file, an impossible event) marks the table broken:
        reported like a live one (`broken`, /healthz, GET /api/tables), and every page
        and export of it answers table_broken instead of failing. The database being away
        is not the table's fault: LogUnavailable goes to the caller."""
        try:
            return read()
        except LogUnavailable:
            raise
        except Exception as error:
            reason = f"{type(error).__name__}: {error}"[:500]
            self.broken[table_id] = reason
            logger.error("table %s is broken (its log cannot be read back): %s", table_id, reason)
            return None

    def _recorded_successor(self, table_id: str) -> str | None:
        """The next game's table id recorded in an archived table's log (made or not)."""
        found = [
            e.record["table"]
            for e in self.log.entries(table_id)
            if e.record.get("type") == SUCCESSOR
        ]
        return found[-1] if found else None

    async def next_game(self, table_id: str) -> str:
        """The next game after the finished game at `table_id`: a NEW table (one game, one
        log, one protocol) with the same seats and settings, a fresh deal. Idempotent: the
        successor's id is recorded in the old table's log before the new table is made, so
        a second call (a double click, or one after a restart, even one between the record
        and the new table) finds it and makes no other. The old table is archived (which
        reserves the id if nothing did: `archive`). Answers the successor's id.
        KeyError: no such table; GameNotOver: its game still runs."""
        async with self._next_lock:
            live = self.tables.get(table_id) or await self.get(table_id)
            record = self.log.table_settings(table_id)
            if record is None:
                raise KeyError(table_id)
            if live is not None:
                over, successor = live.state.over, live.successor
            else:
                over = self.final(table_id) is not None
                successor = self._recorded_successor(table_id) if over else None
            if not over:
                raise GameNotOver(table_id)
            if successor is None:
                successor = new_table_id()
                entry = {"type": SUCCESSOR, "table": successor}
                if live is not None:
                    await live.record_successor(successor)
                else:
                    await self._write_archived(table_id, entry)
            if live is not None:  # first, so a club's LiveKit room is free for the next
                await self.archive(table_id)
            if self.log.table_settings(successor) is None:  # not made yet (or a crash)
                old = TableSettings.from_record(record)
                fresh = dataclasses.replace(old, seed=secrets.randbits(63), roles=None)
                await self.create(fresh, table_id=successor)
            return successor

    async def reissue_archived(
        self, table_id: str, seats: Sequence[int | Literal["host", "watch", "invite"]]
    ) -> bool:
        """New links for these seats of an archived table (issue 31: a finished game's
        leaked link is revoked, its end screen and its path to the next game with it).
        False if the table is not archived here."""
        if table_id in self.tables or not self.log.is_archived(table_id):
            return False
        await self._write_archived(table_id, reissued(seats))
        return True

    async def _write_archived(self, table_id: str, record: dict[str, Any]) -> None:
        """One record in an archived table's log. A shared log fences every write with the
        table's lease, and nobody holds an archived table's: this server takes it for the
        write and lets it go at once."""
        if self.leases is None:
            await self.log.commit(table_id, record, source="host")
            return
        if not await self.leases.claim(table_id):
            raise LogUnavailable(f"another server holds table {table_id} now; try again")
        try:
            await self.log.commit(table_id, record, source="host")
        finally:
            await self.leases.release([table_id])

    def holds(self, table_id: str) -> bool:
        """Whether this server may act for the table now (its microphones, its voice): it
        hosts it and, on a shared log, renewed its leases less than a lease ago. A server
        resumed after a pause must not touch microphones before it has dropped the table."""
        if table_id not in self.tables and table_id not in self.opening:
            return False
        return self._leasing is None or self._leasing.holds(table_id)

    async def close(self) -> None:
        """Stop every table (timers saved) and flush the log; microphones are kept as they
        are: a stop is a restart or an upgrade, and the table resumes in seconds (issue 30:
        SIGTERM mid-speech gave all ten microphones back for about 5 s). They are given
        back when a game ends or the host releases the table (`archive`). On a shared log
        the leases are expired too, so that another server claims the tables at once."""
        await cancel_and_wait([self._saver], log=logger)
        self._saver = None
        if self._leasing is not None:
            await self._leasing.stop()
        for table in list(self.tables.values()):
            try:
                await table.stop(hand_off=True)
            except Exception:
                logger.exception("table %s: stop failed", table.id)
        held, self.tables = list(self.tables), {}
        if self.leases is not None:
            try:
                await self.leases.release(held)
            except LogUnavailable as failure:  # they run out by themselves in 3 s
                logger.error("could not release the leases: %s", failure)
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

    async def open_or_mark_broken(self, table_id: str, record: object) -> Table | None:
        """Open a table from its log. One whose game is over is archived instead (it was
        finished in an earlier run); one that cannot be rebuilt is marked broken."""
        try:
            table = await self._open(table_id, TableSettings.from_record(record))
        except LogUnavailable as failure:  # the database, not the table: not broken
            logger.warning("table %s: not opened here (%s)", table_id, failure)
            return None
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
        self.opening.add(table_id)
        try:
            await table.start()
        except BaseException:
            with contextlib.suppress(Exception):  # give back what the factories made
                await table.stop()
            raise
        finally:
            self.opening.discard(table_id)
        lost = self._leasing.lost_opening if self._leasing is not None else set()
        if table_id in lost:  # another server took it meanwhile: not ours
            lost.discard(table_id)
            await table.stop(hand_off=True)
            raise Fenced(f"table {table_id} was taken by another server while it opened")
        self.tables[table_id] = table
        return table

    def may_host(self, table_id: str) -> bool:
        return self.only is None or table_id == self.only

    async def _claim(self, table_id: str) -> bool:
        """Take the table's lease (a shared log); every table is this server's otherwise."""
        return self._leasing is None or await self._leasing.claim(table_id)

    async def _save_clocks(self) -> None:
        while True:
            await asyncio.sleep(self._save_every)
            try:
                self.save_clocks()
            except Exception:
                logger.exception("saving the clocks failed")
