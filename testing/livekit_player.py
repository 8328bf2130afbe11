"""A seated LiveKit participant for the tests and benches against the real LiveKit server:
it publishes a microphone like a browser would, and publishes anew when the server gives
the permission back (what the widget does: setMicrophoneEnabled(true))."""

from __future__ import annotations

import asyncio
import contextlib

from livekit import rtc
from livekit.protocol.models import ParticipantPermission
from livekit.rtc.participant import PublishTrackError

from plugin.rooms.livekit.tokens import Credentials, player_token

from .tones import tone_frames

MIC = rtc.TrackSource.SOURCE_MICROPHONE


class Player:
    """A Python rtc participant in a seat, publishing a microphone like a browser would,
    and republishing it when the server gives the permission back."""

    def __init__(self, creds: Credentials, room: str, seat: int) -> None:
        self.creds, self.room_name, self.seat = creds, room, seat
        self.room = rtc.Room()
        self.source = rtc.AudioSource(48000, 1)
        self.room.on("participant_permissions_changed", self._permissions_changed)
        self._feeding: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    async def join(self, token: str | None = None) -> None:
        """Join with our player token (may publish nothing until granted) or `token`, and
        publish the microphone at once if the token allows it."""
        token = token or player_token(self.creds, self.room_name, self.seat)
        await self.room.connect(self.creds.url, token)
        if self.may_publish():
            try:
                await self.publish()
            except PublishTrackError:
                # a rejoin races the room taking the microphone away again: that is the point
                assert not self.may_publish()
        self._feeding = asyncio.create_task(self._feed())

    async def publish(self) -> None:
        track = rtc.LocalAudioTrack.create_audio_track("mic", self.source)
        await self.room.local_participant.publish_track(track, rtc.TrackPublishOptions(source=MIC))

    def may_publish(self) -> bool:
        return self.room.local_participant.permissions.can_publish

    def _permissions_changed(
        self, participant: rtc.Participant, new: ParticipantPermission
    ) -> None:
        # The Python SDK keeps its local publication when the server unpublishes it, so
        # this player drops it himself and publishes anew when the permission returns
        # (what the widget does in the browser: setMicrophoneEnabled(true)).
        if participant.identity != self.room.local_participant.identity:
            return
        task = asyncio.create_task(self._republish() if new.can_publish else self._drop())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _republish(self) -> None:
        # revoked again before the server answered (or the connection blipped)
        with contextlib.suppress(PublishTrackError):
            await self.publish()

    async def _drop(self) -> None:
        for sid in list(self.room.local_participant.track_publications):
            with contextlib.suppress(Exception):
                await self.room.local_participant.unpublish_track(sid)

    async def _feed(self) -> None:
        async for frame in tone_frames(330.0):
            await self.source.capture_frame(rtc.AudioFrame(frame, 48000, 1, 960))

    async def leave(self) -> None:
        if self._feeding is not None:
            self._feeding.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._feeding
        await asyncio.gather(*self._tasks, return_exceptions=True)
        await self.room.disconnect()
