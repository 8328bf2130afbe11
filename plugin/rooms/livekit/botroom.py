"""A table hosted in a LiveKit room: the room backend with the bot that speaks in it.

`BotRoom` is the table's RoomBackend: LiveKitRoom for the microphones plus LiveKitBot,
which joins as a visible participant and plays the table's voice (its 20 ms PCM frames).
The assembly (plugin.server.livekit) makes one per table.

The voice is played only once the table says something (`play`, or `frames` at start): a
table that never speaks costs no frame loop at all, and the bot sends no frame of silence.
A new speaker's audio reaches the listeners about 0.45 s after his grant (a fresh track
each turn): `on_audio` reports when it flows, so the table starts his countdown then
(first_audio.py, plugin.host.first_word).
A room that another table takes over (a club's room reused for the next game) is
`detach`ed first: its bot leaves, and it never touches that room's microphones again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any

from livekit.protocol.models import ParticipantInfo

from plugin.host.ports import PcmFrame, PresenceCallback, Voice
from plugin.rooms.livekit.backend import LiveKitRoom
from plugin.rooms.livekit.bot import QUIET_SECONDS, SPEECH_QUIET_SECONDS, LiveKitBot
from plugin.rooms.livekit.first_audio import AudioCallback, FirstAudio

log = logging.getLogger(__name__)

FrameSource = Callable[[], AsyncIterator[PcmFrame]]


class BotRoom:
    """RoomBackend: microphones through `room`, the voice through `bot`."""

    def __init__(
        self,
        room: LiveKitRoom,
        bot: LiveKitBot,
        frames: FrameSource | None,
        *,
        replaces: BotRoom | None = None,
    ) -> None:
        self.room = room
        self.bot = bot
        self.detached = False
        self._frames = frames
        self._replaces = replaces
        self._started = False
        self._playing: asyncio.Task[None] | None = None
        self._speakers: frozenset[int] = frozenset()
        self.first_audio = FirstAudio()
        bot.on_room.append(self.first_audio.attach)

    async def start(self) -> None:
        if self._replaces is not None:  # its bot must be gone before ours joins
            await self._replaces.detach()
            self._replaces = None
        await self.room.start()
        await self.bot.start()
        self._started = True
        if self._frames is not None:
            self.play(self._frames)

    def play(self, frames: FrameSource) -> None:
        """Play `frames` through the bot from now on (once; later calls are ignored)."""
        self._frames = frames
        if self._playing is None and self._started and not self.detached:
            self._playing = asyncio.create_task(self._play(frames), name="livekit-voice")

    async def _play(self, frames: FrameSource) -> None:
        try:
            await self.bot.play(frames())
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("livekit: the bot's voice stopped")

    async def set_speakers(self, seats: frozenset[int]) -> None:
        if not self.detached:
            # While a player speaks the bot's next phrase is far: its track goes soon.
            self.bot.set_quiet_after(SPEECH_QUIET_SECONDS if seats else QUIET_SECONDS)
            # Watched before the grant goes, so his track's publication is not missed.
            fresh, self._speakers = seats - self._speakers, seats
            self.first_audio.expect(self.bot.room if self._started else None, fresh, seats)
            await self.room.set_speakers(seats)

    def on_audio(self, callback: AudioCallback) -> None:
        """Call `callback(seat)` once a newly granted seat's audio flows in the room."""
        self.first_audio.on_audio(callback)

    async def release_all(self) -> None:
        if not self.detached:
            await self.room.release_all()

    def on_presence(self, callback: PresenceCallback) -> None:
        self.room.on_presence(callback)

    @property
    def listed_since(self) -> float:
        """When the room first read who is in it (webhook events from before are history)."""
        return self.room.listed_since

    async def participant_joined(self, info: ParticipantInfo) -> None:
        if not self.detached:
            await self.room.participant_joined(info)

    async def participant_left(self, info: ParticipantInfo) -> None:
        if not self.detached:
            await self.room.participant_left(info)

    async def detach(self) -> None:
        """Leave the room to another table: the bot goes, no microphone is touched."""
        if not self.detached:
            self.detached = True
            log.warning("livekit: room %s is taken over by another table", self.room.room)
            await self._shut()

    async def stop(self) -> None:
        if not self.detached:
            await self._shut()
        self.detached = True

    async def _shut(self) -> None:
        if self._playing is not None:
            self._playing.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._playing
            self._playing = None
        await self.first_audio.stop()
        await self.bot.stop()
        await self.room.stop()


class VoiceOnDemand:
    """A table's Voice whose frames `room`'s bot starts playing at the first announcement:
    until the table says something, no frame is made, fetched or sent (an Announcer's
    clock starts with its first listener)."""

    def __init__(self, voice: Voice, room: BotRoom) -> None:
        self.voice = voice
        self._room = room

    async def announce(self, key: str, params: Mapping[str, Any], *, urgent: bool = False) -> None:
        self._room.play(self.voice.pcm_frames)
        await self.voice.announce(key, params, urgent=urgent)

    async def skip_queued(self) -> None:
        await self.voice.skip_queued()

    def pcm_frames(self) -> AsyncIterator[PcmFrame]:
        return self.voice.pcm_frames()

    def on_cut(self, callback: Callable[[], None]) -> None:
        self.voice.on_cut(callback)

    async def stop(self) -> None:
        await self.voice.stop()
