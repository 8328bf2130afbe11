"""The room's life: presence, reconnection, bad input, and a stop that leaves nothing behind."""

from __future__ import annotations

import asyncio

import pytest

from plugin.rooms.embedded import EmbeddedRoom, loopback_ice
from plugin.rooms.embedded.client import RoomClient, ToneTrack

from .conftest import Join, hears, pitch, until

pytestmark = pytest.mark.slow


async def test_presence_follows_connections(room: EmbeddedRoom):
    seen: list[tuple[int, bool]] = []

    async def record(seat: int, joined: bool) -> None:
        seen.append((seat, joined))

    room.on_presence(record)
    client = RoomClient()
    await client.connect(lambda sdp, kind: room.accept(4, sdp, kind))
    await until(lambda: seen == [(4, True)])
    assert room.present == {4}
    await client.close()
    await until(lambda: seen == [(4, True), (4, False)])
    assert room.present == frozenset()
    assert 4 not in room.stats()


async def test_a_reloaded_page_replaces_the_old_connection(room: EmbeddedRoom, join: Join):
    seen: list[tuple[int, bool]] = []

    async def record(seat: int, joined: bool) -> None:
        seen.append((seat, joined))

    room.on_presence(record)
    listener = await join(2, sing=False)
    await room.set_speakers(frozenset({6}))
    await join(6)
    first = room.stats()[6]
    await join(6)  # the same seat again: the first connection is closed
    await until(lambda: hears(listener, pitch(6)))
    assert room.stats()[6].frames_received < first.frames_received + 100
    assert [event for event in seen if event[0] == 6] == [(6, True)]


async def test_bad_offers_are_refused_and_change_nothing(room: EmbeddedRoom):
    client = RoomClient(ToneTrack(1000))
    await client.pc.setLocalDescription(await client.pc.createOffer())
    sdp = client.pc.localDescription.sdp
    for seat, kind, offer, match in [
        (0, "offer", sdp, "not at this table"),
        (11, "offer", sdp, "not at this table"),
        ("3", "offer", sdp, "a seat is a number"),
        (True, "offer", sdp, "a seat is a number"),
        (3, "answer", sdp, "expected an SDP offer"),
        (3, "offer", "hello", "not SDP"),
        (3, "offer", "v=0\r\nnonsense", "no audio|refused"),
    ]:
        with pytest.raises(ValueError, match=match):
            await room.accept(seat, offer, kind)
    assert list(room.peers()) == []
    await client.close()


async def test_bad_speakers_are_refused_and_change_nothing(room: EmbeddedRoom):
    await room.set_speakers(frozenset({1, 2}))
    for seats in ({0}, {13}, {"host"}, {1.5}):
        with pytest.raises(ValueError):
            await room.set_speakers(frozenset(seats))  # type: ignore[arg-type]
    assert room.speakers == {1, 2}


async def test_accept_needs_a_running_room():
    room = EmbeddedRoom(seats=10)
    with pytest.raises(RuntimeError, match="not running"):
        await room.accept(1, "v=0\r\n", "offer")


async def test_stop_leaves_no_tasks():
    before = asyncio.all_tasks()
    with loopback_ice():
        room = EmbeddedRoom(seats=10)
        await room.start()
        clients = [RoomClient(ToneTrack(pitch(seat))) for seat in (1, 2)]
        for seat, client in zip((1, 2), clients, strict=True):
            await client.connect(lambda sdp, kind, seat=seat: room.accept(seat, sdp, kind))
        await room.set_speakers(frozenset({1}))
        await until(lambda: room.stats()[1].frames_forwarded > 5)
        await room.stop()
        for client in clients:
            await client.close()
    await asyncio.sleep(0)
    assert asyncio.all_tasks() == before
    with pytest.raises(RuntimeError, match="not running"):
        await room.accept(1, "v=0\r\n", "offer")
