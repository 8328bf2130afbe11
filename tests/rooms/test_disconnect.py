"""EmbeddedRoom.disconnect: a re-issued link's peer is closed at once (a seat's, or every
spectator's for the watch link), and an offer being answered across it is refused, so the
old token never keeps, nor gets, a connection to the table's audio."""

from __future__ import annotations

import asyncio

import pytest
from aiortc import RTCSessionDescription

from plugin.rooms.embedded import EmbeddedRoom
from plugin.rooms.embedded.client import RoomClient
from plugin.rooms.embedded.room import Disconnected

from .conftest import Join, until

pytestmark = pytest.mark.slow


async def test_a_disconnected_seat_leaves_the_room_and_its_presence(
    room: EmbeddedRoom, join: Join
) -> None:
    await join(3)
    await join(5)
    spectator = RoomClient(listen_only=True)
    try:
        await spectator.connect(lambda sdp, kind: room.accept("watch", sdp, kind))
        await until(lambda: room.present == {3, 5})
        left: list[tuple[int, bool]] = []

        async def presence(seat: int, joined: bool) -> None:
            left.append((seat, joined))

        room.on_presence(presence)
        room.disconnect(3)
        assert 3 not in room.peers() and room.present == {5} and room.listeners() == 1
        await until(lambda: left == [(3, False)])
        room.disconnect("watch")
        assert room.listeners() == 0 and set(room.peers()) == {5}
    finally:
        await spectator.close()


async def test_an_offer_answered_across_a_disconnect_is_refused(room: EmbeddedRoom) -> None:
    client = RoomClient()

    async def answer(sdp: str, kind: str) -> RTCSessionDescription:
        accepting = asyncio.ensure_future(room.accept(3, sdp, kind))
        await asyncio.sleep(0)  # it is inside aiortc's awaits now
        room.disconnect(3)  # the seat's link is re-issued meanwhile
        return await accepting

    try:
        with pytest.raises(Disconnected):
            await client.connect(answer, timeout=10)
    finally:
        await client.close()
    assert 3 not in room.peers() and room.present == frozenset()
