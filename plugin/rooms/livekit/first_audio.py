"""When a new speaker's audio reaches the room's listeners (issue 30, "the new speaker's first
word").

A revoke makes the LiveKit server unpublish the old speaker's microphone (the hard
enforcement we rely on), so every turn publishes a fresh track and every listener must be
subscribed to it anew: the server renegotiates each listener's connection (debounced
150 ms in its transport), and only then do packets flow. Measured: the new speaker's client
sees the grant at 19 ms and publishes at 24 ms, a listener hears him at 442 ms median, 565
max (bench/livekit_new_speaker.py). Whatever he says before that is lost; nothing in our
process is on that path.

So the table starts a new speaker's countdown only once his audio flows
(plugin.host.first_word), and this module tells it when. For each seat the room has just
granted (`expect`), the bot, which subscribes to nobody by itself (auto_subscribe off),
subscribes to that seat's microphone as soon as it is published; the first frame the bot
receives says that the server forwards his track (then the bot unsubscribes: it needs no
player's audio). The listeners' subscriptions were asked for when his track was published,
but each is negotiated on its own, and the bot's was measured the quickest (20-250 ms from
the publication against a listener's 220-390 ms on loopback): so the seat is reported at
the bot's first frame and no sooner than SETTLE_SECONDS after the bot saw his track
published. A seat no longer granted is forgotten. The table bounds the wait itself (a page
that never publishes, a frame that never comes).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from livekit import rtc

from plugin.rooms.livekit.seats import seat_of

log = logging.getLogger(__name__)

AudioCallback = Callable[[int], Awaitable[None]]
FRAME_SECONDS = 5.0  # the longest the bot stays subscribed waiting for a first frame
# From his track's publication to every listener hearing it: measured on loopback, the bot's
# own subscription took 20-250 ms, a listener's 220-390 ms, the first packets forwarded to
# him about 0.1 s before his subscription event (testing/first_word.py); with margin for a
# listener farther away than the bot.
SETTLE_SECONDS = 0.6
MIC = rtc.TrackSource.SOURCE_MICROPHONE


class FirstAudio:
    """Reports `callback(seat)` when a newly granted seat's microphone reaches the room."""

    def __init__(self) -> None:
        self._callback: AudioCallback | None = None
        self._expected: set[int] = set()
        # track sid the bot subscribed to: when it saw it published
        self._listening: dict[str, float] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self.reported = 0  # seats whose audio was seen flowing (tests, benches)

    def on_audio(self, callback: AudioCallback) -> None:
        self._callback = callback

    def attach(self, room: rtc.Room) -> None:
        """Watch `room` (each room the bot joins: a rejoin is a new one)."""
        room.on("track_published", self._published)
        room.on("track_subscribed", self._subscribed)
        self._scan(room)

    def expect(self, room: rtc.Room | None, fresh: Iterable[int], speakers: Iterable[int]) -> None:
        """`fresh` seats were just granted (they start speaking); of the others only those
        still among `speakers` are still awaited."""
        self._expected = (self._expected & set(speakers)) | set(fresh)
        if room is not None and self._expected:  # a microphone already there (a club token)
            self._scan(room)

    def _scan(self, room: rtc.Room) -> None:
        for participant in list(room.remote_participants.values()):
            for publication in list(participant.track_publications.values()):
                self._published(publication, participant)

    def _published(self, publication: Any, participant: rtc.RemoteParticipant) -> None:
        seat = seat_of(participant.identity)
        if (
            seat in self._expected
            and publication.source == MIC
            and publication.kind == rtc.TrackKind.KIND_AUDIO
            and publication.sid not in self._listening
            and isinstance(publication, rtc.RemoteTrackPublication)
        ):
            now = asyncio.get_running_loop().time()
            for sid, seen in list(self._listening.items()):  # a subscription never made
                if seen < now - 2 * FRAME_SECONDS:
                    del self._listening[sid]
            self._listening[publication.sid] = now
            publication.set_subscribed(True)

    def _subscribed(
        self, track: rtc.Track, publication: Any, participant: rtc.RemoteParticipant
    ) -> None:
        if publication.sid not in self._listening:
            return
        seat = seat_of(participant.identity)
        if seat is None or not isinstance(track, rtc.RemoteAudioTrack):
            del self._listening[publication.sid]
            publication.set_subscribed(False)
            return
        task = asyncio.get_running_loop().create_task(self._first_frame(seat, track, publication))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _first_frame(
        self, seat: int, track: rtc.RemoteAudioTrack, publication: rtc.RemoteTrackPublication
    ) -> None:
        stream = rtc.AudioStream(track, sample_rate=48_000, num_channels=1)
        flowing = False
        try:
            async with asyncio.timeout(FRAME_SECONDS):
                await anext(aiter(stream))
                flowing = True
        except (TimeoutError, StopAsyncIteration):
            log.info("livekit: no audio from seat %d's fresh microphone", seat)
        finally:
            with contextlib.suppress(Exception):
                await stream.aclose()
            seen = self._listening.pop(publication.sid, None)
            with contextlib.suppress(Exception):  # the room may be gone meanwhile
                publication.set_subscribed(False)
        # The listeners' subscriptions were asked for when his track was published, but each
        # is negotiated on its own (and a far listener's takes his round trip): they are
        # given SETTLE_SECONDS from then, the bot's own being the quickest (module docstring).
        if flowing and seen is not None:
            await asyncio.sleep(max(seen + SETTLE_SECONDS - asyncio.get_running_loop().time(), 0))
        if flowing and seat in self._expected:
            self._expected.discard(seat)
            self.reported += 1
            if self._callback is not None:
                await self._callback(seat)

    async def stop(self) -> None:
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
