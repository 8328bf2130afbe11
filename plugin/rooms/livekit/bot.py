"""The bot in the club's LiveKit room: a visible participant that speaks as the host.

It publishes one microphone track fed from an `rtc.AudioSource(48000, 1)`; the voice
hands it 20 ms frames of 16-bit mono PCM at 48 kHz (960 samples), the same cached PCM
the embedded room plays. `capture_frame` waits while the source's queue is full, which
paces a producer that runs ahead of real time. The bot also sees who joins and leaves
and passes that to the room (the same events the webhook brings; duplicates are fine).
The SDK resumes a dropped connection by itself; when the room is lost for good anyway
(removed by an admin, server restarted) the bot joins again with backoff, on the same
audio source, unless it was replaced by another bot with its identity.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterable, Callable
from typing import Any, cast

from livekit import rtc
from livekit.protocol.models import ParticipantInfo, ParticipantPermission

from plugin.host.ports import PcmFrame
from plugin.rooms.livekit.webhook import RoomEvents

log = logging.getLogger(__name__)

SAMPLE_RATE = 48_000
FRAME_SAMPLES = 960  # 20 ms at 48 kHz
FRAME_BYTES = FRAME_SAMPLES * 2
# Lost for good by our own hand or to another bot with our identity: do not join again.
FINAL_REASONS = frozenset({rtc.DisconnectReason.CLIENT_INITIATED,
                           rtc.DisconnectReason.DUPLICATE_IDENTITY})  # fmt: skip


class LiveKitBot:
    """Joins `url` with `token` (identity autohost-bot), publishes the voice track.

    `token` may be a callable giving a fresh token for each join (tokens expire).
    """

    def __init__(
        self,
        url: str,
        token: str | Callable[[], str],
        *,
        events: RoomEvents | None = None,
        queue_ms: int = 200,
        rejoin_delay: float = 0.5,
    ) -> None:
        self.url = url
        self.room = rtc.Room()
        self.frames_sent = 0
        self.rejoins = 0
        self._token = token
        self._rejoin_delay = rejoin_delay
        self._stopping = False
        self._events = events
        self._queue_ms = queue_ms  # short: an urgent phrase must not wait behind a second
        self._source: rtc.AudioSource | None = None
        self._tasks: set[asyncio.Task[Any]] = set()

    @property
    def identity(self) -> str:
        return self.room.local_participant.identity

    async def start(self) -> None:
        """Connect, publish the microphone track, then report who is already there."""
        self._source = rtc.AudioSource(SAMPLE_RATE, 1, queue_size_ms=self._queue_ms)
        await self._join(self.room)

    async def _join(self, room: rtc.Room) -> None:
        assert self._source is not None
        room.on("participant_connected", self._joined)
        room.on("participant_disconnected", self._left)
        room.on("disconnected", self._disconnected)
        token = self._token() if callable(self._token) else self._token
        await room.connect(self.url, token, rtc.RoomOptions(auto_subscribe=False))
        self.room = room
        track = rtc.LocalAudioTrack.create_audio_track("autohost-voice", self._source)
        options = rtc.TrackPublishOptions(source=rtc.TrackSource.SOURCE_MICROPHONE)
        await room.local_participant.publish_track(track, options)
        for participant in room.remote_participants.values():
            self._joined(participant)

    def _disconnected(self, reason: int) -> None:
        if self._stopping or reason in FINAL_REASONS:
            return
        log.warning("livekit: the bot lost the room (reason %s); joining again", reason)
        self._spawn(self._rejoin())

    async def _rejoin(self) -> None:
        delay = self._rejoin_delay
        while not self._stopping:
            try:
                await self._join(rtc.Room())
            except Exception as error:
                log.warning("livekit: the bot could not join again: %s", error)
                await asyncio.sleep(delay)
                delay = min(delay * 2, 10.0)
            else:
                self.rejoins += 1
                return

    async def play(self, frames: AsyncIterable[PcmFrame | bytes]) -> None:
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
        self._stopping = True
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
