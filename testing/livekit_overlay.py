"""A LiveKit participant that uses the overlay as the widget does (plugin/rooms/livekit/rpc.py):
commands as RPC to the bot, its views as data messages, reassembled from parts.

It holds what a page holds: a LiveKit token, nothing of our server's. `call` retries with
backoff until a bot answers (after a failover the new owner's bot joins a few seconds
later), as autohost-widget.js does.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from typing import Any

from livekit import rtc

from plugin.rooms.livekit.rpc import COMMAND_METHOD, HELLO_METHOD, PART_TOPIC, TOPIC
from plugin.rooms.livekit.seats import BOT_IDENTITY, is_bot_identity

# What a caller sees while no bot serves the method: no bot in the room, or one that is not
# ready yet, or the old one gone mid-call.
RETRIED = {
    rtc.RpcError.ErrorCode.RECIPIENT_NOT_FOUND,
    rtc.RpcError.ErrorCode.UNSUPPORTED_METHOD,
    rtc.RpcError.ErrorCode.RECIPIENT_DISCONNECTED,
    rtc.RpcError.ErrorCode.CONNECTION_TIMEOUT,
    rtc.RpcError.ErrorCode.RESPONSE_TIMEOUT,
    rtc.RpcError.ErrorCode.SEND_FAILED,
}


class Parts:
    """The bot's data messages made whole: one packet on TOPIC, or parts on PART_TOPIC."""

    def __init__(self) -> None:
        self._parts: dict[int, list[bytes]] = {}

    def add(self, packet: rtc.DataPacket) -> bytes | None:
        """The message this packet completes (None: a part of one still to come, or
        another topic)."""
        if packet.topic == TOPIC:
            return packet.data
        if packet.topic != PART_TOPIC:
            return None
        header, _, body = packet.data.partition(b"\n")
        head = json.loads(header)
        got = self._parts.setdefault(head["seq"], [])
        got.append(body)
        if len(got) < head["parts"]:
            return None
        return b"".join(self._parts.pop(head["seq"]))


def bot_in(room: rtc.Room) -> str:
    """The bot's name in `room`: the newest reserved bot name present (a bot replaced by
    an impostor joins again as `autohost-bot-<random>`), else `autohost-bot`."""
    names = [i for i in room.remote_participants if is_bot_identity(i)]
    return names[-1] if names else BOT_IDENTITY


async def call_bot(
    room: rtc.Room, method: str, payload: str, *, seconds: float = 30.0, timeout: float = 3.0
) -> str:
    """One RPC from `room`'s participant to the bot, tried again with backoff while no bot
    answers it (for `seconds`); the bot's answer."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    delay = 0.1
    while True:
        try:
            return await room.local_participant.perform_rpc(
                destination_identity=bot_in(room),
                method=method,
                payload=payload,
                response_timeout=timeout,
            )
        except rtc.RpcError as error:
            if error.code not in RETRIED or loop.time() + delay > deadline:
                raise
            await asyncio.sleep(delay)
            delay = min(delay * 2, 1.0)


class OverlayClient:
    """One participant of a table's room, speaking the overlay over LiveKit."""

    def __init__(self, url: str, token: str) -> None:
        self.url, self.token = url, token
        self.room = rtc.Room()
        self.messages: list[dict[str, Any]] = []  # every data message from the bot, in order
        self.foreign: list[tuple[str, bytes]] = []  # data from anybody but the bot
        self.changed = asyncio.Event()
        self._parts = Parts()
        self._ids = itertools.count(1)
        self.room.on("data_received", self._received)

    async def join(self) -> None:
        await self.room.connect(self.url, self.token, rtc.RoomOptions(auto_subscribe=False))

    async def leave(self) -> None:
        await self.room.disconnect()

    @property
    def identity(self) -> str:
        return self.room.local_participant.identity

    @property
    def states(self) -> list[dict[str, Any]]:
        return [m for m in self.messages if m.get("type") == "state"]

    @property
    def state(self) -> dict[str, Any] | None:
        states = self.states
        return states[-1] if states else None

    async def call(
        self, method: str, payload: str, *, seconds: float = 30.0, timeout: float = 3.0
    ) -> dict[str, Any]:
        """One RPC to the bot, tried again with backoff while no bot answers it."""
        answer = await call_bot(self.room, method, payload, seconds=seconds, timeout=timeout)
        decoded: dict[str, Any] = json.loads(answer)
        return decoded

    async def hello(self, **options: float) -> dict[str, Any]:
        return await self.call(HELLO_METHOD, "", **options)

    async def send(self, type: str, *, seconds: float = 30.0, **fields: Any) -> dict[str, Any]:
        """A protocol message (a fresh id) as RPC: the bot's ack or error."""
        message = {"v": 1, "id": f"lk-{self.identity}-{next(self._ids)}", "type": type, **fields}
        return await self.call(COMMAND_METHOD, json.dumps(message), seconds=seconds)

    async def raw(self, payload: str) -> dict[str, Any]:
        return await self.call(COMMAND_METHOD, payload)

    def _received(self, packet: rtc.DataPacket) -> None:
        sender = packet.participant.identity if packet.participant else ""
        if not is_bot_identity(sender):
            self.foreign.append((sender, packet.data))
            return
        data = self._parts.add(packet)
        if data is not None:
            self._add(data)

    def _add(self, data: bytes) -> None:
        self.messages.append(json.loads(data))
        self.changed.set()
