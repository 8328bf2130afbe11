"""A table hosted in a LiveKit room: the room backend with the bot that speaks in it.

`BotRoom` is the table's RoomBackend: LiveKitRoom for the microphones plus LiveKitBot,
which joins as a visible participant and plays the table's voice (its 20 ms PCM frames).
The assembly (plugin.server.livekit) makes one per table.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable

from livekit.protocol.models import ParticipantInfo

from plugin.host.ports import PcmFrame, PresenceCallback
from plugin.rooms.livekit.backend import LiveKitRoom
from plugin.rooms.livekit.bot import LiveKitBot

log = logging.getLogger(__name__)

FrameSource = Callable[[], AsyncIterator[PcmFrame]]


class BotRoom:
    """RoomBackend: microphones through `room`, the voice through `bot`."""

    def __init__(self, room: LiveKitRoom, bot: LiveKitBot, frames: FrameSource | None) -> None:
        self.room = room
        self.bot = bot
        self._frames = frames
        self._playing: asyncio.Task[None] | None = None

    async def start(self) -> None:
        await self.room.start()
        await self.bot.start()
        if self._frames is not None:
            self._playing = asyncio.create_task(self._play(self._frames), name="livekit-voice")

    async def _play(self, frames: FrameSource) -> None:
        try:
            await self.bot.play(frames())
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("livekit: the bot's voice stopped")

    async def set_speakers(self, seats: frozenset[int]) -> None:
        await self.room.set_speakers(seats)

    async def release_all(self) -> None:
        await self.room.release_all()

    def on_presence(self, callback: PresenceCallback) -> None:
        self.room.on_presence(callback)

    async def participant_joined(self, info: ParticipantInfo) -> None:
        await self.room.participant_joined(info)

    async def participant_left(self, info: ParticipantInfo) -> None:
        await self.room.participant_left(info)

    async def stop(self) -> None:
        if self._playing is not None:
            self._playing.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._playing
        await self.bot.stop()
        await self.room.stop()
