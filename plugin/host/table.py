"""One table: its engine state, its timer, and the loop that handles its inputs one at a time.

Theory of operation (issue 4):
- Every input (a widget's or the console's command, a timer running out, the warning before
  it, a participant joining the room) goes through one asyncio queue, so a table handles
  inputs strictly in arrival order and never two at once.
- A command is authorized (commands.py), turned into an engine event and applied; the
  engine is pure, so applying first costs nothing if the event is refused. An accepted
  event is committed to the log BEFORE its effects run and before the sender is acked.
- Effects go to the adapters: SetSpeakers → room, Announce → voice, StartTimer/StopTimer →
  the countdown; after every change every widget gets its view through the hub.
- Table records (pause, resume, add time, undo) are logged too but not replayed into the
  engine: pause and extra time live in the clock row, an undo marks its target undone.
- Start: the log is replayed from the settings; the timer gets the time it had left (clock
  row) and the room is told again who may speak.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal, cast

from plugin.rules import Effect, Event, GameState, RuleError, apply
from plugin.rules import effects as fx
from plugin.rules.events import TimerExpired, from_record, to_record

from .commands import (
    CLOCK,
    HOST,
    TABLE_COMMANDS,
    Command,
    Refused,
    Sender,
    authorize,
    candidate_events,
    source_of,
)
from .countdown import Countdown
from .ending import SUCCESSOR, end_view
from .game import is_event_record, new_game, replay
from .ports import Clock, ClockRow, Handle, Hub, Log, LogUnavailable, RoomBackend, Snapshot, Voice
from .settings import TableSettings
from .stream import STREAM_RECORD, StateHistory, StreamSetting, StreamView

logger = logging.getLogger(__name__)

ADD_TIME_SECONDS = 30  # issue 4: "add 30 s to a speech"
REISSUE = "table.reissue"  # a log record: these seats' links were issued anew
NAME = "table.name"  # a log record: a seat's player is called this now (the lobby, issue 17)
MAX_BATCH = 64  # inputs decided and committed together at most (a round's ballots: 12)
WARNING_KEY = "speech.ten_seconds"


@dataclass(frozen=True, slots=True, kw_only=True)
class Outcome:
    """What the sender is told: accepted (maybe as a duplicate of an earlier message) or not."""

    ok: bool
    duplicate: bool = False
    code: str | None = None
    message: str | None = None
    seq: int | None = None


def link_generations(records: Iterable[dict[str, Any]]) -> dict[int | str, int]:
    """Each seat's current link generation ("host" and "watch" too) from a table's log
    records: one more for every re-issue that named it (Table.reissue)."""
    generations: dict[int | str, int] = {}
    for record in records:
        if record.get("type") == REISSUE:
            for seat in record["seats"]:
                generations[seat] = generations.get(seat, 0) + 1
    return generations


@dataclass(frozen=True, slots=True)
class _Job:
    sender: Sender | Literal["room"]
    command: Command
    reply: asyncio.Future[Outcome] | None


class Table:
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
        self.clock = clock
        # Stream with roles (plugin.host.stream): the setting, the states with their
        # moments, and the overlay refreshes due when the delay of a change has passed.
        self.streaming = StreamSetting()
        self.history = StateHistory()
        self._stream_due: list[Handle] = []
        self._queue: asyncio.Queue[_Job] = asyncio.Queue()
        self._worker: asyncio.Task[None] | None = None
        self._held: _Job | None = None  # taken from the queue, to be handled next
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
        self.generations = link_generations(e.record for e in logged)
        for entry in logged:
            if entry.record.get("type") == SUCCESSOR:
                self.successor = entry.record["table"]
            elif entry.record.get("type") == STREAM_RECORD:
                self.streaming = StreamSetting.from_record(entry.record)
        self.settings = with_logged_names(self.settings, [e.record for e in logged])
        entries = [e for e in logged if is_event_record(e.record)]
        self.state, last_timer = replay(self.settings, [e.record for e in entries])
        self._replay_history(entries)
        row = self.log.load_clock(self.id)
        self.paused = bool(row and row.paused)
        self._resume_timer(last_timer, row)
        self._saved_clock = row
        self.room.on_presence(self._on_presence)
        await self.room.start()
        await self._safely(self.room.set_speakers(frozenset(self.state.speakers)))
        if self.state.over:
            await self._release()
        self._worker = asyncio.create_task(self._run(), name=f"table {self.id}")
        await self._publish()

    async def stop(self, *, hand_off: bool = False) -> None:
        """Finish the input being handled, save the timer, give every microphone back
        (hand_off: keep them as they are, another server hosts the table now)."""
        self._stopped = True
        if self._worker is not None:
            self._worker.cancel()
            await asyncio.gather(self._worker, return_exceptions=True)
            self._worker = None
        waiting = [self._held] if self._held else []
        self._held = None
        while not self._queue.empty():
            waiting.append(self._queue.get_nowait())
        for job in waiting:  # nobody waits forever for a stopped table
            if job.reply is not None and not job.reply.done():
                job.reply.set_result(
                    Outcome(ok=False, code="stopping", message="the table is shutting down")
                )
        self.save_clock(force=True)
        self.countdown.stop()
        for handle in self._stream_due:
            handle.cancel()
        self._stream_due.clear()
        if not hand_off:
            await self._release()
        await self._safely(self.room.stop())
        await self._safely(self.voice.stop())

    # --- input -------------------------------------------------------------------------

    async def submit(self, sender: Sender, command: Command) -> Outcome:
        """Queue one command and wait until it is handled (committed and carried out)."""
        if self._stopped:
            return Outcome(ok=False, code="stopping", message="the table is shutting down")
        reply: asyncio.Future[Outcome] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait(_Job(sender, command, reply))
        return await reply

    async def rename(self, seat: int, name: str) -> None:
        """Call seat `seat`'s player `name` (checked by the caller) on every page and the
        protocol: durable before it shows, so a restart or another server keeps it."""
        record = {"type": NAME, "seat": seat, "name": name}
        await self.log.commit(self.id, record, source=source_of(HOST))
        self.settings = with_logged_names(self.settings, [record])
        await self._changed()

    async def reissue(self, seats: Sequence[int | Literal["host", "watch", "invite"]]) -> None:
        """New links for these seats: a new generation each, durable before it counts, so
        the tokens of the old links are refused from now on (and after a restart)."""
        record = {"type": REISSUE, "seats": list(seats)}
        await self.log.commit(self.id, record, source=source_of(HOST))
        for seat in seats:
            self.generations[seat] = self.generations.get(seat, 0) + 1

    async def record_successor(self, table_id: str) -> None:
        """The next game of this (finished) table is played at `table_id`: durable first."""
        record = {"type": SUCCESSOR, "table": table_id}
        await self.log.commit(self.id, record, source=source_of(HOST))
        self.successor = table_id

    async def settle(self) -> None:
        """Wait until every queued input is handled (tests, after the fake clock moved)."""
        await self._queue.join()

    # --- what others read --------------------------------------------------------------

    def snapshot(self) -> Snapshot:
        stream = None
        if self.streaming.on:
            delay = self.streaming.delay
            stream = StreamView(delay=delay, delayed=self.history.as_of(self.clock.now() - delay))
        return Snapshot(
            table_id=self.id,
            version=self.version,
            state=self.state,
            settings=self.settings,
            timer_id=self.countdown.timer_id,
            timer_remaining=self.countdown.remaining(),
            paused=self.paused,
            present=frozenset(self.present),
            ending=self.ending(),
            successor=self.successor,
            stream=stream,
        )

    def ending(self) -> dict[str, Any] | None:
        """The end screen once the game is over (replayed from the log once per final
        state: an undo of the last event makes the game run again)."""
        if not self.state.over:
            return None
        if self._ending is None or self._ending[0] is not self.state:
            records = [e.record for e in self.log.entries(self.id)]
            self._ending = (self.state, end_view(self.settings, records))
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
            while len(batch) < MAX_BATCH and self._batchable(job) and not self._queue.empty():
                following = self._queue.get_nowait()
                if not self._batchable(following):
                    self._held = following  # it goes next, on its own
                    break
                batch.append(following)
            try:
                if len(batch) == 1:
                    outcomes = [await self._guarded(job)]
                else:
                    outcomes = await self._handle_batch(batch)
            except asyncio.CancelledError:  # the table stops: nobody waits forever
                stopping = Outcome(ok=False, code="stopping", message="the table is shutting down")
                for each in batch:  # a retry with the same id is acked once if it was logged
                    if each.reply is not None and not each.reply.done():
                        each.reply.set_result(stopping)
                raise
            finally:
                for _ in batch:
                    self._queue.task_done()
            for each, outcome in zip(batch, outcomes, strict=True):
                if each.reply is not None and not each.reply.done():
                    each.reply.set_result(outcome)

    async def _guarded(self, job: _Job) -> Outcome:
        """One input, whatever happens: a refusal or a failure is its outcome."""
        try:
            return await self._handle(job)
        except Refused as refusal:
            return Outcome(ok=False, code=refusal.code, message=refusal.message)
        except LogUnavailable as failure:  # nothing changed: the input was not committed
            return Outcome(ok=False, code="log_unavailable", message=str(failure))
        except Exception as error:  # a bug must not bring the table down
            logger.exception("table %s: input %r failed", self.id, job.command)
            return Outcome(ok=False, code="internal", message=f"internal error: {error}")

    @staticmethod
    def _batchable(job: _Job) -> bool:
        """A plain engine command from a client: it may share its commit with its queue
        neighbours. The clock, the room, the table's own commands and the host's `next`
        (which also clears the voice's queue) go one at a time."""
        kind = job.command.kind
        return job.sender not in (CLOCK, "room") and kind not in TABLE_COMMANDS and kind != "next"

    async def _handle_batch(self, batch: list[_Job]) -> list[Outcome]:
        """Inputs already waiting at this table, taken together (a round's ballots arrive
        at once): each is decided in order against the state the ones before it made, all
        that were accepted are committed in one transaction (one fsync, not one each), and
        only then does the state change, the effects run in order and the table publish,
        once. A refused input changes nothing and costs no commit."""
        state = self.state
        outcomes: list[Outcome | None] = []
        accepted: list[tuple[int, Event, list[Effect], str | None, Sender]] = []
        keys: dict[str, int] = {}  # client id -> index of the input that carries it
        for index, job in enumerate(batch):
            # _batchable keeps the clock's and the room's inputs out of a batch.
            sender, command = cast(Sender, job.sender), job.command
            try:
                key = None
                if command.client_id is not None:
                    key = f"{source_of(sender)}/{command.client_id}"
                    seq = self.log.find_client_id(self.id, key)
                    if seq is not None:
                        outcomes.append(Outcome(ok=True, duplicate=True, seq=seq))
                        continue
                    if key in keys:  # the same message twice in one batch: applied once
                        outcomes.append(Outcome(ok=True, duplicate=True))
                        continue
                authorize(sender, command)
                event, state, effects = _first_accepted(state, sender, command)
            except Refused as refusal:
                outcomes.append(Outcome(ok=False, code=refusal.code, message=refusal.message))
                continue
            except Exception as error:  # a bug must not bring the table down
                logger.exception("table %s: input %r failed", self.id, command)
                outcomes.append(Outcome(ok=False, code="internal", message=f"internal: {error}"))
                continue
            if key is not None:
                keys[key] = index
            accepted.append((index, event, effects, key, sender))
            outcomes.append(None)
        if accepted:
            inputs = [
                (to_record(event), source_of(sender), key) for _, event, _, key, sender in accepted
            ]  # in order, so their sequence numbers follow the order applied
            results: list[int | BaseException]
            try:
                results = list(await self.log.commit_many(self.id, inputs))
            except Exception as error:  # the log is closed: nothing was written
                results = [error for _ in inputs]
            failures = [r for r in results if isinstance(r, BaseException)]
            if failures and len(failures) < len(results):
                # Some inputs are durable and some are not (never seen: a batch shares one
                # transaction). The log is the truth: rebuild the state from it.
                logger.error("table %s: a batch was committed in part; replaying", self.id)
                logged = [e.record for e in self.log.entries(self.id) if is_event_record(e.record)]
                self.state, last_timer = replay(self.settings, logged)
                self._resume_timer(last_timer, None)
                await self._safely(self.room.set_speakers(frozenset(self.state.speakers)))
            elif not failures:
                self.state = state
            spoken: list[fx.Announce] = []
            for (index, _, effects, _, _), result in zip(accepted, results, strict=True):
                if isinstance(result, BaseException):
                    code = "log_unavailable" if isinstance(result, LogUnavailable) else "internal"
                    outcomes[index] = Outcome(ok=False, code=code, message=str(result))
                else:
                    outcomes[index] = Outcome(ok=True, seq=result)
                    if not failures:
                        spoken += await self._carry_out(effects)
            if len(failures) < len(results):
                await self._changed()
            await self._speak(spoken)
        return [outcome or Outcome(ok=False, code="internal") for outcome in outcomes]

    async def _handle(self, job: _Job) -> Outcome:
        sender, command = job.sender, job.command
        if sender == CLOCK:
            return await self._handle_clock(command)
        if sender == "room":
            seat, joined = command.fields["seat"], command.fields["joined"]
            (self.present.add if joined else self.present.discard)(seat)
            await self._changed()
            return Outcome(ok=True)
        if command.client_id is not None:
            # Client ids are the sender's own: seat 3's "1" and seat 4's "1" are different.
            key = f"{source_of(sender)}/{command.client_id}"
            command = replace(command, client_id=key)
            seq = self.log.find_client_id(self.id, key)
            if seq is not None:  # a retry: applied once, acked again (issue 4)
                return Outcome(ok=True, duplicate=True, seq=seq)
        authorize(sender, command)
        if command.kind in TABLE_COMMANDS:
            return await self._handle_table_command(command)
        event, new_state, effects = _first_accepted(self.state, sender, command)
        seq = await self.log.commit(
            self.id, to_record(event), source=source_of(sender), client_id=command.client_id
        )
        self.state = new_state
        if command.kind == "next":
            # The host moved the game on: the bot does not go on reading, over the next
            # speaker, what it had queued for the moments he skipped.
            await self._safely(self.voice.skip_queued())
        spoken = await self._carry_out(effects)
        await self._changed()
        await self._speak(spoken)
        return Outcome(ok=True, seq=seq)

    async def _handle_clock(self, command: Command) -> Outcome:
        if command.kind == "stream_due":  # a change is old enough for the overlay now
            await self._publish()
            return Outcome(ok=True)
        timer_id = command.fields["timer"]
        if timer_id != self.countdown.timer_id:
            return Outcome(ok=False, code="stale_timer", message="the timer was replaced")
        if command.kind == "warn":
            await self._say(WARNING_KEY, {}, urgent=True)
            return Outcome(ok=True)
        event = TimerExpired(timer=timer_id)
        try:
            new_state, effects = apply(self.state, event)
        except RuleError as refusal:  # stale: the engine moved on meanwhile
            return Outcome(ok=False, code=refusal.reason, message=refusal.message)
        seq = await self.log.commit(self.id, to_record(event), source=CLOCK)
        self.state = new_state
        spoken = await self._carry_out(effects)
        await self._changed()
        await self._speak(spoken)
        return Outcome(ok=True, seq=seq)

    async def _handle_table_command(self, command: Command) -> Outcome:
        kind = command.kind
        source = source_of(HOST)
        if kind in ("pause", "resume"):
            pause = kind == "pause"
            if self.paused == pause:
                raise Refused(f"already_{kind}d", f"the game is already {kind}d")
            seq = await self.log.commit(
                self.id, {"type": f"table.{kind}"}, source=source, client_id=command.client_id
            )
            self.paused = pause
            self.countdown.pause(pause)
            await self._say("game.paused" if pause else "game.resumed", {})
        elif kind == "add_time":
            if not self.countdown.active:
                raise Refused("no_timer", "no timer runs now")
            seconds = command.fields.get("seconds", ADD_TIME_SECONDS)
            seq = await self.log.commit(
                self.id,
                {"type": "table.add_time", "seconds": seconds},
                source=source,
                client_id=command.client_id,
            )
            self.countdown.add(seconds)
            self.save_clock(force=True)
        elif kind == "stream":
            on, delay = command.fields.get("on"), command.fields.get("delay", 0)
            try:
                if not isinstance(on, bool):
                    raise ValueError(f"'on' is true or false, not {on!r}")
                setting = StreamSetting(on=on, delay=delay)
            except ValueError as error:
                raise Refused("bad_delay", str(error)) from None
            record = setting.to_record()
            seq = await self.log.commit(self.id, record, source=source, client_id=command.client_id)
            self.streaming = setting
            self._schedule_stream()
        else:
            seq = self._undo(command.client_id)
            await self._safely(self.room.set_speakers(frozenset(self.state.speakers)))
            if not self.state.over:
                self._released = False
        await self._changed()
        return Outcome(ok=True, seq=seq)

    def _undo(self, client_id: str | None) -> int:
        """Undo the last engine event: replay the log without it, then mark it undone."""
        entries = [e for e in self.log.entries(self.id) if is_event_record(e.record)]
        if not entries:
            raise Refused("nothing_to_undo", "no event to undo")
        target = entries[-1]
        state, last_timer = replay(self.settings, [e.record for e in entries[:-1]])
        seq = self.log.mark_undone(
            self.id,
            target.seq,
            undo_record={"type": "table.undo", "seq": target.seq},
            source=source_of(HOST),
            client_id=client_id,
        )
        self.state = state
        self._resume_timer(last_timer, None)
        return seq

    # --- effects -----------------------------------------------------------------------

    async def _carry_out(self, effects: list[Effect]) -> list[fx.Announce]:
        """Every effect but the voice's, in order; the announcements are returned, to be
        spoken (`_speak`) once the table has published: rendering a phrase costs the loop
        a few milliseconds that the widgets need not wait for."""
        spoken = []
        for effect in effects:
            if isinstance(effect, fx.Announce):
                spoken.append(effect)
            elif isinstance(effect, fx.SetSpeakers):
                await self._safely(self.room.set_speakers(frozenset(effect.seats)))
            elif isinstance(effect, fx.StartTimer):
                self.countdown.start(
                    effect.timer, effect.seconds, warn_at=effect.warn_at, paused=self.paused
                )
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

    async def _speak(self, announcements: list[fx.Announce]) -> None:
        for announcement in announcements:
            await self._say(announcement.key, announcement.params)

    async def _say(self, key: str, params: Mapping[str, Any], *, urgent: bool = False) -> None:
        await self._safely(self.voice.announce(key, dict(params), urgent=urgent))

    async def _release(self) -> None:
        if not self._released:
            self._released = True
            await self._safely(self.room.release_all())

    async def _changed(self) -> None:
        if self.history.latest() is not self.state:
            self.history.record(self.clock.now(), self.state)
            self._schedule_stream()
        self.version += 1
        self.save_clock()
        await self._publish()

    async def _publish(self) -> None:
        await self._safely(self.hub.publish(self.snapshot()))

    async def _safely(self, action: Any) -> None:
        """Await an adapter call; its failure is logged and never stops the table."""
        try:
            await action
        except Exception:
            logger.exception("table %s: adapter call failed", self.id)

    def _resume_timer(self, last_timer: fx.StartTimer | None, row: ClockRow | None) -> None:
        """Set the countdown for the engine's current timer: the time it had left when the
        clock row is about that timer, else its full length."""
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

    # --- stream with roles -------------------------------------------------------------

    def _replay_history(self, entries: Sequence[Any]) -> None:
        """The states since the log began, stamped with how long ago their events were
        logged (wall clock), so the overlay's delay holds across a restart."""
        state = new_game(self.settings)
        now, wall = self.clock.now(), time.time()
        self.history.record(now - max(0.0, wall - entries[0].wall) if entries else now, state)
        for entry in entries:
            state, _ = apply(state, from_record(entry.record))
            self.history.record(now - max(0.0, wall - entry.wall), state)

    def _schedule_stream(self) -> None:
        """Refresh the overlay when the next change it has not shown yet is `delay` old;
        nothing while the setting is off (turning it off cancels what was due)."""
        for handle in self._stream_due:
            handle.cancel()
        self._stream_due.clear()
        if not self.streaming.on or self._stopped:
            return
        delay = self.streaming.delay
        due = self.history.next_after(self.clock.now() - delay)
        if due is not None:
            wait = max(0.0, due + delay - self.clock.now())
            self._stream_due.append(self.clock.call_later(wait, self._on_stream_due))

    def _on_stream_due(self) -> None:
        self._stream_due.clear()
        self._queue.put_nowait(_Job(CLOCK, Command(kind="stream_due"), None))
        self._schedule_stream()  # the next change waiting behind this one, if any

    # --- callbacks from the clock and the room (queued, never handled inline) ----------

    def _on_expire(self, timer_id: int) -> None:
        self._queue.put_nowait(
            _Job(CLOCK, Command(kind="expire", fields={"timer": timer_id}), None)
        )

    def _on_warn(self, timer_id: int) -> None:
        self._queue.put_nowait(_Job(CLOCK, Command(kind="warn", fields={"timer": timer_id}), None))

    async def _on_presence(self, seat: int, joined: bool) -> None:
        command = Command(kind="presence", fields={"seat": seat, "joined": joined})
        self._queue.put_nowait(_Job("room", command, None))


def with_logged_names(
    settings: TableSettings, records: Sequence[Mapping[str, Any]]
) -> TableSettings:
    """`settings` with the names the log's `table.name` records gave the seats since."""
    names = [settings.name_of(seat) for seat in range(1, settings.seats + 1)]
    changed = False
    for record in records:
        seat = record.get("seat")
        if record.get("type") == NAME and isinstance(seat, int) and 1 <= seat <= len(names):
            names[seat - 1] = str(record["name"])
            changed = True
    return replace(settings, names=tuple(names)) if changed else settings


def _first_accepted(
    state: GameState, sender: Sender, command: Command
) -> tuple[Event, GameState, list[Effect]]:
    """Apply the command's candidate events to `state` until the engine accepts one."""
    refusals: list[RuleError] = []
    for event in candidate_events(state, sender, command):
        try:
            new_state, effects = apply(state, event)
        except RuleError as refusal:
            refusals.append(refusal)
            continue
        return event, new_state, effects
    if command.kind == "next":
        raise Refused("no_next_step", "nothing is waiting for the host now")
    first = refusals[0]
    raise Refused(first.reason, first.message)
