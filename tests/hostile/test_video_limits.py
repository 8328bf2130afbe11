"""The video relay's limits against a real `autohost serve` (the outside check, 2026-12):
60 back-to-back connects of one seat were all welcomed, one seat relayed ~41,000 signals of
20 KB in 3 s to another, and the page it flooded was the one dropped (4409). Now connects
are limited per seat as on /ws, a flood is read at the relay's pace, and a signal to a page
that has too many unread ones is refused to its sender, never the page dropped. Every loop
is bounded in count and in time.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import ClientConnection
from websockets.asyncio.client import connect as connect_async
from websockets.sync.client import connect

from plugin.rules.state import Phase
from plugin.web.close_codes import CloseCode
from plugin.web.limits import CONNECTS_PER_SECOND, REFUSED_CONNECT_SECONDS
from plugin.web.video import (
    MAX_QUEUED,
    SIGNAL_BACKLOG,
    VIDEO_MESSAGE_BURST,
    VIDEO_MESSAGES_PER_SECOND,
    Relay,
    SignalError,
)
from testing import ServerProcess

pytestmark = pytest.mark.slow
FLOOD_SECONDS = 3.0
# A 20 KB offer, as the outside check sent: valid, and as large as a signal may be.
FLOOD = json.dumps({"type": "signal", "to": 2, "gen": 1,
                   "description": {"type": "offer", "sdp": "v=0\r\n" + "a" * 20_000}})  # fmt: skip


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    db = tmp_path_factory.mktemp("video") / "autohost.db"
    with ServerProcess(db, options=["--no-voice"]) as running:
        yield running


def new_table(server: ServerProcess) -> dict[str, Any]:
    answer = httpx.post(
        f"{server.base}/api/tables", json={"seats": 10},
        headers={"Authorization": f"Bearer {server.admin_key}"}, timeout=30,
    )  # fmt: skip
    assert answer.status_code == 201, answer.text
    links: dict[str, Any] = answer.json()
    return links


def first_message(server: ServerProcess, token: str) -> tuple[dict[str, Any], int | None]:
    """One /video connect: its first message, and its close code if the server closed it."""
    with connect(f"ws://127.0.0.1:{server.port}/video", open_timeout=30) as ws:
        ws.send(json.dumps({"type": "hello", "token": token}))
        first: dict[str, Any] = json.loads(ws.recv(timeout=30))
        if first["type"] == "error":
            with pytest.raises(Exception):  # noqa: B017  # the server closes it after
                ws.recv(timeout=30)
            return first, ws.close_code
    return first, None


def test_a_seat_that_connects_to_video_in_a_loop_is_refused(server: ServerProcess) -> None:
    links = new_table(server)
    token = links["seats"][2]["token"]
    refused, welcomed = [], 0
    started = time.monotonic()
    for _ in range(16):  # bounded: the outside check's 60 connects were all welcomed
        first, code = first_message(server, token)
        if first["type"] == "error":
            refused.append((first["error"], code))
        else:
            welcomed += 1
    took = time.monotonic() - started
    assert refused and set(refused) == {("too_many_connects", CloseCode.TOO_MANY)}, refused
    # The burst of 10 and the bucket's refill meanwhile; each refusal a second late.
    assert welcomed <= 10 + CONNECTS_PER_SECOND * took + 1, (welcomed, took)
    assert took >= 0.9 * REFUSED_CONNECT_SECONDS * len(refused), (took, len(refused))
    assert first_message(server, links["seats"][3]["token"])[0]["type"] == "welcome"


async def video(server: ServerProcess, token: str, **options: Any) -> ClientConnection:
    ws = await connect_async(f"ws://127.0.0.1:{server.port}/video", max_size=None, **options)
    await ws.send(json.dumps({"type": "hello", "token": token}))
    assert json.loads(await asyncio.wait_for(ws.recv(), 30))["type"] == "welcome"
    return ws


async def flood(flooder: ClientConnection) -> None:
    """Send FLOOD for FLOOD_SECONDS, as fast as the socket takes it."""
    with_deadline = asyncio.timeout(FLOOD_SECONDS)
    try:
        async with with_deadline:
            while True:
                await flooder.send(FLOOD)
    except TimeoutError:
        pass


async def signals_of(ws: ClientConnection, quiet: float = 2.0) -> int:
    """The signals `ws` receives until the relay is quiet for `quiet` seconds; the socket
    must stay open."""
    count = 0
    with pytest.raises(TimeoutError):
        while True:
            message = json.loads(await asyncio.wait_for(ws.recv(), quiet))
            count += message["type"] == "signal"
    assert ws.close_code is None, (ws.close_code, ws.close_reason)
    return count


async def test_a_signal_flood_is_read_at_the_relays_pace(server: ServerProcess) -> None:
    links = new_table(server)
    victim = await video(server, links["seats"][1]["token"])
    flooder = await video(server, links["seats"][0]["token"])
    try:
        reader = asyncio.ensure_future(signals_of(victim))
        started = time.monotonic()
        await flood(flooder)
        relayed = await reader
        took = time.monotonic() - started
        # Everything the relay read from the flooder in `took` seconds, at most.
        assert 0 < relayed <= VIDEO_MESSAGE_BURST + VIDEO_MESSAGES_PER_SECOND * took, relayed
    finally:
        await flooder.close()
        await victim.close()


async def test_a_flood_to_a_page_that_does_not_read_never_drops_that_page(
    server: ServerProcess,
) -> None:
    links = new_table(server)
    victim = await video(server, links["seats"][1]["token"], max_queue=1)  # reads nothing
    flooder = await video(server, links["seats"][0]["token"])
    try:
        await flood(flooder)
        assert await signals_of(victim) > 0  # it reads now: every signal still comes, open
    finally:
        await flooder.close()
        await victim.close()


def test_a_signal_to_a_page_with_a_full_backlog_is_refused_to_its_sender() -> None:
    relay = Relay(lambda table: (Phase.LOBBY, frozenset()))
    victim, flooder = relay.join("t", 2), relay.join("t", 1)
    signal = json.dumps({"type": "signal", "to": 2, "gen": 1, "candidate": {"candidate": "c"}})
    while victim.outbox.qsize() < SIGNAL_BACKLOG:
        relay.relay(flooder, signal)
    with pytest.raises(SignalError, match="not read") as refusal:
        relay.relay(flooder, signal)
    assert refusal.value.code == "peer_busy"
    assert not victim.dropped and victim.outbox.qsize() == SIGNAL_BACKLOG
    relay.join("t", 3)  # the relay's own news still reaches it, up to MAX_QUEUED
    assert not victim.dropped and victim.outbox.qsize() == SIGNAL_BACKLOG + 1 < MAX_QUEUED
