"""The server-side microphone gate: only the seats the engine allows are heard."""

from __future__ import annotations

import asyncio
import time

import pytest

from plugin.rooms.embedded import EmbeddedRoom
from testing import steady

from .conftest import BOT_HZ, SILENT, Join, frames_later, hears, pitch, until

pytestmark = pytest.mark.slow


async def test_speaker_is_heard_during_his_turn_and_not_after(room: EmbeddedRoom, join: Join):
    speaker, next_speaker, listener = await join(3), await join(5), await join(7)
    await room.set_speakers(frozenset({3}))
    await until(lambda: hears(listener, pitch(3)) and hears(next_speaker, pitch(3)))
    assert room.stats()[3].frames_forwarded > 0
    assert not hears(listener, pitch(5)), "seat 5 sings but is not allowed"
    assert not hears(listener, pitch(7))

    await room.set_speakers(frozenset({5}))
    # The gate applies at the next mixer tick: from here on seat 3 is never mixed again.
    forwarded = room.stats()[3].frames_forwarded
    await until(lambda: hears(listener, pitch(5)))
    switched = await frames_later(listener)  # all that arrives now was mixed after the change
    await asyncio.sleep(0.5)
    assert listener.level(pitch(3), since=switched) < SILENT
    assert speaker.level(pitch(3), since=switched) < SILENT
    await until(lambda: hears(speaker, pitch(5)))
    stats = room.stats()
    assert stats[3].frames_forwarded == forwarded
    assert stats[3].frames_received > forwarded, "seat 3 kept sending; the server dropped it"
    assert stats[5].frames_forwarded > 0


async def test_a_gated_microphone_is_not_even_decoded(room: EmbeddedRoom, join: Join):
    await join(3)
    await room.set_speakers(frozenset())
    await until(lambda: room.stats()[3].frames_received > 10)
    await asyncio.sleep(0.2)  # frames decoded before the gate closed have been read
    before = room.stats()[3]
    await until(lambda: room.stats()[3].frames_received > before.frames_received + 10)
    assert room.stats()[3].frames_decoded == before.frames_decoded
    await room.set_speakers(frozenset({3}))
    await until(lambda: room.stats()[3].frames_decoded > before.frames_decoded + 10)


async def test_a_speaker_does_not_hear_himself(room: EmbeddedRoom, join: Join):
    speaker, listener = await join(4), await join(6)
    await room.set_speakers(frozenset({4}))
    await until(lambda: hears(listener, pitch(4)))
    await asyncio.sleep(0.3)
    assert speaker.level(pitch(4), since=time.monotonic() - 0.3) < SILENT
    await until(lambda: hears(speaker, BOT_HZ))


async def test_the_bot_is_heard_by_everyone(room: EmbeddedRoom, join: Join):
    clients = [await join(seat) for seat in (1, 2, 9)] + [await join("host")]
    await until(lambda: all(hears(client, BOT_HZ) for client in clients))
    assert room.stats()["bot"].frames_forwarded > 0


async def test_the_live_host_is_always_heard(room: EmbeddedRoom, join: Join):
    await join("host")
    listener = await join(2, sing=False)
    await room.set_speakers(frozenset())
    await until(lambda: hears(listener, pitch("host")))


async def test_a_page_that_stops_sending_changes_nothing(room: EmbeddedRoom, join: Join):
    quitter, listener = await join(3), await join(5, sing=False)
    await room.set_speakers(frozenset({3}))
    await until(lambda: hears(listener, pitch(3)))
    quitter.set_sending(False)
    # Nothing more arrives from seat 3 (once what was in flight has landed).
    await steady(lambda: room.stats()[3].frames_received, "seat 3 after it stopped sending")
    await until(lambda: hears(listener, BOT_HZ))  # the table plays on
    quitter.set_sending(True)
    await until(lambda: hears(listener, pitch(3)))


async def test_release_all_gives_every_microphone_back(room: EmbeddedRoom, join: Join):
    a, b = await join(2), await join(8)
    await room.set_speakers(frozenset())
    await room.release_all()
    await until(lambda: hears(a, pitch(8)) and hears(b, pitch(2)))
    await room.set_speakers(frozenset({2}))  # a new game closes them again
    await until(lambda: not hears(a, pitch(8), window=0.2))
    await until(lambda: hears(b, pitch(2)))
