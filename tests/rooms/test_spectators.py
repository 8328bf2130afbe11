"""Spectators in the embedded room (issue 17): a watch token listens to what a listener hears
(the open microphones and the bot's voice), is never heard, cannot even offer to send, and
the number of spectators' connections per table is bounded."""

from __future__ import annotations

import asyncio

import pytest

from plugin.bodies import sending_media
from plugin.rooms.embedded import EmbeddedRoom, loopback_ice
from plugin.rooms.embedded.client import RoomClient, ToneTrack, tone_frames
from plugin.rooms.embedded.room import RoomFull

from .conftest import BOT_HZ, Join, hears, pitch, until

pytestmark = pytest.mark.slow


async def listen(room: EmbeddedRoom, clients: list[RoomClient]) -> RoomClient:
    client = RoomClient(listen_only=True)
    clients.append(client)
    await client.connect(lambda sdp, kind: room.accept("watch", sdp, kind))
    return client


async def test_a_spectator_hears_the_speaker_and_the_bot_and_is_never_heard(
    room: EmbeddedRoom, join: Join
) -> None:
    clients: list[RoomClient] = []
    try:
        speaker, player = await join(3), await join(5, sing=False)
        spectator = await listen(room, clients)
        await room.set_speakers(frozenset({3}))
        await until(lambda: hears(spectator, pitch(3)) and hears(spectator, BOT_HZ))
        assert not hears(spectator, pitch(5))
        (listener,) = [seat for seat in room.peers() if str(seat).startswith("watch:")]
        assert room.listeners() == 1 and room.present == {3, 5}  # a spectator is no seat
        await room.release_all()  # after the game every microphone is open: not his
        await asyncio.sleep(0.5)
        stats = room.stats()[listener]
        assert stats.frames_received == 0 and stats.frames_forwarded == 0
        await until(lambda: hears(speaker, BOT_HZ) and hears(player, pitch(3)))
    finally:
        for client in clients:
            await client.close()


async def test_a_spectators_offer_that_sends_is_refused_and_changes_nothing(
    room: EmbeddedRoom, join: Join
) -> None:
    await join(2)
    before = set(room.peers())
    singer = RoomClient(ToneTrack(pitch(9)))  # a sendrecv offer with a microphone track
    try:
        with pytest.raises(ValueError, match="receive-only"):
            await singer.connect(lambda sdp, kind: room.accept("watch", sdp, kind), timeout=2)
    finally:
        await singer.close()
    assert set(room.peers()) == before and room.listeners() == 0


async def test_the_spectators_connections_are_bounded() -> None:
    clients: list[RoomClient] = []
    with loopback_ice():
        room = EmbeddedRoom(seats=10, bot_audio=tone_frames(BOT_HZ), max_listeners=2)
        await room.start()
        try:
            first = await listen(room, clients)
            await listen(room, clients)
            with pytest.raises(RoomFull, match="2 spectators"):
                await listen(room, clients)
            assert room.listeners() == 2
            await first.close()
            await until(lambda: room.listeners() == 1)
            late = await listen(room, clients)  # a freed place is taken again
            await until(lambda: hears(late, BOT_HZ))
        finally:
            for client in clients:
                await client.close()
            await room.stop()


async def test_spectators_offering_at_once_are_bounded_too() -> None:
    """The outside check's offers sent together were all admitted past the cap: the count
    was read before aiortc's awaits, and each peer added after them."""
    clients = [RoomClient(listen_only=True) for _ in range(6)]
    with loopback_ice():
        room = EmbeddedRoom(seats=10, bot_audio=tone_frames(BOT_HZ), max_listeners=2)
        await room.start()
        try:
            answers = await asyncio.gather(
                *(c.connect(lambda sdp, kind: room.accept("watch", sdp, kind)) for c in clients),
                return_exceptions=True,
            )
            refused = [a for a in answers if isinstance(a, RoomFull)]
            assert len(refused) == 4 and room.listeners() == 2, answers
            await clients[answers.index(None)].close()  # a freed place is taken again
            await until(lambda: room.listeners() == 1)
            late = RoomClient(listen_only=True)
            clients.append(late)
            await late.connect(lambda sdp, kind: room.accept("watch", sdp, kind))
            assert room.listeners() == 2
        finally:
            for client in clients:
                await client.close()
            await room.stop()


def test_what_counts_as_an_offer_that_sends() -> None:
    head = "v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\n"
    audio = "m=audio 9 UDP/TLS/RTP/SAVPF 111\r\nc=IN IP4 0.0.0.0\r\n"
    video = "m=video 9 UDP/TLS/RTP/SAVPF 96\r\nc=IN IP4 0.0.0.0\r\n"
    assert not sending_media(head + audio + "a=recvonly\r\n")
    assert not sending_media(head + audio + "a=recvonly\r\n" + video + "a=inactive\r\n")
    assert sending_media(head + audio + "a=sendrecv\r\n")
    assert sending_media(head + audio + "a=recvonly\r\n" + video + "a=sendonly\r\n")
    assert sending_media(head + audio)  # no direction attribute: sendrecv
    assert not sending_media(head + "m=audio 0 UDP/TLS/RTP/SAVPF 111\r\n")  # rejected m-line
