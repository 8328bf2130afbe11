"""A re-issued link leaves no connection of its old token open, on any endpoint (the outside
check found the host's old console on /lobby still seating players, and a seat's old /video
socket still relaying): the console, a seat's video page, the spectators' video pages and
the embedded room's audio peers are each ended at the re-issue, a socket with
`token_reissued` and close 4410 as /ws is, and the old token is refused when it comes back.

The app is the full embedded server (room, /rtc, /video, /lobby) served on loopback in this
event loop, so the test can see the room's peers; every wait is bounded.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from plugin.eventlog import log_opener
from plugin.host.settings import TableSettings
from plugin.rooms.embedded import EmbeddedRoom, loopback_ice
from plugin.rooms.embedded.client import RoomClient, http_answerer
from plugin.server.embedded import EmbeddedTables
from plugin.web.app import ServerConfig, create_app
from plugin.web.close_codes import CloseCode
from plugin.web.video import video_routes
from testing import eventually, serve

pytestmark = pytest.mark.slow
ADMIN = "reissue-admin-key-0123456789"
SECRET = b"reissue-secret-0123456789abcdef0"
SECONDS = 10.0  # any one wait, at most


@dataclass(frozen=True, slots=True)
class Site:
    url: str
    table: str
    links: dict[str, Any]
    room: EmbeddedRoom

    def token(self, who: int | str) -> str:
        if isinstance(who, int):
            return str(self.links["seats"][who - 1]["token"])
        return str(self.links[who]["token"])

    def socket(self, path: str) -> str:
        return self.url.replace("http://", "ws://", 1) + path

    async def reissue(self, seat: int | str) -> dict[str, Any]:
        """The table's links after re-issuing `seat`'s."""
        async with httpx.AsyncClient(timeout=SECONDS) as http:
            answer = await http.post(
                f"{self.url}/api/tables/{self.table}/reissue", json={"seat": seat},
                headers={"Authorization": f"Bearer {ADMIN}"},
            )  # fmt: skip
        assert answer.status_code == 200, answer.text
        links: dict[str, Any] = answer.json()
        return links


@pytest.fixture
async def site(tmp_path: Path) -> AsyncIterator[Site]:
    tables = EmbeddedTables(voice=False)
    config = ServerConfig(
        db_path=tmp_path / "autohost.db", log=log_opener(tmp_path / "autohost.db"),
        admin_key=ADMIN, secret=SECRET,
        room_factory=tables.room, voice_factory=tables.voice,
        routes=(tables.routes, video_routes),
    )  # fmt: skip
    app = create_app(config)
    with loopback_ice():
        async with serve(app) as url:
            table = await app.state.server.registry.create(TableSettings(language="en", seats=10))
            links = app.state.server.links(table)
            yield Site(url=url, table=table.id, links=links, room=tables.rooms[table.id])


async def hello(site: Site, path: str, token: str, **fields: Any) -> ClientConnection:
    ws = await connect(site.socket(path), open_timeout=SECONDS)
    await ws.send(json.dumps({"type": "hello", "token": token, **fields}))
    return ws


async def receive(ws: ClientConnection) -> dict[str, Any]:
    message: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), SECONDS))
    return message


async def until_closed(ws: ClientConnection) -> tuple[list[dict[str, Any]], int | None]:
    """Everything the server still sends, and the close code it ends the socket with (a
    socket it leaves open fails the test after SECONDS)."""
    received: list[dict[str, Any]] = []
    async with asyncio.timeout(SECONDS):
        try:
            while True:
                received.append(json.loads(await ws.recv()))
        except ConnectionClosed:
            pass
    return received, ws.close_code


async def refused(site: Site, path: str, token: str, **fields: Any) -> tuple[str, int | None]:
    """A new connection with `token`: the error it gets and its close code."""
    ws = await hello(site, path, token, **fields)
    received, code = await until_closed(ws)
    assert received and received[0]["type"] == "error", received
    return received[0]["error"], code


async def test_a_host_reissue_ends_the_old_consoles_lobby_socket(site: Site) -> None:
    old_host = site.token("host")
    console = await hello(site, "/lobby", old_host, table=site.table)
    player = await hello(site, "/lobby", site.token("invite"), device="d" * 20)
    try:
        assert (await receive(console))["type"] == "lobby"
        assert (await receive(player))["me"] == {"state": "new"}
        await player.send(json.dumps({"type": "join", "name": "Victim"}))
        while not (await receive(console)).get("entries"):
            pass
        links = await site.reissue("host")
        received, code = await until_closed(console)
        assert [m["error"] for m in received if m["type"] == "error"] == ["token_reissued"]
        assert code == CloseCode.ENDED
        assert await refused(site, "/lobby", old_host, table=site.table) == (
            "token_reissued", CloseCode.UNAUTHORIZED,
        )  # fmt: skip
        await console.close()
        # The new host link's console opens, and the player still waits: nobody seated him.
        console = await hello(site, "/lobby", links["host"]["token"], table=site.table)
        view = await receive(console)
        assert [e["name"] for e in view["entries"]] == ["Victim"] and view["seated"] == []
    finally:
        await console.close()
        await player.close()


async def test_a_seat_reissue_ends_its_video_page_and_tells_the_others(site: Site) -> None:
    old = site.token(1)
    first, second = await hello(site, "/video", old), await hello(site, "/video", site.token(2))
    try:
        assert (await receive(first))["type"] == "welcome"
        assert (await receive(second))["type"] == "welcome"
        await site.reissue(1)
        received, code = await until_closed(first)
        assert [m["error"] for m in received if m["type"] == "error"] == ["token_reissued"]
        assert code == CloseCode.ENDED
        assert (await receive(second))["type"] == "leave"  # seat 1 is gone from its mesh
        assert await refused(site, "/video", old) == ("token_reissued", CloseCode.UNAUTHORIZED)
    finally:
        await first.close()
        await second.close()


async def test_a_watch_reissue_ends_every_spectators_video_page(site: Site) -> None:
    watch = site.token("watch")
    spectators = [await hello(site, "/video", watch) for _ in range(2)]
    player = await hello(site, "/video", site.token(4))
    try:
        for ws in (*spectators, player):
            assert (await receive(ws))["type"] == "welcome"
        await site.reissue("watch")
        for ws in spectators:
            received, code = await until_closed(ws)
            assert [m["error"] for m in received if m["type"] == "error"] == ["token_reissued"]
            assert code == CloseCode.ENDED
        assert [(await receive(player))["type"] for _ in spectators] == ["leave", "leave"]
        assert await refused(site, "/video", watch) == ("token_reissued", CloseCode.UNAUTHORIZED)
    finally:
        for ws in (*spectators, player):
            await ws.close()


async def test_a_reissue_closes_the_seats_and_the_spectators_audio_peers(site: Site) -> None:
    offer_url = f"{site.url}/rtc/{site.table}/offer"
    seat, watch = site.token(3), site.token("watch")
    player, other = RoomClient(), RoomClient()
    spectator = RoomClient(listen_only=True)
    try:
        await player.connect(http_answerer(offer_url, seat))
        await other.connect(http_answerer(offer_url, site.token(5)))
        await spectator.connect(http_answerer(offer_url, watch))
        await eventually(lambda: site.room.present == {3, 5}, "both seats connected")
        await site.reissue(3)
        assert 3 not in site.room.peers() and site.room.present == {5}
        assert site.room.listeners() == 1
        await site.reissue("watch")
        assert site.room.listeners() == 0 and set(site.room.peers()) == {5}
        for token in (seat, watch):  # the old tokens' next offers are refused
            again = RoomClient(listen_only=token == watch)
            try:
                with pytest.raises(httpx.HTTPStatusError) as refusal:
                    await again.connect(http_answerer(offer_url, token), timeout=SECONDS)
                assert refusal.value.response.status_code == 403
            finally:
                await again.close()
    finally:
        for client in (player, other, spectator):
            await client.close()
