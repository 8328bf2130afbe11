"""The overlay through LiveKit: commands as RPC to the bot, the state as data messages.

A page in LiveKit mode needs only its LiveKit connection. It calls two RPC methods on the
bot participant (identity `autohost-bot`, whichever server hosts the table):
- `autohost.hello` (payload ignored): "send me my view"; the answer says who the bot takes
  the caller for (`{"type": "hello", "v": 1, "seat": N | "host" | null}`), and the view
  follows as a data message, then again after every change;
- `autohost.command`: the payload is one client message of the WebSocket protocol
  (docs/protocol.md), the answer the socket's ack or error for it.
The caller's identity is the one LiveKit verified; the seat comes from the participant the
room knows by that identity (seats.py, with the host proved as proof.py says), never from
the payload. The state goes to that identity only (`destination_identities`, reliable, on
topic `autohost`); a message longer than one data packet (about 15 KiB, FIELD-NOTES) goes
as parts on topic `autohost.part`, each `{"seq": S, "part": i, "parts": n}\n` and a slice.

This module is LiveKit's side only (who is calling, how to send); what a message means is
the server's (plugin/server/overlay.py), which hands `OverlayChannel` its `Handler`.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Coroutine
from dataclasses import dataclass
from typing import Any, Protocol

from livekit import rtc

from plugin.rooms.livekit.backend import LiveKitRoom, Seen
from plugin.rooms.livekit.bot import participant_info
from plugin.rooms.livekit.seats import is_bot_identity

log = logging.getLogger(__name__)

HELLO_METHOD = "autohost.hello"
COMMAND_METHOD = "autohost.command"
TOPIC = "autohost"
PART_TOPIC = "autohost.part"
MAX_PACKET_BYTES = 14 * 1024  # under LiveKit's ~15 KiB for one reliable data packet
LISTENERS_SECONDS = 1.0  # how often the hidden listeners the room lists are looked at
READ_ROOM_SECONDS = 1.0  # an unknown caller makes the room be re-read at most this often


@dataclass(frozen=True, slots=True)
class Caller:
    """Who an RPC came from: the identity LiveKit verified, his seat, whether he is the
    proved live host. Neither: a spectator (the public view, no commands)."""

    identity: str
    seat: int | None
    host: bool = False


class Handler(Protocol):
    """What the server does with the overlay's calls (plugin/server/overlay.py)."""

    def hello(self, caller: Caller) -> Awaitable[str]: ...

    def command(self, caller: Caller, payload: str) -> Awaitable[str]: ...

    def gone(self, identity: str) -> Coroutine[Any, Any, None]: ...

    def listeners(self, identities: set[str]) -> Coroutine[Any, Any, None]: ...


def parts(data: bytes, seq: int, limit: int = MAX_PACKET_BYTES) -> list[tuple[str, bytes]]:
    """`data` as (topic, payload) packets of at most `limit` bytes each."""
    if len(data) <= limit:
        return [(TOPIC, data)]
    size = limit - 64  # room for the header line
    slices = [data[i : i + size] for i in range(0, len(data), size)]
    return [
        (PART_TOPIC, json.dumps({"seq": seq, "part": i, "parts": len(slices)}).encode() + b"\n" + s)
        for i, s in enumerate(slices)
    ]


