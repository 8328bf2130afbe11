"""A failover in the middle of a speech with the embedded room (issue 32): the server that
hosts the table is SIGKILLed under the speaker's and a listener's pages in Chromium. Their
sockets move to the other server (the club's peers, GET /api/servers), their audio follows
them there (a peer's origin may fetch /rtc and /api/ice: CORS for the peers only), and the
speech's timer waits on the heir until the speaker's audio is up in its room: he loses no
time to the failover."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from playwright.async_api import Browser

from plugin.host.audio_wait import HOLD_SECONDS
from testing import ServerProcess, free_port
from testing.media_pages import (
    console,
    create_speech_table,
    open_speech_pages,
    speech_of,
    wait_audio_back,
)
from testing.postgres import PostgresServer

from .conftest import TAKEOVER_SECONDS, host_of

pytestmark = [pytest.mark.slow, pytest.mark.e2e]


@pytest.fixture
def pair(postgres: PostgresServer) -> Iterator[list[ServerProcess]]:
    """Two servers on one database, each the other's peer."""
    dsn = postgres.new_database()
    ports = free_port(), free_port()
    made = [
        ServerProcess(dsn, port=port, options=["--room", "embedded", "--no-voice",
                                               "--peers", f"http://127.0.0.1:{peer}"])
        for port, peer in (ports, ports[::-1])
    ]  # fmt: skip
    try:
        for server in made:
            server.start()
        yield made
    finally:
        for server in made:
            if server.alive():
                server.kill()


def left(state: dict[str, Any] | None, read_at: float) -> float:
    assert state is not None
    clock = state["clock"]
    elapsed = time.monotonic() - read_at if clock["running"] else 0.0
    return float(clock["remaining"]) - elapsed


def test_a_peer_origin_may_fetch_the_audio_offer_and_nobody_else(
    pair: list[ServerProcess],
) -> None:
    """The preflight of a page on the peer's origin is answered; any other origin's is not."""
    target, peer = pair
    ask = {"Access-Control-Request-Method": "POST",
           "Access-Control-Request-Headers": "authorization, content-type"}  # fmt: skip
    url = f"{target.base}/rtc/any/offer"
    allowed = httpx.options(url, headers={"Origin": peer.base, **ask}, timeout=10)
    assert allowed.status_code == 200
    assert allowed.headers["access-control-allow-origin"] == peer.base
    assert "authorization" in allowed.headers["access-control-allow-headers"].lower()
    refused = httpx.options(url, headers={"Origin": "http://evil.example", **ask}, timeout=10)
    assert "access-control-allow-origin" not in refused.headers


async def test_a_failover_mid_speech_costs_the_speaker_no_time(
    pair: list[ServerProcess], browser: Browser
) -> None:
    links = await create_speech_table(pair[0])
    owner = await asyncio.to_thread(host_of, links["id"], pair)
    (heir,) = [s for s in pair if s is not owner]
    speaker = await speech_of(links, lambda token: console(owner, token))
    pages = await open_speech_pages(browser, links, speaker, mark="owner")
    host = await asyncio.to_thread(console, owner, links["host"]["token"])  # a fresh state
    before = left(host.state, host.state_at)
    host.close()
    owner.kill()  # SIGKILL: a crash; its last clock save is up to a second old
    assert await asyncio.to_thread(host_of, links["id"], [heir]) is heir
    # At once (the pages' sockets try every 500 ms at most, then gather ICE): the heir holds
    # the speech, with what the owner's last clock save had (up to a second more than left).
    host = await asyncio.to_thread(console, heir, links["host"]["token"])
    try:
        assert host.state["speaker"] == speaker and host.state["phase"] == "speech"
        clock = host.state["clock"]
        assert clock["held"] is True and clock["running"] is False, clock
        assert before - 0.5 <= clock["remaining"] <= before + 1.5, (before, clock)
        held = clock["remaining"]
        for page in pages.values():  # their audio is on the heir now
            await wait_audio_back(page, "owner", seconds=TAKEOVER_SECONDS + HOLD_SECONDS)
        state = await asyncio.to_thread(host.until, lambda m: not m["clock"].get("held"), 10)
        # It ran on from the moment the speaker's audio was up in the heir's room.
        assert state["clock"]["running"] is True
        assert state["clock"]["remaining"] >= held - 0.5, (held, state["clock"])
    finally:
        host.close()
