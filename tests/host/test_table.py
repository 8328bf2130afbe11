"""The engine driven through a Table: effects reach the adapters, timers run on the clock,
host actions work in both modes, inputs are authorized, retries are applied once."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from plugin.host.inputs import (
    HOST,
    AddTime,
    DonCheck,
    EndGame,
    EndSpeech,
    Expire,
    GiveFoul,
    Input,
    Manual,
    Next,
    Pass,
    Pause,
    Presence,
    Resume,
    Sender,
    Start,
    Undo,
    Vote,
)

from .conftest import Harness


@dataclass(frozen=True, slots=True, kw_only=True)
class Teleport(Input):
    """An input no route knows."""

    kind = "teleport"


async def test_start_runs_night_zero_on_the_clock(harness: Harness) -> None:
    await harness.ok(HOST, Start())
    assert harness.phase == "black_meeting"
    assert harness.voice.keys[:2] == ["night", "night.black_meeting"]
    assert harness.room.speakers == frozenset()
    assert harness.table.countdown.remaining() == 60
    await harness.advance(59)
    assert harness.phase == "black_meeting"
    await harness.advance(1)
    assert harness.phase == "don_meeting"
    while harness.phase != "speech":
        await harness.expire()
    assert harness.room.speakers == frozenset({1})
    assert harness.hub.last.state is harness.state  # every change reaches the widgets


async def test_speech_warning_then_next_speaker(harness: Harness) -> None:
    await harness.to_day_one()
    said = len(harness.voice.said)
    await harness.advance(49)
    assert "speech.ten_seconds" not in harness.voice.keys[said:]
    await harness.advance(1)
    assert harness.voice.keys[said:] == ["speech.ten_seconds"]
    await harness.advance(10)
    assert harness.room.speakers == frozenset({2})


async def test_a_vote_is_logged_before_it_is_acknowledged(harness: Harness) -> None:
    await harness.to_vote()
    assert harness.state.candidates == (5, 6)
    verdict = await harness.send(7, Vote(candidate=5), client_id="m1")
    assert verdict.ok and not verdict.duplicate
    entries = harness.log.entries("t1")
    assert entries[-1].record == {"type": "vote", "voter": 7, "candidate": 5}
    assert entries[-1].source == "7" and entries[-1].seq == verdict.seq
    assert harness.state.tally == {5: 1, 6: 0}


async def test_a_retried_message_is_applied_once(harness: Harness) -> None:
    await harness.to_vote()
    first = await harness.send(7, Vote(candidate=5), client_id="m1")
    again = await harness.send(7, Vote(candidate=5), client_id="m1")
    assert again.ok and again.duplicate and again.seq == first.seq
    assert harness.state.tally == {5: 1, 6: 0}
    votes = [e for e in harness.log.entries("t1") if e.record["type"] == "vote"]
    assert len(votes) == 1
    # Another seat's message with the same id is its own message.
    other = await harness.send(8, Vote(candidate=6), client_id="m1")
    assert other.ok and not other.duplicate
    assert harness.state.tally == {5: 1, 6: 1}


async def test_refused_inputs_change_nothing(harness: Harness) -> None:
    await harness.to_vote()
    before_state, before_log = harness.state, len(harness.log.entries("t1"))
    checks: list[tuple[Sender, Input, str | None]] = [
        (5, Vote(candidate=5), "self_vote"),
        (7, Vote(candidate=9), None),  # not a candidate: the engine's reason
        (7, Pause(), "host_only"),
        (7, Undo(), "host_only"),
        (7, GiveFoul(seat=8), "host_only"),
        (HOST, Vote(candidate=5), "players_only"),
        (7, DonCheck(target=4), "not_your_role"),
        (7, Teleport(), "unknown_command"),  # no route: the missing entry is the refusal
        (HOST, Expire(timer=harness.table.countdown.timer_id or 0), "table_only"),
        (7, Presence(seat=7, joined=False), "table_only"),
        ("watch", Vote(candidate=5), "spectator"),
    ]
    for sender, given, code in checks:
        verdict = await harness.send(sender, given)
        assert not verdict.ok, (sender, given)
        if code is not None:
            assert verdict.code == code, (sender, given, verdict)
    assert "teleport" in str(
        (await harness.send(7, Teleport())).message
    )  # the refusal names the input
    assert harness.state is before_state
    assert len(harness.log.entries("t1")) == before_log


async def test_pause_freezes_the_timer_and_resume_continues_it(harness: Harness) -> None:
    await harness.to_day_one()
    await harness.advance(20)
    await harness.ok(HOST, Pause())
    assert harness.voice.keys[-1] == "game.paused"
    await harness.advance(300)
    assert harness.phase == "speech" and harness.room.speakers == frozenset({1})
    assert harness.table.countdown.remaining() == 40
    assert (await harness.send(HOST, Pause())).code == "already_paused"
    await harness.ok(HOST, Resume())
    assert harness.voice.keys[-1] == "game.resumed"
    await harness.advance(39)
    assert harness.room.speakers == frozenset({1})
    await harness.advance(1)
    assert harness.room.speakers == frozenset({2})


async def test_a_timer_started_while_paused_waits_for_resume(harness: Harness) -> None:
    await harness.to_day_one()
    await harness.ok(HOST, Pause())
    await harness.ok(HOST, EndSpeech())  # the host ends speaker 1's speech while paused
    assert harness.room.speakers == frozenset({2})
    await harness.advance(600)
    assert harness.room.speakers == frozenset({2})
    assert harness.table.countdown.remaining() == 60


async def test_add_time_extends_the_running_speech(harness: Harness) -> None:
    await harness.to_day_one()
    await harness.advance(50)
    await harness.ok(HOST, AddTime(seconds=30))
    assert harness.table.countdown.remaining() == 40
    await harness.advance(39)
    assert harness.room.speakers == frozenset({1})
    await harness.advance(1)
    assert harness.room.speakers == frozenset({2})


async def test_end_speech_passes_for_the_speaker(harness: Harness) -> None:
    await harness.to_day_one()
    await harness.ok(HOST, EndSpeech())
    assert harness.room.speakers == frozenset({2})
    assert harness.log.entries("t1")[-1].record == {"type": "pass", "seat": 1}


async def test_undo_replays_the_log_without_the_last_event(harness: Harness) -> None:
    await harness.to_vote()
    await harness.ok(7, Vote(candidate=5))
    await harness.ok(8, Vote(candidate=6))
    assert harness.state.tally == {5: 1, 6: 1}
    await harness.ok(HOST, Undo())
    assert harness.state.tally == {5: 1, 6: 0}
    assert 8 in harness.state.voters  # seat 8 may vote again
    everything = harness.log.entries("t1", include_undone=True)
    undone = [e for e in everything if e.undone]
    assert [e.record for e in undone] == [{"type": "vote", "voter": 8, "candidate": 6}]
    assert everything[-1].record["type"] == "table.undo"
    await harness.ok(8, Vote(candidate=5))
    assert harness.state.tally == {5: 2, 6: 0}


async def test_undo_of_a_speech_end_gives_the_floor_back(harness: Harness) -> None:
    await harness.to_day_one()
    await harness.expire()
    assert harness.room.speakers == frozenset({2})
    await harness.ok(HOST, Undo())
    assert harness.room.speakers == frozenset({1})
    assert harness.table.countdown.remaining() == 60


async def test_manual_mode_tie_dialog_and_next_step(harness: Harness) -> None:
    await harness.to_vote()
    await harness.ok(HOST, Manual(on=True))
    assert harness.state.manual
    for seat in (1, 2, 3, 4):
        await harness.ok(seat, Vote(candidate=5))
    for seat in (7, 8, 9, 10):
        await harness.ok(seat, Vote(candidate=6))
    await harness.ok(5, Vote(candidate=6))
    await harness.ok(6, Vote(candidate=5))
    while harness.state.dialog is None and harness.table.countdown.active:
        await harness.expire()
    dialog = harness.state.dialog
    assert dialog is not None and dialog.kind == "tie" and dialog.candidates == (5, 6)
    assert not harness.table.countdown.active  # the bot waits for the live host
    await harness.ok(HOST, Next())  # closes the dialog with its default: speeches
    assert harness.state.dialog is None
    assert harness.phase == "defense"
    assert harness.room.speakers == frozenset({5})


async def test_next_in_automatic_mode_ends_the_running_step(harness: Harness) -> None:
    await harness.ok(HOST, Next())  # in the lobby: starts the game
    assert harness.phase == "black_meeting"
    await harness.ok(HOST, Next())
    assert harness.phase == "don_meeting"


async def test_the_hosts_next_drops_what_the_bot_had_not_said_yet(harness: Harness) -> None:
    await harness.ok(HOST, Next())  # the lobby: the game starts, nothing queued to skip
    said = len(harness.voice.said)
    await harness.ok(HOST, Next())  # he skips the black team's meeting
    assert harness.phase == "don_meeting"
    # Skipped before the don's meeting is announced, never after: the new phrases stay.
    assert harness.voice.skipped_at[-1] == said
    assert len(harness.voice.said) > said
    skips = len(harness.voice.skipped_at)
    await harness.expire()  # the clock moves the game on: the bot says everything
    assert len(harness.voice.skipped_at) == skips
    while harness.phase != "speech":
        await harness.expire()
    await harness.ok(1, Pass())  # a player's own move drops nothing either
    assert len(harness.voice.skipped_at) == skips


async def test_end_game_gives_every_microphone_back(harness: Harness) -> None:
    await harness.to_day_one()
    await harness.ok(HOST, EndGame(winner=None))
    assert harness.state.over
    assert harness.room.released
    assert not harness.table.countdown.active


async def test_stop_gives_every_microphone_back(harness: Harness) -> None:
    await harness.to_day_one()
    await harness.table.stop()
    assert harness.room.released and harness.room.stopped and harness.voice.stopped
    late = await harness.send(HOST, Next())  # answered, not left waiting forever
    assert not late.ok and late.code == "stopping"
    await harness.reopen()  # so the fixture's teardown has a live table


async def test_restart_resumes_where_it_was(harness: Harness) -> None:
    await harness.to_vote()
    await harness.ok(7, Vote(candidate=5))
    await harness.ok(8, Vote(candidate=6))
    await harness.advance(6.5)
    harness.table.save_clock(force=True)  # the registry does this every second
    state = harness.state
    await harness.reopen()
    assert harness.state.tally == state.tally == {5: 1, 6: 1}
    assert harness.state.candidates == (5, 6)
    assert harness.state.voters == state.voters
    assert harness.table.countdown.timer_id == state.timer.id
    assert harness.table.countdown.remaining() == pytest.approx(15 - 6.5)
    assert harness.room.calls[0] == ("set_speakers", state.speakers)
    assert harness.room.started
    await harness.ok(9, Vote(candidate=5))
    assert harness.state.tally == {5: 2, 6: 1}


async def test_restart_keeps_a_pause_and_added_time(harness: Harness) -> None:
    await harness.to_day_one()
    await harness.advance(10)
    await harness.ok(HOST, AddTime(seconds=30))
    await harness.ok(HOST, Pause())
    await harness.reopen()
    assert harness.table.paused
    assert harness.table.countdown.remaining() == 80
    await harness.advance(1000)
    assert harness.room.speakers == frozenset({1})
    await harness.ok(HOST, Resume())
    await harness.advance(80)
    assert harness.room.speakers == frozenset({2})


async def test_room_presence_reaches_the_widgets(harness: Harness) -> None:
    await harness.room.join(3)
    await harness.table.settle()
    assert harness.hub.last.present == frozenset({3})
    await harness.room.join(3, joined=False)
    await harness.table.settle()
    assert harness.hub.last.present == frozenset()


async def test_a_failing_adapter_does_not_stop_the_table(harness: Harness) -> None:
    async def broken(key, params, *, urgent=False):
        raise RuntimeError("the speaker is on fire")

    harness.voice.announce = broken  # type: ignore[method-assign]
    await harness.ok(HOST, Start())
    assert harness.phase == "black_meeting"