class OverlayChannel:
    """One table's overlay over its bot's LiveKit room. `attach(room)` each time the bot
    joins (a rejoin is a new rtc.Room: the methods are registered again)."""

    def __init__(self, room: LiveKitRoom, handler: Handler | None = None) -> None:
        self.room = room
        self.handler = handler
        self.rtc: rtc.Room | None = None
        self.sent = 0  # data packets published (tests, benches)
        self._seq = 0
        self._read_at = -READ_ROOM_SECONDS
        self._tasks: set[asyncio.Task[None]] = set()
        self._watching: asyncio.Task[None] | None = None

    def attach(self, rtc_room: rtc.Room) -> None:
        """Serve the overlay's RPC methods in the bot's (new) room."""
        self.rtc = rtc_room
        local = rtc_room.local_participant
        local.register_rpc_method(HELLO_METHOD, self._hello)
        local.register_rpc_method(COMMAND_METHOD, self._command)
        rtc_room.on("participant_disconnected", self._disconnected)
        if self._watching is not None:
            self._watching.cancel()
        self._watching = asyncio.get_running_loop().create_task(self._watch(rtc_room))
        # Whoever is in the room already (a rejoin, a new owner after a failover) gets his
        # view unasked: a page carries on without waiting for its own hello.
        for identity in list(rtc_room.remote_participants):
            self._spawn(self._greet(identity))

    async def _greet(self, identity: str) -> None:
        caller = await self.caller(identity)
        if caller is not None and self.handler is not None:
            await self.handler.hello(caller)

    def hidden_listeners(self) -> set[str]:
        """The hidden participants without a seat the room lists (ListParticipants, the
        webhook): LiveKit hides their identity from an RPC's callee, so they cannot ask,
        but data reaches them by identity; they get the spectators' view."""
        return {
            identity
            for identity, seen in self.room.participants.items()
            if seen.permission is not None and seen.permission.hidden
            and seen.seat is None and not seen.host and not is_bot_identity(identity)
        }  # fmt: skip

    async def _watch(self, rtc_room: rtc.Room) -> None:
        while rtc_room.isconnected():  # a rejoin is a new room, watched by a new task
            if self.handler is not None:
                try:
                    await self.handler.listeners(self.hidden_listeners())
                except Exception:
                    log.exception("livekit: the hidden listeners of %s", self.room.room)
            await asyncio.sleep(LISTENERS_SECONDS)

    async def caller(self, identity: str) -> Caller | None:
        """The caller behind a verified identity, None if the room does not know him."""
        if is_bot_identity(identity):
            return None  # another bot (a duplicate, an impostor) is nobody's seat
        seen = self._seen(identity)
        now = asyncio.get_running_loop().time()
        if seen is None and now - self._read_at >= READ_ROOM_SECONDS:
            # a hidden listener, or a join not heard of yet: read the room (ListParticipants
            # lists hidden participants), at most once a second however many ask
            self._read_at = now
            try:
                await self.room.reconcile()
            except Exception as error:  # the server is away: he stays unknown this time
                log.warning("livekit: could not read room %s: %s", self.room.room, error)
            seen = self._seen(identity)
        if seen is None:
            return None
        return Caller(identity, seen.seat, seen.host)

    def _seen(self, identity: str) -> Seen | None:
        participant = self.rtc.remote_participants.get(identity) if self.rtc else None
        if participant is not None:
            return self.room.seen(participant_info(participant))
        return self.room.participants.get(identity)  # ListParticipants lists hidden ones

    async def send(self, identity: str, data: bytes) -> None:
        """Publish `data` to `identity` only (reliable), in parts if it is too long."""
        if self.rtc is None:
            raise ConnectionError("the bot is not in the room")
        self._seq += 1
        for topic, payload in parts(data, self._seq):
            await self.rtc.local_participant.publish_data(
                payload, reliable=True, destination_identities=[identity], topic=topic
            )
            self.sent += 1

    async def _hello(self, data: rtc.RpcInvocationData) -> str:
        caller = await self._resolve(data)
        assert self.handler is not None  # _resolve refused otherwise
        return await self.handler.hello(caller)

    async def _command(self, data: rtc.RpcInvocationData) -> str:
        caller = await self._resolve(data)
        assert self.handler is not None
        return await self.handler.command(caller, data.payload)

    async def _resolve(self, data: rtc.RpcInvocationData) -> Caller:
        if self.handler is None:
            raise rtc.RpcError(rtc.RpcError.ErrorCode.UNSUPPORTED_METHOD, "no table here yet")
        if not data.caller_identity:  # a hidden participant: no answer could reach him
            raise rtc.RpcError(rtc.RpcError.ErrorCode.APPLICATION_ERROR, "hidden caller")
        caller = await self.caller(data.caller_identity)
        if caller is None:
            return Caller(data.caller_identity, None)  # a spectator at most
        return caller

    def _disconnected(self, participant: rtc.RemoteParticipant) -> None:
        if self.handler is not None:
            self._spawn(self.handler.gone(participant.identity))

    def _spawn(self, coroutine: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
