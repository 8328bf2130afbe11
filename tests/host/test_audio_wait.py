"""After a restart (or a failover: the heir starts the table from the log the same way) a
speech's countdown waits for its speaker's audio, at most HOLD_SECONDS; while the server
runs, the speaker's own network is his and nothing waits (issue 32)."""

from __future__ import annotations

from plugin.host.audio_wait import HOLD_SECONDS
from plugin.host.inputs import HOST, Next, Pause, Resume
from plugin.host.views import build_view

from .conftest import Harness


async def restarted_mid_speech(harness: Harness, spoken: float = 20.0) -> tuple[int, float]:
    """Day 1's first speech, `spoken` seconds in, then a restart; (speaker, time left)."""
    await harness.to_day_one()
    await harness.advance(spoken)
    speaker = harness.state.speaker
    left = harness.table.countdown.remaining()
    assert speaker is not None and left is not None
    await harness.reopen()
    return speaker, left


async def test_the_speech_waits_for_its_speaker_after_a_restart(harness: Harness) -> None:
    speaker, left = await restarted_mid_speech(harness)
    snapshot = harness.table.snapshot()
    assert snapshot.timer_held and harness.table.audio_wait.waiting_for == {speaker}
    clock = build_view(snapshot, speaker)["clock"]
    assert clock["running"] is False and clock["held"] is True
    await harness.advance(4.0)  # his page rejoins the new room meanwhile
    assert harness.table.countdown.remaining() == left  # not a moment lost
    await harness.room.join(speaker + 1)  # somebody else's audio is not his
    await harness.table.settle()
    assert harness.table.snapshot().timer_held
    await harness.room.join(speaker)
    await harness.table.settle()
    snapshot = harness.table.snapshot()
    assert not snapshot.timer_held and "held" not in build_view(snapshot, speaker)["clock"]
    await harness.advance(5.0)
    assert harness.table.countdown.remaining() == left - 5.0
    assert harness.state.speaker == speaker


async def test_a_speaker_who_does_not_come_back_waits_at_most_the_bound(
    harness: Harness,
) -> None:
    _, left = await restarted_mid_speech(harness)
    await harness.advance(HOLD_SECONDS - 0.5)
    assert harness.table.snapshot().timer_held
    assert harness.table.countdown.remaining() == left
    await harness.advance(0.5)  # the bound: the countdown runs on
    assert not harness.table.snapshot().timer_held
    await harness.advance(3.0)
    assert harness.table.countdown.remaining() == left - 3.0
    assert not harness.hub.last.timer_held  # the pages were told it runs again


async def test_the_host_moving_on_ends_the_wait(harness: Harness) -> None:
    """A new speech is the engine's timer: it runs, whoever speaks now."""
    speaker, _ = await restarted_mid_speech(harness)
    await harness.ok(HOST, Next())
    assert harness.state.speaker != speaker
    assert not harness.table.snapshot().timer_held
    full = harness.table.countdown.remaining()
    await harness.advance(2.0)
    assert harness.table.countdown.remaining() == (full or 0) - 2.0


async def test_a_host_resume_does_not_end_the_wait_nor_a_speaker_back_the_pause(
    harness: Harness,
) -> None:
    speaker, left = await restarted_mid_speech(harness)
    await harness.ok(HOST, Pause())
    await harness.ok(HOST, Resume())  # the host's pause is over; the wait is not
    await harness.advance(2.0)
    assert harness.table.countdown.remaining() == left
    await harness.ok(HOST, Pause())
    await harness.room.join(speaker)  # the wait is over; the host's pause is not
    await harness.table.settle()
    assert not harness.table.snapshot().timer_held
    await harness.advance(2.0)
    assert harness.table.countdown.remaining() == left
    await harness.ok(HOST, Resume())
    await harness.advance(2.0)
    assert harness.table.countdown.remaining() == left - 2.0


async def test_nothing_waits_while_the_server_runs(harness: Harness) -> None:
    """His own network is his: a speaker who leaves the call and comes back costs his
    speech the time, as with a live host."""
    await harness.to_day_one()
    speaker = harness.state.speaker
    assert speaker is not None
    left = harness.table.countdown.remaining() or 0.0
    await harness.room.join(speaker, joined=False)
    await harness.advance(3.0)
    await harness.room.join(speaker)
    await harness.table.settle()
    assert not harness.table.snapshot().timer_held
    assert harness.table.countdown.remaining() == left - 3.0


async def test_a_restart_while_it_waits_keeps_the_time(harness: Harness) -> None:
    speaker, left = await restarted_mid_speech(harness)
    await harness.advance(3.0)
    await harness.reopen()  # restarted again before he came back
    assert harness.table.snapshot().timer_held
    assert harness.table.countdown.remaining() == left
    await harness.room.join(speaker)
    await harness.table.settle()
    assert not harness.table.snapshot().timer_held
