"""What a table does itself for an input that is no engine event (plugin.host.commands
routes these here): the console's pause, resume, extra time, stream setting and undo, the
clock's timers running out and warning, the overlay's delayed refresh, the call's presence.

Each action is handed the table in its input loop (one input at a time), commits its
record (plugin.host.records) before it changes anything, and answers with a Verdict; a
refusal raises Refused and changes nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from plugin.rules import RuleError, apply
from plugin.rules.events import TimerExpired, to_record

from . import records
from .game import is_event_record, replay
from .inputs import (
    CLOCK,
    HOST,
    AddTime,
    Expire,
    Heard,
    HoldOver,
    Pause,
    Presence,
    Refused,
    Resume,
    Stream,
    StreamDue,
    Undo,
    Verdict,
    Warn,
    source_of,
)
from .stream import StreamSetting

if TYPE_CHECKING:
    from .table import Table

WARNING_KEY = "speech.ten_seconds"


async def pause_or_resume(table: Table, given: Pause | Resume, client_id: str | None) -> Verdict:
    """Stop (or restart) the running timer; the voice says so."""
    pause = isinstance(given, Pause)
    if table.paused == pause:
        raise Refused(f"already_{given.kind}d", f"the game is already {given.kind}d")
    seq = await table.log.commit(
        table.id, records.paused(pause), source=source_of(HOST), client_id=client_id
    )
    table.paused = pause
    table.freeze()  # still frozen while it waits for the speaker's audio (audio_wait.py)
    await table.say("game.paused" if pause else "game.resumed", {})
    await table.changed()
    return Verdict(ok=True, seq=seq)


async def add_time(table: Table, given: AddTime, client_id: str | None) -> Verdict:
    """Give the running timer `seconds` more (issue 4: "add 30 s to a speech")."""
    if not table.countdown.active:
        raise Refused("no_timer", "no timer runs now")
    seq = await table.log.commit(
        table.id, records.time_added(given.seconds), source=source_of(HOST), client_id=client_id
    )
    table.countdown.add(given.seconds)
    table.save_clock(force=True)
    await table.changed()
    return Verdict(ok=True, seq=seq)


async def stream(table: Table, given: Stream, client_id: str | None) -> Verdict:
    """Stream with roles on or off, with its delay (plugin.host.stream)."""
    try:
        if not isinstance(given.on, bool):
            raise ValueError(f"'on' is true or false, not {given.on!r}")
        setting = StreamSetting(on=given.on, delay=given.delay)
    except ValueError as error:
        raise Refused("bad_delay", str(error)) from None
    seq = await table.log.commit(
        table.id, records.stream(setting), source=source_of(HOST), client_id=client_id
    )
    table.stream.set(setting)
    await table.changed()
    return Verdict(ok=True, seq=seq)


async def undo(table: Table, given: Undo, client_id: str | None) -> Verdict:
    """Undo the last engine event: replay the log without it, then mark it undone."""
    entries = [e for e in table.log.entries(table.id) if is_event_record(e.record)]
    if not entries:
        raise Refused("nothing_to_undo", "no event to undo")
    target = entries[-1]
    state, last_timer = replay(table.settings, [e.record for e in entries[:-1]])
    seq = table.log.mark_undone(
        table.id,
        target.seq,
        undo_record=records.undone(target.seq),
        source=source_of(HOST),
        client_id=client_id,
    )
    table.state = state
    table.resume_timer(last_timer, None)
    await table.restore_speakers()
    await table.changed()
    return Verdict(ok=True, seq=seq)


async def expire(table: Table, given: Expire, client_id: str | None) -> Verdict:
    """The countdown ran out: the engine's TimerExpired, unless that timer was replaced."""
    if given.timer != table.countdown.timer_id:
        return Verdict(ok=False, code="stale_timer", message="the timer was replaced")
    event = TimerExpired(timer=given.timer)
    try:
        new_state, effects = apply(table.state, event)
    except RuleError as refusal:  # stale: the engine moved on meanwhile
        return Verdict(ok=False, code=refusal.reason, message=refusal.message)
    seq = await table.log.commit(table.id, to_record(event), source=CLOCK)
    table.state = new_state
    await table.follow(effects)
    return Verdict(ok=True, seq=seq)


async def warn(table: Table, given: Warn, client_id: str | None) -> Verdict:
    """The speech's warning before its end, spoken at once (unless the timer was replaced)."""
    if given.timer != table.countdown.timer_id:
        return Verdict(ok=False, code="stale_timer", message="the timer was replaced")
    await table.say(WARNING_KEY, {}, urgent=True)
    return Verdict(ok=True)


async def hold_over(table: Table, given: HoldOver, client_id: str | None) -> Verdict:
    """The speech waited its longest for the speaker's audio: its countdown runs on."""
    table.audio_wait.end()
    table.first_word.end()
    await table.changed()
    return Verdict(ok=True)


async def stream_due(table: Table, given: StreamDue, client_id: str | None) -> Verdict:
    """A change is old enough for the overlay now: publish."""
    await table.publish()
    return Verdict(ok=True)


async def heard(table: Table, given: Heard, client_id: str | None) -> Verdict:
    """A new speaker's audio flows to the listeners: his countdown may run (first_word.py)."""
    held = table.first_word.held
    table.first_word.heard(given.seat)
    if held and not table.first_word.held:
        await table.changed()
    return Verdict(ok=True)


async def presence(table: Table, given: Presence, client_id: str | None) -> Verdict:
    """A seat joined or left the call; a speaker's audio back ends the wait for it."""
    (table.present.add if given.joined else table.present.discard)(given.seat)
    if given.joined:
        table.audio_wait.arrived(given.seat)
    await table.changed()
    return Verdict(ok=True)
