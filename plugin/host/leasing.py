"""The lease loop of a registry on a shared log (PostgreSQL, issue 16): a table is hosted by
one server at a time through its lease (plugin.host.ports.Leases).

The loop heartbeats the leases of the open tables every `heartbeat` seconds, claims every
table nobody holds (a dead server's, after its lease ran out) and has the registry replay
it; a table whose write was fenced out, or whose lease another server took, is dropped at
once without touching its microphones (they are the new owner's now). A server that could
not heartbeat for a whole lease (paused, cut off from the database) drops every table
before anything else, since others may have claimed them, and claims back those nobody
took. `holds` says whether this server may act for a table now.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import TYPE_CHECKING

from plugin.tasks import cancel_and_wait

from .ports import Leases, LogUnavailable

if TYPE_CHECKING:
    from .registry import Registry

logger = logging.getLogger(__name__)
CLAIMS_PER_HEARTBEAT = 4  # how often, per heartbeat, a server looks for tables nobody holds
# How often this server measures again how far its clock is from the database's (Log.wall:
# the time every link's expiry and every log stamp is taken in, issue 31), so a clock
# stepped after the start (NTP, a resumed virtual machine) is followed within it.
CLOCK_MEASURE_SECONDS = 60.0


class LeaseLoop:
    """The heartbeat, the claims and the drops of one registry's tables."""

    def __init__(self, registry: Registry, leases: Leases, *, heartbeat: float) -> None:
        self.registry = registry
        self.leases = leases
        self.heartbeat = heartbeat
        self.lost_opening: set[str] = set()  # leases lost while their table was opening
        self.claimed: dict[str, float] = {}  # table id -> when its lease was last taken here
        self._renewed = time.monotonic()  # the last heartbeat sent that the database answered
        self._heartbeat: asyncio.Task[None] | None = None
        self._claimer: asyncio.Task[None] | None = None
        self._dropping: set[asyncio.Task[None]] = set()

    async def start(self) -> None:
        """Claim and open the tables nobody holds, then heartbeat and claim in the
        background."""
        self.leases.on_fenced(self._on_fenced)
        await self.claim_unowned()
        self._heartbeat = asyncio.create_task(self._keep_leases(), name="leases")
        self._claimer = asyncio.create_task(self._keep_claiming(), name="claims")

    async def stop(self) -> None:
        await cancel_and_wait([self._heartbeat, self._claimer, *self._dropping], log=logger)
        self._heartbeat = self._claimer = None

    def holds(self, table_id: str) -> bool:
        """Whether this server renewed its leases (or took this one) less than a lease ago:
        a server resumed after a pause must not touch microphones before it has dropped
        the table."""
        since = max(self._renewed, self.claimed.get(table_id, 0.0))
        return time.monotonic() - since < self.leases.lease

    async def claim(self, table_id: str) -> bool:
        """Take the table's lease; when it was taken counts as a heartbeat for holds()."""
        asked = time.monotonic()
        if not await self.leases.claim(table_id):
            return False
        self.claimed[table_id] = asked
        return True

    async def claim_unowned(self) -> None:
        """Claim and open every live table nobody holds (a new epoch each), replayed."""
        registry = self.registry
        for table_id in await self.leases.unowned():
            async with registry.lock:
                if (
                    table_id in registry.tables
                    or table_id in registry.broken
                    or table_id in registry.opening
                ):
                    continue  # hosted, broken, or being opened here (made, or claimed by get)
                if not registry.may_host(table_id):
                    continue  # a one-table server leaves the others to the full servers
                if len(registry.tables) >= registry.max_tables:
                    return
                if not await self.claim(table_id):
                    continue
                record = registry.log.table_settings(table_id)
                if record is not None:
                    logger.info("table %s: claimed, replayed and hosted here", table_id)
                    await registry.open_or_mark_broken(table_id, record)

    async def drop(self, table_id: str, why: str) -> None:
        """Stop hosting a table another server may own now, without touching its
        microphones (they are the new owner's) and without writing."""
        table = self.registry.tables.pop(table_id, None)
        self.claimed.pop(table_id, None)
        if table is None:
            return
        logger.warning("table %s: dropped (%s)", table_id, why)
        try:
            await table.stop(hand_off=True)
        except Exception:
            logger.exception("table %s: stop failed", table_id)
        self.registry.on_drop(table_id)

    def _on_fenced(self, table_id: str) -> None:
        task = asyncio.get_running_loop().create_task(
            self.drop(table_id, "its write was fenced out"), name=f"drop {table_id}"
        )
        self._dropping.add(task)
        task.add_done_callback(self._dropping.discard)

    async def _keep_leases(self) -> None:
        """Renew the leases of the open tables (and of those being opened) every heartbeat
        and drop those lost. Late by a whole lease (paused, cut off from the database):
        drop everything first, others may have claimed it meanwhile. Claims run in their
        own task: opening a claimed table (a replay, a LiveKit room) never holds this up."""
        registry = self.registry
        renewed = self._renewed = measured = time.monotonic()
        while True:
            await asyncio.sleep(self.heartbeat)
            now = time.monotonic()
            if now - measured >= CLOCK_MEASURE_SECONDS:
                measured = now
                # One short read; away, the last offset holds until it answers again.
                with contextlib.suppress(LogUnavailable):
                    registry.log.wall_now()
            if now - renewed > self.leases.lease and registry.tables:
                logger.warning("no heartbeat for %.1f s: dropping every table", now - renewed)
                for table_id in list(registry.tables):
                    await self.drop(table_id, "its lease may have run out")
            try:
                lost = await self.leases.renew([*registry.tables, *registry.opening])
                renewed = self._renewed = now
                for table_id in lost:
                    if table_id in registry.opening:
                        self.lost_opening.add(table_id)
                    await self.drop(table_id, "another server took its lease")
            except LogUnavailable as failure:
                logger.error("leases: %s", failure)
            except Exception:
                logger.exception("leases: the heartbeat failed")

    async def _keep_claiming(self) -> None:
        """Four times a heartbeat claim the tables nobody holds (a dead server's tables
        wait for no more than what was left of its lease)."""
        while True:
            await asyncio.sleep(self.heartbeat / CLAIMS_PER_HEARTBEAT)
            try:
                await self.claim_unowned()
            except LogUnavailable as failure:
                logger.error("claims: %s", failure)
            except Exception:
                logger.exception("claims: a claim pass failed")
