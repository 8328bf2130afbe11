"""Who is in a lobby, and who is put out of it (issue 31, "the lobby").

The outside check filled a 30-place lobby from one address in 21 s (50 connects, each
closing after its join): the places outlived their sockets, an invite re-issue and a
restart, and the host could not remove them; and a device seated through the lobby kept
its lobby socket, and its seat, through a re-issue of that seat. So:

- A waiting place (and a device asking for a seat) lives only while its device has a
  lobby socket open: when a player's last socket closes, and when a lobby is first used
  (after a restart or a failover), a sweep runs LOBBY_GRACE_SECONDS (lobby_limits.py)
  later and removes the places whose devices are still away (a reload comes back well
  within it).
- A re-issue of a seat's link vacates the lobby's entry seated there (`vacate`), and every
  lobby socket of its devices is ended: the old device is pushed no new token and is not
  seated again by its device alone.
- The host may unseat or remove one player and clear the lobby (lobby_socket.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Collection, Iterable, Mapping
from typing import Any

import msgspec

from plugin.host.table import Table

from .close_codes import CloseCode
from .context import Server
from .lobbies import LobbyRoom
from .lobby_views import broadcast

logger = logging.getLogger(__name__)
_encode = msgspec.json.Encoder().encode


async def commit(room: LobbyRoom, records: Iterable[Mapping[str, Any]]) -> None:
    """Each record durable, then applied (the caller holds `room.lock`)."""
    for record in records:
        await room.table.log.commit(room.table.id, dict(record), source="lobby")
        room.lobby.apply(record)


def end_devices(
    room: LobbyRoom,
    devices: Collection[str],
    code: str,
    message: str,
    close: CloseCode = CloseCode.ENDED,
) -> None:
    """End every lobby socket of these devices: nothing more they send counts. `close`
    REMOVED (the host removed them) is final: their pages do not reconnect."""
    reply = _encode({"type": "error", "error": code, "message": message})
    for client in room.clients:
        if client.device is not None and client.device in devices:
            client.ended = True
            client.connection.close_with(reply, close, code)


async def vacate(server: Server, table: Table, seats: Iterable[int]) -> None:
    """These seats' links were re-issued: the lobby's players seated there leave the lobby,
    and their devices' lobby sockets are ended for good (REMOVED, final: issue 31). A
    re-issue is the host taking the seat from that device; ENDED (4410) let its page
    reconnect and come back to the lobby as a newcomer, where it was not meant to be."""
    room = server.lobbies.room(table)
    async with room.lock:
        for seat in seats:
            entry = next((e for e in room.lobby.entries.values() if e.seat == seat), None)
            if entry is None:
                continue
            devices = set(entry.devices)
            await commit(room, room.lobby.vacate(seat))
            end_devices(
                room, devices, "token_reissued", "this seat's link was replaced",
                CloseCode.REMOVED,
            )  # fmt: skip
    broadcast(server, room, refused_devices=set())


def connected_devices(room: LobbyRoom) -> set[str]:
    return {c.device for c in room.clients if c.device is not None and not c.ended}


def schedule_sweep(server: Server, room: LobbyRoom) -> None:
    """Remove the places of devices still away a grace from now (one sweep pending
    per lobby; a later call while it waits changes nothing: it sees every departure)."""
    if room.sweep is not None and not room.sweep.done():
        return
    room.sweep = asyncio.get_running_loop().create_task(
        _sweep_later(server, room), name=f"lobby sweep {room.table.id}"
    )


async def _sweep_later(server: Server, room: LobbyRoom) -> None:
    grace = server.lobbies.grace_seconds
    wait = grace
    while True:
        await asyncio.sleep(wait)
        if server.lobbies.rooms.get(room.table.id) is not room:
            return  # the table moved, stopped or was rebuilt: its own lobby sweeps itself
        now = time.monotonic()
        # A device away for less than the grace keeps its place for now (a reload).
        here = connected_devices(room)
        until = {d: room.left.get(d, room.made) + grace for d in _devices(room) - here}
        pending = {d: t for d, t in until.items() if t > now}
        kept = here | set(pending)
        try:
            async with room.lock:
                records = room.lobby.absent(kept)
                await commit(room, records)
        except Exception as failure:  # a fenced or failing log (LogUnavailable): next time
            logger.warning("lobby %s: the sweep failed: %s", room.table.id, failure)
            return
        if records:
            broadcast(server, room, refused_devices=set())
        if not pending:
            return
        wait = max(0.1, min(pending.values()) - now)  # the next one whose grace ends


def _devices(room: LobbyRoom) -> set[str]:
    """The devices the lobby holds a waiting place or a request for."""
    waiting = {d for e in room.lobby.waiting() for d in e.devices}
    return waiting | {r.device for r in room.lobby.requests.values()}


def left(room: LobbyRoom, device: str) -> None:
    """`device` closed its last lobby socket now: its place waits a grace for it."""
    room.left[device] = time.monotonic()


async def stop(server: Server) -> None:
    """Cancel every pending sweep (the server stops)."""
    for room in list(server.lobbies.rooms.values()):
        if room.sweep is not None:
            room.sweep.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await room.sweep
