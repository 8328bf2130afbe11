"""Many tables in one server (issue 16): one `autohost serve --room livekit` process, three
tables created through POST /api/tables (one in a club's own room), each bot in its own
room, a webhook for one room reaching only its table, SIGTERM giving every microphone back,
and a restart putting every table back in its room."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import os
import signal
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from google.protobuf.json_format import MessageToJson
from livekit import api
from livekit.api import AccessToken
from livekit.protocol.models import ParticipantInfo, Room
from livekit.protocol.webhook import WebhookEvent

from plugin.paths import ROOT
from plugin.rooms.livekit.tokens import Credentials
from testing import eventually
from testing.livekit_player import Player
from testing.livekit_server import API_KEY, API_SECRET

pytestmark = [pytest.mark.livekit]

ADMIN = {"Authorization": "Bearer admin-test"}


class Serving:
    def __init__(self, process: asyncio.subprocess.Process, url: str, log: Path) -> None:
        self.process, self.url, self.log = process, url, log

    async def stop(self) -> int:
        self.process.send_signal(signal.SIGTERM)
        try:
            return await asyncio.wait_for(self.process.wait(), 45)
        except TimeoutError:
            self.process.send_signal(signal.SIGABRT)  # faulthandler: where it hangs
            await asyncio.sleep(1)
            self.process.kill()
            await self.process.wait()
            raise AssertionError(f"no clean stop: {self.log.read_text()[-3000:]}") from None


async def serve(livekit_server, db: Path) -> Serving:
    log = db.with_suffix(".log")
    env = dict(os.environ, LIVEKIT_URL=livekit_server.ws_url, LIVEKIT_API_KEY=API_KEY,
               LIVEKIT_API_SECRET=API_SECRET, AUTOHOST_ADMIN_KEY="admin-test",
               PYTHONFAULTHANDLER="1")  # fmt: skip
    with log.open("ab") as errors:  # the child keeps its own copy of the descriptor
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "plugin.cli", "serve", "--room", "livekit", "--no-voice",
            "--port", str(livekit_server.webhook_port), "--db", str(db),
            cwd=ROOT, env=env, stdout=asyncio.subprocess.PIPE, stderr=errors,
        )  # fmt: skip
    assert process.stdout is not None
    try:
        line = (await asyncio.wait_for(process.stdout.readline(), 30)).decode()
    except BaseException:
        process.kill()
        await process.wait()
        raise
    assert "listening on" in line, line
    return Serving(process, line.split("listening on ")[1].split()[0], log)


@pytest.fixture
async def lkapi(livekit_server) -> AsyncIterator[api.LiveKitAPI]:
    async with api.LiveKitAPI(livekit_server.ws_url, API_KEY, API_SECRET, failover=False) as c:
        yield c


async def participants(lkapi, room: str) -> dict[str, ParticipantInfo]:
    answer = await lkapi.room.list_participants(api.ListParticipantsRequest(room=room))
    return {p.identity: p for p in answer.participants}


def signed_event(kind: str, room: str, identity: str) -> tuple[str, str]:
    event = WebhookEvent(
        event=kind,
        id=f"EV_{kind}_{room}_{identity}",
        room=Room(name=room),
        participant=ParticipantInfo(identity=identity, sid=f"PA_{identity}"),
    )
    body = MessageToJson(event)
    digest = base64.b64encode(hashlib.sha256(body.encode()).digest()).decode()
    return body, AccessToken(API_KEY, API_SECRET).with_sha256(digest).to_jwt()


@pytest.mark.slow
async def test_three_tables_in_one_server_each_in_its_room(livekit_server, lkapi, tmp_path):
    creds = Credentials(url=livekit_server.ws_url, api_key=API_KEY, api_secret=API_SECRET)
    server = await serve(livekit_server, tmp_path / "autohost.db")
    players: list[Player] = []
    try:
        async with httpx.AsyncClient(base_url=server.url, timeout=10) as client:
            bodies = [{"seats": 7, "livekit_room": "club-hall"}, {"seats": 7}, {"seats": 7}]
            answers = [await client.post("/api/tables", json=b, headers=ADMIN) for b in bodies]
            assert [a.status_code for a in answers] == [201, 201, 201], answers[0].text
            tables = [a.json() for a in answers]
            rooms = ["club-hall", *(f"autohost-{t['id']}" for t in tables[1:])]

            async def one_bot_each() -> bool:
                for room in rooms:
                    if "autohost-bot" not in await participants(lkapi, room):
                        return False
                return True

            await eventually(one_bot_each, "every table's bot is in its own room", seconds=45)

            # a player in every room, with the LiveKit token our server mints from his link
            for table, room in zip(tables, rooms, strict=True):
                link = table["seats"][1]["token"]  # seat 2
                minted = (await client.post("/livekit/token", json={"link": link})).json()
                assert minted["room"] == room, minted
                player = Player(creds, room, 2)
                await player.join(minted["token"])
                players.append(player)

            async def present(table_id: str) -> list[int]:
                info = await client.get(f"/api/tables/{table_id}", headers=ADMIN)
                return list(info.json()["view"]["table"]["present"])

            for table in tables:
                await eventually(_eq(present, table["id"], [2]), f"seat 2 at {table['id']}")

            # a webhook for the second table's room reaches that table only
            body, auth = signed_event("participant_joined", rooms[1], "seat-5")
            answer = await client.post(
                "/livekit/webhook", content=body, headers={"Authorization": auth}
            )
            assert answer.status_code == 200, answer.text
            assert await present(tables[1]["id"]) == [2, 5]
            assert await present(tables[0]["id"]) == [2]
            assert await present(tables[2]["id"]) == [2]

            for room in rooms:  # the lobby: nobody publishes yet
                assert (await participants(lkapi, room))["seat-2"].permission.can_publish is False

        assert await server.stop() == 0
        for room in rooms:  # SIGTERM: every microphone as it was (a restart), every bot gone
            listed = await participants(lkapi, room)
            assert not listed["seat-2"].permission.can_publish, room
            assert "autohost-bot" not in listed, room

        server = await serve(livekit_server, tmp_path / "autohost.db")  # a restart
        await eventually(one_bot_each, "each table back in its room after a restart", seconds=45)
    finally:
        if server.process.returncode is None:
            await server.stop()
        for player in players:
            await player.leave()


def _eq(fetch, argument, expected):
    async def check() -> bool:
        return await fetch(argument) == expected

    return check


class CountingVoice:
    """A voice that counts who listens; its frames: 3 of silence, 2 of sound, then the end."""

    def __init__(self) -> None:
        self.listened = 0
        self.said: list[str] = []

    async def announce(self, key, params, *, urgent=False) -> None:
        self.said.append(key)

    async def skip_queued(self) -> None:
        pass

    async def pcm_frames(self):
        self.listened += 1
        for frame in (bytes(1920),) * 3 + (b"\x10\x00" * 960,) * 2:
            yield frame

    def on_cut(self, callback) -> None:
        pass

    async def stop(self) -> None:
        pass


async def test_a_table_that_says_nothing_runs_no_frame_loop(livekit_server):
    from plugin.host.settings import TableSettings
    from plugin.server.livekit import LiveKitTables

    creds = Credentials(url=livekit_server.ws_url, api_key=API_KEY, api_secret=API_SECRET)
    tables = LiveKitTables(creds, voice_factory=lambda language: CountingVoice())
    settings = TableSettings.from_record({"seats": 7, "seed": 1})
    room = tables.room("quiet1", settings)
    voice = tables.voice("quiet1", settings)
    await room.start()
    try:
        await asyncio.sleep(0.3)
        bot = tables.hosted["quiet1"].bot
        assert voice.voice.listened == 0 and bot.frames_sent == 0  # nothing said: no loop
        await voice.announce("night", {})
        await eventually(lambda: _now(bot.frames_sent == 2), "the phrase's frames are sent")
        assert bot.frames_skipped == 3  # silence is not sent
        await voice.announce("day", {})
        assert voice.voice.listened == 1  # one listener for the table's whole life
    finally:
        await room.stop()


async def _now(value: bool) -> bool:
    return value


async def test_a_table_naming_a_hosted_room_takes_it_over(livekit_server, lkapi):
    from plugin.host.settings import TableSettings
    from plugin.server.livekit import LiveKitTables

    creds = Credentials(url=livekit_server.ws_url, api_key=API_KEY, api_secret=API_SECRET)
    tables = LiveKitTables(creds, voice_factory=lambda language: CountingVoice())
    settings = TableSettings.from_record({"seats": 7, "seed": 1, "livekit_room": "reused"})
    old = tables.room("game1", settings)
    await old.start()
    player = Player(creds, "reused", 3)
    await player.join()
    new = tables.room("game2", settings)
    try:
        await new.start()
        assert tables.events_for("reused") is new and old.detached
        await old.release_all()  # the old table ending must not open the new game's mics
        await new.set_speakers(frozenset())
        listed = await participants(lkapi, "reused")
        assert listed["seat-3"].permission.can_publish is False
        bots = [p for p in listed.values() if p.identity == "autohost-bot"]
        assert [p.sid for p in bots] == [new.room.bot_sid]
        assert new.bot.duplicates == 0
    finally:
        await new.stop()
        await old.stop()
        await player.leave()


async def test_a_quiet_bot_unpublishes_its_track_and_speaks_again(livekit_server, lkapi):
    from plugin.rooms.livekit.bot import LiveKitBot
    from plugin.rooms.livekit.tokens import bot_token
    from testing.livekit_server import mic_publishers
    from testing.tones import tone_frames

    creds = Credentials(url=livekit_server.ws_url, api_key=API_KEY, api_secret=API_SECRET)
    # Quiet for good until the test has seen the track in the room (ListParticipants can
    # take longer than a short quiet spell on a loaded machine), then after 0.2 s.
    bot = LiveKitBot(creds.url, bot_token(creds, "quiet-room"), quiet_after=3600)
    await bot.start()

    async def silence(frames: int):
        for _ in range(frames):
            yield bytes(1920)
            await asyncio.sleep(0.02)

    try:
        assert not bot.publishing  # nothing said yet: no track, no encoder
        await bot.play(tone_frames(440.0, frames=5))
        assert bot.publishing

        async def published() -> bool:
            return "autohost-bot" in await mic_publishers(lkapi, "quiet-room")

        await eventually(published, "the bot's track is in the room")
        bot.set_quiet_after(0.2)
        await bot.play(silence(25))  # half a second of silence
        assert not bot.publishing
        await eventually(
            lambda: _missing(mic_publishers(lkapi, "quiet-room"), "autohost-bot"),
            "the quiet bot's track is gone from the room",
        )
        await bot.play(tone_frames(440.0, frames=5))
        assert bot.publishing and bot.publishes == 2
    finally:
        await bot.stop()


async def _missing(fetch, identity: str) -> bool:
    return identity not in await fetch


async def test_each_bot_hears_only_its_own_rooms_events(livekit_server):
    """The SDK handed every FFI event to every room of the process: each capture of one
    bot woke every other bot's room (11 deliveries a capture with 10 tables)."""
    from plugin.rooms.livekit.bot import LiveKitBot
    from plugin.rooms.livekit.tokens import bot_token
    from testing.tones import tone_frames

    creds = Credentials(url=livekit_server.ws_url, api_key=API_KEY, api_secret=API_SECRET)
    speaking = LiveKitBot(creds.url, bot_token(creds, "room-a"), quiet_after=5)
    other = LiveKitBot(creds.url, bot_token(creds, "room-b"), quiet_after=5)
    await speaking.start()
    await other.start()
    heard: list[str] = []
    queue = other.room._ffi_queue
    put = queue.put_nowait

    def counting(event) -> None:
        heard.append(event.WhichOneof("message"))
        put(event)

    queue.put_nowait = counting  # what the SDK's event thread hands the other room
    player = Player(creds, "room-b", 1)
    try:
        await speaking.play(tone_frames(440.0, frames=50))  # a second: 10 captures
        assert speaking.captures >= 10
        await player.join()  # the other room still hears its own events
        await eventually(
            lambda: _now("seat-1" in {p.identity for p in other.room.remote_participants.values()}),
            "the other bot sees its room's player",
        )
        assert "room_event" in heard
        assert "capture_audio_frame" not in heard, heard
    finally:
        await player.leave()
        await speaking.stop()
        await other.stop()


