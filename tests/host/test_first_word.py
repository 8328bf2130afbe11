"""A new speaker's countdown waits for his audio in a room that hears him only some time
after his grant (LiveKit's fresh track each turn, issue 30), at most FIRST_WORD_SECONDS;
a room that forwards him at once (embedded) and a speaker not in the room wait for nothing."""

from __future__ import annotations

from pathlib import Path

from plugin.eventlog import EventLog, SqliteStore
from plugin.host.first_word import FIRST_WORD_SECONDS
from plugin.host.inputs import HOST, Next
from plugin.host.ports import AudioCallback
from plugin.host.settings import TableSettings
from plugin.host.table import Table
from plugin.host.views import build_view
from testing import FakeClock, FakeHub, FakeRoom, FakeVoice

from .conftest import Harness


class HearingRoom(FakeRoom):
    """A room that says when a granted speaker's audio flows (ports.HearsSpeakers)."""

    def __init__(self) -> None:
        super().__init__()
        self._audio: list[AudioCallback] = []

    def on_audio(self, callback: AudioCallback) -> None:
        self._audio.append(callback)

    async def hear(self, seat: int) -> None:
        for callback in self._audio:
            await callback(seat)


async def hearing_table(path: Path, settings: TableSettings) -> tuple[Harness, HearingRoom]:
    log = EventLog(SqliteStore(path))
    log.create_table("t1", settings.to_record())
    clock, room, voice, hub = FakeClock(), HearingRoom(), FakeVoice(), FakeHub()
    table = Table("t1", settings, log=log, clock=clock, room=room, voice=voice, hub=hub)
    await table.start()
    harness = Harness(table, log, clock, room, voice, hub, path, settings)
    await harness.to_day_one()  # nobody in the room yet: nothing waited for
    assert not table.snapshot().timer_held
    for seat in range(1, settings.seats + 1):
        await room.join(seat)
    await table.settle()
    return harness, room


async def test_the_new_speakers_countdown_runs_once_his_audio_flows(
    tmp_path: Path, settings: TableSettings
) -> None:
    harness, room = await hearing_table(tmp_path / "log.db", settings)
    try:
        await harness.ok(HOST, Next())
        speaker = harness.state.speaker
        assert speaker is not None and room.speakers == {speaker}  # his microphone is open
        full = harness.table.countdown.remaining()
        snapshot = harness.table.snapshot()
        assert snapshot.timer_held
        assert build_view(snapshot, speaker)["clock"]["running"] is False
        await harness.advance(0.4)
        assert harness.table.countdown.remaining() == full  # not a moment of his lost
        await room.hear(speaker + 1)  # somebody else's audio is not his
        await harness.table.settle()
        assert harness.table.snapshot().timer_held
        await room.hear(speaker)
        await harness.table.settle()
        assert not harness.table.snapshot().timer_held
        assert not harness.hub.last.timer_held  # the pages were told it runs
        await harness.advance(2.0)
        assert harness.table.countdown.remaining() == (full or 0) - 2.0
    finally:
        await harness.table.stop()
        harness.log.close()


async def test_a_speaker_never_heard_waits_at_most_the_bound(
    tmp_path: Path, settings: TableSettings
) -> None:
    harness, _ = await hearing_table(tmp_path / "log.db", settings)
    try:
        await harness.ok(HOST, Next())
        full = harness.table.countdown.remaining()
        await harness.advance(FIRST_WORD_SECONDS - 0.1)
        assert harness.table.snapshot().timer_held
        await harness.advance(0.1)
        assert not harness.table.snapshot().timer_held
        await harness.advance(1.0)
        assert harness.table.countdown.remaining() == (full or 0) - 1.0
    finally:
        await harness.table.stop()
        harness.log.close()


async def test_a_speaker_not_in_the_room_is_not_waited_for(
    tmp_path: Path, settings: TableSettings
) -> None:
    harness, room = await hearing_table(tmp_path / "log.db", settings)
    try:
        following = harness.state.speech_queue[0]
        await room.join(following, joined=False)
        await harness.table.settle()
        await harness.ok(HOST, Next())
        assert harness.state.speaker == following
        assert not harness.table.snapshot().timer_held
    finally:
        await harness.table.stop()
        harness.log.close()


async def test_a_room_that_forwards_at_once_waits_for_nothing(harness: Harness) -> None:
    await harness.to_day_one()
    for seat in range(1, 11):
        await harness.room.join(seat)
    await harness.table.settle()
    await harness.ok(HOST, Next())
    assert not harness.table.snapshot().timer_held
