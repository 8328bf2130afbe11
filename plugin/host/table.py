"""One table: its engine state, its timer, and the loop that handles its inputs one at a time.

Theory of operation (issue 4):
- Every input (a widget's or the console's command, a timer running out, the warning before
  it, a participant joining the room) goes through one asyncio queue, so a table handles
  inputs strictly in arrival order and never two at once.
- An input (inputs.py) is routed (commands.py: who may send it, what it means): an engine
  input is turned into an engine event and applied; the engine is pure, so applying first
  costs nothing if the event is refused. An accepted event is committed to the log BEFORE
  its effects run and before the sender is acked. The table's own inputs (the console's
  pause, extra time, undo..., the clock's, the room's) are its actions (actions.py).
- Effects go to the adapters: SetSpeakers → room, Announce → voice, StartTimer/StopTimer →
  the countdown; after every change every widget gets its view through the hub.
- The table's own records (records.py: pause, resume, add time, undo...) are logged too but
  not replayed into the engine: pause and extra time live in the clock row, an undo marks
  its target undone.
- Start: the log is replayed from the settings; the timer gets the time it had left (clock
  row) and the room is told again who may speak. A speech's timer then waits for its
  speaker's audio to come back (audio_wait.py: a restart or a failover is the server's
  fault, not the speaker's), at most HOLD_SECONDS.
- A new speaker's countdown waits for his audio to reach the listeners, in a room where that
  takes a while (first_word.py: LiveKit's fresh track each turn), at most FIRST_WORD_SECONDS.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from plugin.rules import Effect, GameState, apply
from plugin.rules import effects as fx
from plugin.rules.events import from_record, to_record
from plugin.tasks import cancel_and_wait

from . import ports, records
from .audio_wait import AudioWait
from .batch import MAX_BATCH, Job, batchable, handle_batch, log_key
from .commands import first_accepted, route
from .countdown import Countdown
from .ending import end_view
from .first_word import FirstWord
from .game import is_event_record, new_game, replay
from .inputs import (
    CLOCK,
    HOST,
    ROOM,
    STOPPING,
    Expire,
    Heard,
    HoldOver,
    Input,
    Presence,
    Refused,
    Sender,
    StreamDue,
    Verdict,
    Warn,
    source_of,
)
from .ports import Clock, ClockRow, Hub, Log, LogUnavailable, RoomBackend, Snapshot, Voice
from .records import with_logged_names
from .settings import TableSettings
from .stream import StreamTiming

logger = logging.getLogger(__name__)


class Table:
    """One table: its engine state, its timer, its records, and its input loop."""

    def __init__(
        self,
        table_id: str,
        settings: TableSettings,
        *,
        log: Log,
        clock: Clock,
        room: RoomBackend,
        voice: Voice,
        hub: Hub,
    ) -> None:
        self.id = table_id
        self.settings = settings
        self.log = log
        self.room = room
        self.voice = voice
        self.hub = hub
        self.state: GameState = new_game(settings)
        self.version = 0
        self.paused = False
        self.present: set[int] = set()
        # The current link generation of each seat ("host" too); see reissue().
        self.generations: dict[int | str, int] = {}
        self.countdown = Countdown(clock, on_expire=self._on_expire, on_warn=self._on_warn)
        self.audio_wait = AudioWait(clock, on_change=self.freeze, on_deadline=self._on_hold_over)
        self.first_word = FirstWord(
            clock, on_change=self.freeze, on_deadline=self._on_hold_over,
            enabled=isinstance(room, ports.HearsSpeakers),
        )  # fmt: skip
        self.clock = clock
        # Stream with roles (plugin.host.stream): the setting, the states with their
        # moments, and the overlay refreshes due when the delay of a change has passed.
        self.stream = StreamTiming(clock, self._on_stream_due)
        self._queue: asyncio.Queue[Job] = asyncio.Queue()
        self._worker: asyncio.Task[None] | None = None
        self._held: Job | None = None  # taken from the queue, to be handled next
        self._saved_clock: ClockRow | None = None
        self._released = False
        self._stopped = False
        self.successor: str | None = None  # the table of the next game (successor record)
        self._ending: tuple[GameState, dict[str, Any]] | None = None  # end view, its state

    # --- lifetime ----------------------------------------------------------------------

    async def start(self) -> None:
        """Replay the log, resume the timer with the time it had left, tell the room who
        may speak, and start handling inputs."""
        logged = self.log.entries(self.id)
        self.generations = records.link_generations(e.record for e in logged)
        successor = records.latest((e.record for e in logged), records.SUCCESSOR)
        self.successor = None if successor is None else successor["table"]
        self.stream.setting = records.stream_setting(
            records.latest((e.record for e in logged), records.STREAM)
        )
        self.settings = with_logged_names(self.settings, [e.record for e in logged])
        entries = [e for e in logged if is_event_record(e.record)]
        self.state, last_timer = replay(self.settings, [e.record for e in entries])
        self._replay_history(entries)
        row = self.log.load_clock(self.id)
        self.paused = bool(row and row.paused)
        self.resume_timer(last_timer, row)
        self._saved_clock = row
        if self.countdown.active and not self.state.over:  # nobody's audio is here yet
            self.audio_wait.begin(self.state.speakers, self.present)
        self.room.on_presence(self._on_presence)
        if isinstance(self.room, ports.HearsSpeakers):
            self.room.on_audio(self._on_audio)
        self.first_word.resumed(self.state.speakers)
        await self.room.start()
        await self.safely(self.room.set_speakers(frozenset(self.state.speakers)))
        if self.state.over:
            await self._release()
        self._worker = asyncio.create_task(self._run(), name=f"table {self.id}")
        await self.publish()

    async def stop(self, *, hand_off: bool = False) -> None:
        """Finish the input being handled, save the timer, give every microphone back
        (hand_off: keep them as they are, another server hosts the table now)."""
        self._stopped = True
        self.stream.stop()
        await cancel_and_wait([self._worker], log=logger)
        self._worker = None
        waiting = [self._held] if self._held else []
        self._held = None
        while not self._queue.empty():
            waiting.append(self._queue.get_nowait())
        for job in waiting:  # nobody waits forever for a stopped table
            if job.reply is not None and not job.reply.done():
                job.reply.set_result(STOPPING)
        self.save_clock(force=True)
        self.countdown.stop()
        self.audio_wait.end()
        self.first_word.end()
        if not hand_off:
            await self._release()
        await self.safely(self.room.stop())
        await self.safely(self.voice.stop())

    # --- input -------------------------------------------------------------------------

    async def submit(
        self, sender: Sender, given: Input, *, client_id: str | None = None
    ) -> Verdict:
        """Queue one input and wait until it is handled (committed and carried out).
        `client_id`: the client's message id (a retry with it is applied once)."""
        if self._stopped:
            return STOPPING
        reply: asyncio.Future[Verdict] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait(Job(sender, given, client_id, reply))
        return await reply

    async def rename(self, seat: int, name: str) -> None:
        """Call seat `seat`'s player `name` (checked by the caller) on every page and the
        protocol: durable before it shows, so a restart or another server keeps it."""
        record = records.named(seat, name)
        await self.log.commit(self.id, record, source=source_of(HOST))
        self.settings = with_logged_names(self.settings, [record])
        await self.changed()

    async def reissue(self, seats: Sequence[int | Literal["host", "watch", "invite"]]) -> None:
        """New links for these seats: a new generation each, durable before it counts, so
        the tokens of the old links are refused from now on (and after a restart)."""
        await self.log.commit(self.id, records.reissued(seats), source=source_of(HOST))
        for seat in seats:
            self.generations[seat] = self.generations.get(seat, 0) + 1

    async def record_successor(self, table_id: str) -> None:
        """The next game of this (finished) table is played at `table_id`: durable first."""
        await self.log.commit(self.id, records.successor(table_id), source=source_of(HOST))
        self.successor = table_id

    async def settle(self) -> None:
        """Wait until every queued input is handled (tests, after the fake clock moved)."""
        await self._queue.join()

    # --- what others read --------------------------------------------------------------

    def snapshot(self) -> Snapshot:
        return Snapshot(
            table_id=self.id,
            version=self.version,
            state=self.state,
            settings=self.settings,
            timer_id=self.countdown.timer_id,
            timer_remaining=self.countdown.remaining(),
            paused=self.paused,
            timer_held=self.audio_wait.held or self.first_word.held,
            present=frozenset(self.present),
            ending=self.ending(),
            successor=self.successor,
            stream=self.stream.view(),
            taken_at=self.clock.now(),
        )

    def ending(self) -> dict[str, Any] | None:
        """The end screen once the game is over (replayed from the log once per final
        state: an undo of the last event makes the game run again)."""
        if not self.state.over:
            return None
        if self._ending is None or self._ending[0] is not self.state:
            logged = [e.record for e in self.log.entries(self.id)]
            self._ending = (self.state, end_view(self.settings, logged))
        return self._ending[1]

    def clock_row(self) -> ClockRow:
        return ClockRow(
            timer_id=self.countdown.timer_id,
            remaining=self.countdown.remaining(),
            paused=self.paused,
            warn_at=self.countdown.warn_at,
        )

    def save_clock(self, *, force: bool = False) -> None:
        """Write the clock row when the timer changed (or always, with force)."""
        row = self.clock_row()
        saved = self._saved_clock
        changed = (
            saved is None
            or saved.timer_id != row.timer_id
            or saved.paused != row.paused
            or saved.warn_at != row.warn_at
        )
        if force or changed:
            self.log.save_clocks({self.id: row})
            self._saved_clock = row

    def mark_clock_saved(self, row: ClockRow) -> None:
        """The registry's once-a-second save wrote `row` for this table."""
        self._saved_clock = row

    # --- the loop ----------------------------------------------------------------------

    async def _run(self) -> None:
        while True:
            job, self._held = self._held or await self._queue.get(), None
            batch = [job]
            while len(batch) < MAX_BATCH and batchable(job) and not self._queue.empty():
                following = self._queue.get_nowait()
                if not batchable(following):
                    self._held = following  # it goes next, on its own
                    break
                batch.append(following)
            try:
                if len(batch) == 1:
                    verdicts = [await self._guarded(job)]
                else:
                    verdicts = await handle_batch(self, batch)
            except asyncio.CancelledError:  # the table stops: nobody waits forever
                for each in batch:  # a retry with the same id is acked once if it was logged
                    if each.reply is not None and not each.reply.done():
                        each.reply.set_result(STOPPING)
                raise
            finally:
                for _ in batch:
                    self._queue.task_done()
            for each, verdict in zip(batch, verdicts, strict=True):
                if each.reply is not None and not each.reply.done():
                    each.reply.set_result(verdict)

    async def _guarded(self, job: Job) -> Verdict:
        """One input, whatever happens: a refusal or a failure is its verdict."""
        try:
            return await self._handle(job)
        except Refused as refusal:
            return refusal.verdict()
        except LogUnavailable as failure:  # nothing changed: the input was not committed
            return Verdict(ok=False, code="log_unavailable", message=str(failure))
        except Exception as error:  # a bug must not bring the table down
            logger.exception("table %s: input %r failed", self.id, job.given)
            return Verdict(ok=False, code="internal", message=f"internal error: {error}")

    async def _handle(self, job: Job) -> Verdict:
        sender, given, key = job.sender, job.given, log_key(job)
        if key is not None:
            seq = self.log.find_client_id(self.id, key)
            if seq is not None:  # a retry: applied once, acked again (issue 4)
                return Verdict(ok=True, duplicate=True, seq=seq)
        found = route(sender, given)
        if found.act is not None:
            return await found.act(self, given, key)
        event, new_state, effects = first_accepted(self.state, sender, given)
        seq = await self.log.commit(
            self.id, to_record(event), source=source_of(sender), client_id=key
        )
        self.state = new_state
        if found.moves_on:
            # The host moved the game on: the bot does not go on reading, over the next
            # speaker, what it had queued for the moments he skipped.
            await self.safely(self.voice.skip_queued())
        await self.follow(effects)
        return Verdict(ok=True, seq=seq)

    # --- effects (the table's actions use these too) ---------------------------------------

    async def follow(self, effects: list[Effect]) -> None:
        """Carry out an accepted event's effects, publish, then speak its announcements."""
        spoken = await self.carry_out(effects)
        await self.changed()
        await self.speak(spoken)

    async def carry_out(self, effects: list[Effect]) -> list[fx.Announce]:
        """Every effect but the voice's, in order; the announcements are returned, to be
        spoken (`speak`) once the table has published: rendering a phrase costs the loop
        a few milliseconds that the widgets need not wait for."""
        spoken = []
        for effect in effects:
            if isinstance(effect, fx.Announce):
                spoken.append(effect)
            elif isinstance(effect, fx.SetSpeakers):
                self.first_word.granted(effect.seats)
                await self.safely(self.room.set_speakers(frozenset(effect.seats)))
            elif isinstance(effect, fx.StartTimer):
                self.audio_wait.end()  # a new timer: the engine's, whoever speaks now
                self.first_word.end()
                self.countdown.start(
                    effect.timer, effect.seconds, warn_at=effect.warn_at, paused=self.paused
                )
                self.first_word.timer_started(self.present)  # a new speaker: his audio first
            elif isinstance(effect, fx.StopTimer):
                self.countdown.stop()
            elif isinstance(effect, fx.GameOver):
                self.countdown.stop()
                await self._release()
            # Dialogs, players out, private results and vote results reach the clients
            # through their views.
        if self.state.timer is None and self.countdown.active:
            # The engine's state is the truth: no timer there, none here (a dialog waiting
            # for the live host may come without a StopTimer effect).
            self.countdown.stop()
        return spoken

    async def speak(self, announcements: list[fx.Announce]) -> None:
        for announcement in announcements:
            await self.say(announcement.key, announcement.params)

    async def say(self, key: str, params: Mapping[str, Any], *, urgent: bool = False) -> None:
        await self.safely(self.voice.announce(key, dict(params), urgent=urgent))

    async def restore_speakers(self) -> None:
        """Tell the room again who may speak after the state went back (an undo): a game
        that runs again has its microphones to give back once more when it ends."""
        self.first_word.granted(self.state.speakers)
        await self.safely(self.room.set_speakers(frozenset(self.state.speakers)))
        if not self.state.over:
            self._released = False

    async def _release(self) -> None:
        if not self._released:
            self._released = True
            await self.safely(self.room.release_all())

    async def changed(self) -> None:
        """The table changed: a new version, the clock row if due, every widget's view."""
        self.stream.changed(self.state)
        self.version += 1
        self.save_clock()
        await self.publish()

    async def publish(self) -> None:
        await self.safely(self.hub.publish(self.snapshot()))

    async def safely(self, action: Any) -> None:
        """Await an adapter call; its failure is logged and never stops the table."""
        try:
            await action
        except Exception:
            logger.exception("table %s: adapter call failed", self.id)

    def resume_timer(self, last_timer: fx.StartTimer | None, row: ClockRow | None) -> None:
        """Set the countdown for the engine's current timer: the time it had left when the
        clock row is about that timer, else its full length."""
        self.audio_wait.end()
        timer = self.state.timer
        if timer is None:
            self.countdown.stop()
            return
        seconds = timer.seconds
        warn_at = last_timer.warn_at if last_timer and last_timer.timer == timer.id else 0
        if row is not None and row.timer_id == timer.id and row.remaining is not None:
            seconds = row.remaining
            warn_at = row.warn_at
        self.countdown.start(timer.id, seconds, warn_at=warn_at, paused=self.paused)

    def freeze(self) -> None:
        """Freeze the countdown while the host paused the game or it waits for the
        speakers' audio (audio_wait.py); let it run when neither holds it."""
        self.countdown.pause(self.paused or self.audio_wait.held or self.first_word.held)

    def _replay_history(self, entries: Sequence[Any]) -> None:
        """The states since the log began, with the wall clock time of their events, for
        the stream overlay's delay (plugin.host.stream)."""
        first = state = new_game(self.settings)
        stamped = []
        for entry in entries:
            state, _ = apply(state, from_record(entry.record))
            stamped.append((entry.wall, state))
        self.stream.restore(first, stamped, wall=self.log.wall_now())

    # --- callbacks from the clock and the room (queued, never handled inline) ----------

    def _on_expire(self, timer_id: int) -> None:
        self._queue.put_nowait(Job(CLOCK, Expire(timer=timer_id), None, None))

    def _on_warn(self, timer_id: int) -> None:
        self._queue.put_nowait(Job(CLOCK, Warn(timer=timer_id), None, None))

    def _on_hold_over(self) -> None:
        self._queue.put_nowait(Job(CLOCK, HoldOver(), None, None))

    def _on_stream_due(self) -> None:
        self._queue.put_nowait(Job(CLOCK, StreamDue(), None, None))

    async def _on_audio(self, seat: int) -> None:
        self._queue.put_nowait(Job(ROOM, Heard(seat=seat), None, None))

    async def _on_presence(self, seat: int, joined: bool) -> None:
        self._queue.put_nowait(Job(ROOM, Presence(seat=seat, joined=joined), None, None))
