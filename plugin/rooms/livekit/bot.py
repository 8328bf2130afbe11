"""The bot in the club's LiveKit room: a visible participant that speaks as the host.

It publishes one microphone track fed from an `rtc.AudioSource(48000, 1)`; the voice
hands it 20 ms frames of 16-bit mono PCM at 48 kHz (960 samples), the same cached PCM
the embedded room plays. `capture_frame` waits while the source's queue is full, which
paces a producer that runs ahead of real time. The bot also sees who joins and leaves
and passes that to the room (the same events the webhook brings; duplicates are fine).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterable
from typing import Any, cast

from livekit import rtc
from livekit.protocol.models import ParticipantInfo, ParticipantPermission

from plugin.rooms.livekit.webhook import RoomEvents

log = logging.getLogger(__name__)

SAMPLE_RATE = 48_000
FRAME_SAMPLES = 960  # 20 ms at 48 kHz
FRAME_BYTES = FRAME_SAMPLES * 2


class LiveKitBot:
    """Joins `url` with `token` (identity autohost-bot), publishes the voice track."""

    def __init__(
        self, url: str, token: str, *, events: RoomEvents | None = None, queue_ms: int = 200
    ) -> None:
        self.url = url
        self.room = rtc.Room()
        self.frames_sent = 0
        self._token = token
        self._events = events
        self._queue_ms = queue_ms  # short: an urgent phrase must not wait behind a second
        self._source: rtc.AudioSource | None = None
        self._tasks: set[asyncio.Task[Any]] = set()

    @property
    def identity(self) -> str:
        return self.room.local_participant.identity

    async def start(self) -> None:
        """Connect, publish the microphone track, then report who is already there."""
        self.room.on("participant_connected", self._joined)
        self.room.on("participant_disconnected", self._left)
        await self.room.connect(self.url, self._token, rtc.RoomOptions(auto_subscribe=False))
        self._source = rtc.AudioSource(SAMPLE_RATE, 1, queue_size_ms=self._queue_ms)
        track = rtc.LocalAudioTrack.create_audio_track("autohost-voice", self._source)
        options = rtc.TrackPublishOptions(source=rtc.TrackSource.SOURCE_MICROPHONE)
        await self.room.local_participant.publish_track(track, options)
        for participant in self.room.remote_participants.values():
            self._joined(participant)

    async def play(self, frames: AsyncIterable[bytes]) -> None:
        """Send every frame of `frames` (20 ms, 960 int16 samples each) into the track."""
        if self._source is None:
            raise RuntimeError("LiveKitBot.play before start")
        async for pcm in frames:
            data = bytes(pcm)
            if len(data) != FRAME_BYTES:
                raise ValueError(f"a voice frame is {FRAME_BYTES} bytes (20 ms), not {len(data)}")
            frame = rtc.AudioFrame(data, SAMPLE_RATE, 1, FRAME_SAMPLES)
            await self._source.capture_frame(frame)
            self.frames_sent += 1

    def interrupt(self) -> None:
        """Drop what is queued (an urgent phrase cuts the current one short)."""
        if self._source is not None:
            self._source.clear_queue()

    async def stop(self) -> None:
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await self.room.disconnect()
        if self._source is not None:
            await self._source.aclose()
            self._source = None

    def _joined(self, participant: rtc.RemoteParticipant) -> None:
        if self._events is not None:
            self._spawn(self._events.participant_joined(participant_info(participant)))

    def _left(self, participant: rtc.RemoteParticipant) -> None:
        if self._events is not None:
            self._spawn(self._events.participant_left(participant.identity))

    def _spawn(self, coroutine: Any) -> None:
        task = asyncio.get_running_loop().create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)


def participant_info(participant: rtc.RemoteParticipant) -> ParticipantInfo:
    """The SDK's participant as the protocol's ParticipantInfo (what webhooks carry)."""
    held = participant.permissions
    permission = ParticipantPermission(
        can_subscribe=held.can_subscribe,
        can_publish=held.can_publish,
        can_publish_data=held.can_publish_data,
        can_publish_sources=cast(
            Any, list(held.can_publish_sources)
        ),  # same numbers as TrackSource
    )
    return ParticipantInfo(
        sid=participant.sid,
        identity=participant.identity,
        attributes=participant.attributes,
        kind=cast(Any, int(participant.kind)),  # the same numbers as ParticipantInfo.Kind
        permission=permission,
    )