def test_an_unknown_sdk_queue_is_left_as_it_is(caplog):
    from plugin.rooms.livekit import ffi

    class Room:  # no _ffi_queue: another SDK's room
        pass

    ffi._warned = False
    assert ffi.narrow_events(Room()) is False  # type: ignore[arg-type]
    assert "every room of the process hears every event" in caplog.text


async def test_during_a_speech_the_bots_track_goes_after_two_seconds(livekit_server):
    """A bot's published track costs its encoder even in silence: while a player speaks
    (the next phrase is most of a speech away) it goes after 2 s of quiet, not 10."""
    from plugin.rooms.livekit.backend import LiveKitRoom
    from plugin.rooms.livekit.bot import QUIET_SECONDS, SPEECH_QUIET_SECONDS, LiveKitBot
    from plugin.rooms.livekit.botroom import BotRoom
    from plugin.rooms.livekit.tokens import bot_token
    from testing.tones import tone_frames

    creds = Credentials(url=livekit_server.ws_url, api_key=API_KEY, api_secret=API_SECRET)
    room = LiveKitRoom.connect(creds.url, API_KEY, API_SECRET, "speech-room", reconcile_every=3600)
    bot = LiveKitBot(creds.url, bot_token(creds, "speech-room"), events=room)
    hosted = BotRoom(room, bot, None)
    await hosted.start()
    loop = asyncio.get_running_loop()
    try:
        await hosted.set_speakers(frozenset())  # a vote: phrases seconds apart
        assert bot.quiet_after == QUIET_SECONDS
        await bot.play(tone_frames(440.0, frames=10))
        assert bot.publishing
        await asyncio.sleep(SPEECH_QUIET_SECONDS + 1)
        assert bot.publishing  # kept for the next call of the vote
        await hosted.set_speakers(frozenset({1}))  # a speech starts: it goes soon
        started = loop.time()
        await eventually(lambda: _now(not bot.publishing), "the track goes", seconds=5)
        assert loop.time() - started < QUIET_SECONDS - SPEECH_QUIET_SECONDS
        await bot.play(tone_frames(440.0, frames=10))  # the next phrase publishes again
        assert bot.publishing and bot.publishes == 2
    finally:
        await hosted.stop()
