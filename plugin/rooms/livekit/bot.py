"""The bot in the club's LiveKit room: a visible participant that speaks as the host.

It publishes one microphone track fed from an `rtc.AudioSource(48000, 1)`; the voice
hands it 20 ms frames of 16-bit mono PCM at 48 kHz (960 samples), the same cached PCM
the embedded room plays, in real time. The bot captures them in chunks of 100 ms: every
`capture_frame` is an FFI request and an FFI event that the SDK hands to every room of
the process, so 20 ms captures cost ~1.2 % of a core per speaking bot in Python alone
(measured). A phrase therefore starts 80 ms after its first frame; a pause inside it
(under 100 ms of silence) is sent as it is, and the end of a phrase is sent at once.
`capture_frame` waits while the source's queue is full, which paces a producer that runs
ahead of real time. The bot also sees who joins and leaves
and passes that to the room (the same events the webhook brings; duplicates are fine).
The SDK resumes a dropped connection by itself (each "reconnecting"/"reconnected" calls
`on_reconnect`: the room is re-read, issue 30); when the room is lost for good anyway
(removed by an admin, server restarted, or another participant joined with the bot's
identity and LiveKit replaced us) the bot joins again with backoff, on the same audio
source. A duplicate is logged and counted: the bot's identity proves nothing by itself, the
room trusts only the session the bot reports (`on_session`, LiveKitRoom.bot_joined).

A bot that says nothing costs next to nothing. A published track costs its encoder and
the source's 10 ms capture thread ~2 % of a core even when nothing is captured (the SDK
encodes silence; muting does not stop it: measured), so the track is published at the
first sound and unpublished after `quiet_after` seconds without one, on a timer (the
announcer's clock stops sending frames when it rests). The room sets it by the phase
(`set_quiet_after`): 10 s while no player speaks (a vote's or a night's phrases come
seconds apart, and a fresh track would start each of them late), 2 s during a speech,
whose next phrase is most of a speech away. The encoder of a track kept published through
the speeches was a third of a playing table's CPU (bench/livekit_tables.py --game: 24 tables
per core with 10 s everywhere, 31 with 3 s). Frames of silence are not
captured, and a voice whose frames end (SilentVoice) ends the bot's playing at once.
A fresh track loses what is sent before its listeners have subscribed (~0.2 s, measured),
so the publish runs in the background while frames are read and kept, and the phrase
is sent once someone subscribed (at most SUBSCRIBE_SECONDS): the first phrase after a
quiet spell starts ~0.2-0.5 s late, none is cut.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import AsyncIterable, Awaitable, Callable
from typing import Any

from livekit import rtc
from livekit.protocol.models import ParticipantInfo, ParticipantPermission

from plugin.host.ports import PcmFrame
from plugin.rooms.livekit.ffi import narrow_events
from plugin.rooms.livekit.guard import DataGuard
from plugin.rooms.livekit.seats import BOT_IDENTITY, new_bot_identity
from plugin.rooms.livekit.webhook import RoomEvents

log = logging.getLogger(__name__)

SAMPLE_RATE = 48_000
FRAME_SAMPLES = 960  # 20 ms at 48 kHz
FRAME_BYTES = FRAME_SAMPLES * 2
SILENCE = bytes(FRAME_BYTES)
CHUNK_FRAMES = 5  # 100 ms per capture: each capture is an FFI call and event, 5 times fewer
RUN_END_FRAMES = 5  # 100 ms of silence ends a phrase (shorter pauses are sent as they are)
SUBSCRIBE_SECONDS = 1.0  # the longest a fresh track waits for its first subscriber
PENDING_FRAMES = 150  # 3 s kept while the track is being published
QUIET_SECONDS = 10.0  # between phrases of a vote or a night, which come seconds apart
SPEECH_QUIET_SECONDS = 2.0  # while a player speaks: the next phrase is most of a speech away
DISCONNECT_SECONDS = 5.0
STREAK_SECONDS = 60.0  # in the room this long: the next duplicate starts a new streak


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
        queue_ms: int = 1000,
        rejoin_delay: float = 0.5,
        on_session: Callable[[str], Awaitable[None]] | None = None,
        quiet_after: float = QUIET_SECONDS,
        on_reconnect: Callable[[], None] | None = None,
        guard: DataGuard | None = None,
        token_for: Callable[[str], str] | None = None,
    ) -> None:
        self.url = url
        self.room = rtc.Room()
        self.frames_sent = 0
        self.frames_skipped = 0  # silence, not sent
        self.frames_dropped = 0  # kept too long while a publish failed
        self.captures = 0  # capture_frame calls (chunks)
        # seconds from a phrase's first frame to its first capture (the publish, the chunk)
        self.start_delays: deque[float] = deque(maxlen=1024)
        self._pending: list[bytes] = []  # frames read, not yet captured
        self._run_started: float | None = None  # the current phrase's first frame, until sent
        self._publish_task: asyncio.Task[None] | None = None
        self._subscribed = asyncio.Event()  # someone subscribed to the track just published
        self.rejoins = 0
        self.duplicates = 0  # times another participant joined with our identity
        self._duplicate_streak = 0  # those in a row, each time the bot was in only briefly
        self._joined_at = 0.0
        self._on_session = on_session
        self._on_reconnect = on_reconnect
        self.guard = guard  # drops a participant's data flood before it reaches Python
        self.reconnects = 0  # the SDK's reconnecting/reconnected events (resumes, restarts)
        self._token = token
        # With `token_for` (a token for a given identity) a bot replaced by an impostor
        # twice in a row joins again under a name of its own (seats.new_bot_identity).
        self._token_for = token_for
        self.wanted_identity = BOT_IDENTITY
        self._rejoin_delay = rejoin_delay
        self._stopping = False
        self._events = events
        # Room for the chunks read while the track was being published; an urgent phrase
        # does not wait behind it (interrupt clears it).
        self._queue_ms = queue_ms
        self._source: rtc.AudioSource | None = None
        self.quiet_after = quiet_after
        self._quiet_changed = asyncio.Event()
        self.publishes = 0
        self.publish_seconds: deque[float] = deque(maxlen=1024)  # each publish_track call
        self._publication: str | None = None  # the voice track's sid while it is published
        self._last_sound = 0.0
        self._publishing = asyncio.Lock()
        self._started = False
        self._tasks: set[asyncio.Task[Any]] = set()
        # Called with each room the bot joins (a rejoin is a new rtc.Room): first_audio.py.
        self.on_room: list[Callable[[rtc.Room], None]] = []

    @property
    def identity(self) -> str:
        return self.room.local_participant.identity

    async def start(self) -> None:
        """Connect and report who is already there (the track is published at the first
        sound)."""
        self._started = True
        await self._join(self.room)

    async def _join(self, room: rtc.Room) -> None:
        room.on("participant_connected", self._joined)
        room.on("participant_disconnected", self._left)
        room.on("disconnected", self._disconnected)
        room.on("local_track_subscribed", lambda *_: self._subscribed.set())
        # A resume or a full restart of the SDK's connection: what the room believes may
        # be stale (a restart reports everybody gone and back), so it is re-read at once.
        room.on("reconnecting", self._reconnecting)
        room.on("reconnected", self._reconnecting)
        if self._token_for is not None:
            token = self._token_for(self.wanted_identity)
        else:
            token = self._token() if callable(self._token) else self._token
        await room.connect(self.url, token, rtc.RoomOptions(auto_subscribe=False))
        # One server hosts many bots: each hears its own room only, and data packets only
        # as far as the guard lets them through.
        if self.guard is not None:
            self.guard.bind(asyncio.get_running_loop())
        narrow_events(room, self.guard.admit if self.guard is not None else None)
        self.room = room
        self._joined_at = asyncio.get_running_loop().time()
        if self._on_session is not None:  # proved before we publish as the bot
            await self._on_session(room.local_participant.sid)
        if self._publication is not None:  # it was speaking: publish again in the new room
            self._publication = None
            await self._publish()
        for participant in room.remote_participants.values():
            self._joined(participant)
        for watch in self.on_room:
            watch(room)

    def _reconnecting(self, *_: object) -> None:
        self.reconnects += 1
        log.info("livekit: the bot's connection to %s is being restored", self.room.name)
        if self._on_reconnect is not None:
            self._on_reconnect()

    def _disconnected(self, reason: int) -> None:
        if self._stopping or reason == rtc.DisconnectReason.CLIENT_INITIATED:
            return
        # The backoff is for two bots of one room that keep replacing each other: it grows
        # with the duplicates in a row and starts again after a quiet spell in the room or
        # any other loss (an admin's removal after six old duplicates kept the bot out 16 s).
        stayed = asyncio.get_running_loop().time() - self._joined_at
        if reason != rtc.DisconnectReason.DUPLICATE_IDENTITY or stayed >= STREAK_SECONDS:
            self._duplicate_streak = 0
        if reason == rtc.DisconnectReason.DUPLICATE_IDENTITY:
            self.duplicates += 1
            self._duplicate_streak += 1
            log.warning(
                "livekit: duplicate identity: another participant joined %s as %s and "
                "replaced the bot (%d times); the bot joins again",
                self.room.name, self.identity, self.duplicates,
            )  # fmt: skip
        else:
            log.warning("livekit: the bot lost the room (reason %s); joining again", reason)
        self._spawn(self._rejoin())

    async def _rejoin(self) -> None:
        if self._duplicate_streak >= 2 and self._token_for is not None:
            # An impostor under our name again: we leave him the name and take one of our
            # own, so that he is the one removed at each join (issue 30), not us.
            self.wanted_identity = new_bot_identity()
            log.warning(
                "livekit: the bot of %s joins again as %s (an impostor holds %s)",
                self.room.name, self.wanted_identity, self.identity,
            )  # fmt: skip
        elif self._duplicate_streak:  # each duplicate in a row waits longer: two bots of a
            # room never fight fast
            await asyncio.sleep(self._rejoin_delay * 2 ** min(self._duplicate_streak - 1, 5))
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
        """Send every frame of `frames` (20 ms, 960 int16 samples each) into the track, in
        chunks of CHUNK_FRAMES; returns once the last one is captured."""
        if not self._started or self._stopping:
            raise RuntimeError("LiveKitBot.play before start or after stop")
        quiet = RUN_END_FRAMES  # silent frames in a row since the last sound
        async for pcm in frames:
            data = bytes(pcm)
            if len(data) != FRAME_BYTES:
                raise ValueError(f"a voice frame is {FRAME_BYTES} bytes (20 ms), not {len(data)}")
            now = asyncio.get_running_loop().time()
            if data != SILENCE:
                if quiet >= RUN_END_FRAMES:  # a phrase starts
                    self._run_started = now
                quiet = 0
                self._last_sound = now
                self._pending.append(data)
                self._ensure_published()
            elif quiet < RUN_END_FRAMES:
                quiet += 1  # a pause inside a phrase is sent as it is
                self._pending.append(data)
            else:
                self.frames_skipped += 1
                quiet_for = now - self._last_sound
                if self._publication is not None and quiet_for > self.quiet_after:
                    await self._unpublish()  # nothing pending: this frame was not kept
            # A whole chunk goes as soon as it is there; the end of a phrase right away.
            await self._flush(everything=quiet >= RUN_END_FRAMES)
        await self._flush(everything=True, wait=True)

    def _ensure_published(self) -> None:
        """Publish in the background: frames keep being read (and kept) meanwhile, so the
        announcer's short listener buffer never drops the first syllable."""
        if self._publication is None and (self._publish_task is None or self._publish_task.done()):
            self._publish_task = self._spawn(self._publish_logged())

    async def _publish_logged(self) -> None:
        try:
            await self._publish()
        except Exception as error:  # the next sound tries again; frames are kept meanwhile
            log.warning("livekit: the bot could not publish its voice: %s", error)

    def set_quiet_after(self, seconds: float) -> None:
        """From now on, unpublish after `seconds` of quiet (counted from the last sound)."""
        if seconds != self.quiet_after:
            self.quiet_after = seconds
            self._quiet_changed.set()

    async def _watch_quiet(self) -> None:
        """Unpublish once nothing was said for `quiet_after` seconds, even when no frame
        comes any more (an announcer's clock rests when it has nothing to say)."""
        loop = asyncio.get_running_loop()
        while self._publication is not None and not self._stopping:
            self._quiet_changed.clear()
            wait = max(self._last_sound + self.quiet_after - loop.time(), 0.05)
            with contextlib.suppress(TimeoutError):  # a new quiet_after counts at once
                await asyncio.wait_for(self._quiet_changed.wait(), wait)
            if loop.time() - self._last_sound >= self.quiet_after and not self._pending:
                await self._unpublish()

    async def _flush(self, *, everything: bool, wait: bool = False) -> None:
        """Capture the pending frames in whole chunks (all of them with `everything`),
        once the track is published (`wait`: wait for the publish under way)."""
        if wait and self._publication is None and self._publish_task is not None:
            await asyncio.gather(self._publish_task, return_exceptions=True)
        if self._publication is None:
            failed = self._publish_task is not None and self._publish_task.done()
            if failed or len(self._pending) > PENDING_FRAMES:
                # The publish failed (the next sound tries again) or is very slow: what it
                # held is dropped, never played late as if it were news.
                self.frames_dropped += len(self._pending)
                self._pending.clear()
                self._run_started = None
            return
        while len(self._pending) >= CHUNK_FRAMES or (everything and self._pending):
            chunk, self._pending = self._pending[:CHUNK_FRAMES], self._pending[CHUNK_FRAMES:]
            if self._run_started is not None:
                delay = asyncio.get_running_loop().time() - self._run_started
                self.start_delays.append(delay)
                self._run_started = None
            samples = FRAME_SAMPLES * len(chunk)
            frame = rtc.AudioFrame(b"".join(chunk), SAMPLE_RATE, 1, samples)
            assert self._source is not None  # made by the first publish
            await self._source.capture_frame(frame)
            self.frames_sent += len(chunk)
            self.captures += 1
            # Quiet counts from the end of what is queued, not from when it was read.
            played = asyncio.get_running_loop().time() + self._source.queued_duration
            self._last_sound = max(self._last_sound, played)

    @property
    def publishing(self) -> bool:
        return self._publication is not None

    async def _publish(self) -> None:
        async with self._publishing:
            if self._publication is not None or self._stopping:
                return
            if self._source is None:  # its capture thread costs too: made at the first sound
                self._source = rtc.AudioSource(SAMPLE_RATE, 1, queue_size_ms=self._queue_ms)
            track = rtc.LocalAudioTrack.create_audio_track("autohost-voice", self._source)
            options = rtc.TrackPublishOptions(source=rtc.TrackSource.SOURCE_MICROPHONE)
            loop = asyncio.get_running_loop()
            started = loop.time()
            self._subscribed.clear()
            publication = await self.room.local_participant.publish_track(track, options)
            # What is sent before a listener subscribed is lost. Waited for even when the
            # bot sees nobody yet: a player's join may not have reached us.
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(SUBSCRIBE_SECONDS):
                    await self._subscribed.wait()
            self.publish_seconds.append(loop.time() - started)
            self._publication = publication.sid
            self.publishes += 1
            self._spawn(self._watch_quiet())

    async def _unpublish(self) -> None:
        async with self._publishing:
            sid, self._publication = self._publication, None
            if sid is not None:
                try:
                    await self.room.local_participant.unpublish_track(sid)
                except Exception as error:  # the room went meanwhile: nothing to unpublish
                    log.info("livekit: the bot's track was already gone: %s", error)

    def interrupt(self) -> None:
        """Drop what is queued (an urgent phrase cuts the current one short)."""
        self._pending.clear()
        self._run_started = None
        if self._source is not None:
            self._source.clear_queue()

    async def stop(self) -> None:
        self._stopping = True
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        try:  # bounded: a server that never answers must not hold our shutdown
            async with asyncio.timeout(DISCONNECT_SECONDS):
                await self.room.disconnect()
        except TimeoutError:
            log.warning("livekit: the bot's disconnect took over %.0f s", DISCONNECT_SECONDS)
        if self._source is not None:
            await self._source.aclose()
            self._source = None

    def _joined(self, participant: rtc.RemoteParticipant) -> None:
        if self._events is not None:
            self._spawn(self._events.participant_joined(participant_info(participant)))

    def _left(self, participant: rtc.RemoteParticipant) -> None:
        if self._events is not None:
            self._spawn(self._events.participant_left(participant_info(participant)))

    def _spawn(self, coroutine: Any) -> asyncio.Task[Any]:
        task = asyncio.get_running_loop().create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task


def participant_info(participant: rtc.RemoteParticipant) -> ParticipantInfo:
    """The SDK's participant as the protocol's ParticipantInfo (what webhooks carry)."""
    # The rtc proto has the protocol's fields but `recorder` and `agent`, with the same
    # numbers for sources and kinds: copy every field both have, by name.
    held = participant.permissions
    permission = ParticipantPermission()
    for field in ParticipantPermission.DESCRIPTOR.fields:
        if field.name in held.DESCRIPTOR.fields_by_name:
            value = getattr(held, field.name)
            if field.name == "can_publish_sources":
                permission.can_publish_sources.extend(list(value))
            else:
                setattr(permission, field.name, value)
    info = ParticipantInfo(sid=participant.sid, identity=participant.identity)
    info.attributes.update(participant.attributes)
    info.kind = int(participant.kind)  # type: ignore[assignment]
    info.permission.CopyFrom(permission)
    return info
