"""The LiveKit widget's end of the game in real Chromium with livekit-client and the real
LiveKit server (issue 17): once the server's state is over, the widget shows the result,
every role and the timeline in the table's language, with protocol links fetched with
the seat's token in a header; a `moved` message (the host's next game) reconnects it to
its seat at the new table with the new token, over its socket."""

from __future__ import annotations

import json

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from plugin.host.ending import end_view
from plugin.host.settings import TableSettings
from plugin.rooms.livekit.static import client_installed, static_routes
from plugin.rooms.livekit.tokens import Credentials, token_route
from plugin.rules.events import to_record
from plugin.sim.simulate import play
from plugin.web.pages import catalogue
from testing import eventually, serve
from testing.browser import wait_for
from testing.livekit_server import API_KEY, API_SECRET

pytestmark = [
    pytest.mark.slow,
    pytest.mark.e2e,
    pytest.mark.livekit,
    pytest.mark.skipif(
        not client_installed(), reason="livekit-client missing: npm install in plugin/web/npm"
    ),
]

ROOM = "end-room"


def over_state() -> dict[str, object]:
    """A finished game's state as our server sends it, its `end` from a simulated game."""
    game = play("online", 5, keep_log=True)
    assert game.log is not None
    end = end_view(TableSettings(seats=10, seed=5), [to_record(e) for e in game.log])
    return {"type": "state", "v": 1, "phase": "over", "over": True, "speakers": [],
            "clock": None, "version": len(game.log), "end": end,
            "table": {"id": "t1", "language": "uk", "seats": 10}}  # fmt: skip


def fake_server(creds: Credentials, hellos: list[dict[str, str]], state: dict) -> Starlette:
    """Our server's stand-in: the finished table t1 (its state, then the next game at t2)
    and t2's lobby; the protocol for seat 1's token only, in a header."""

    async def ws(websocket: WebSocket) -> None:
        await websocket.accept()
        try:
            hello = json.loads(await websocket.receive_text())
            hellos.append(hello)
            lobby = {
                **state,
                "phase": "lobby",
                "end": None,
                "table": {"id": "t2", "language": "uk"},
            }
            await websocket.send_text(json.dumps(state if hello["token"] == "seat-1" else lobby))
            while True:
                message = json.loads(await websocket.receive_text())
                if message.get("type") == "next_test":  # the test's cue: the host clicked
                    moved = {"type": "moved", "v": 1, "table": "t2", "token": "seat-1-next"}
                    await websocket.send_text(json.dumps(moved))
        except WebSocketDisconnect:
            pass

    async def protocol(request: Request) -> Response:
        if request.headers.get("authorization") != "Bearer seat-1":
            return JSONResponse({"error": "no_token"}, status_code=401)
        if request.path_params["name"] == "protocol.html":
            return HTMLResponse("<html><body>sheet of t1</body></html>")
        return JSONResponse({"table": "t1"})

    def link_for(link: str) -> tuple[str, int, int] | None:
        return ("t1", 1, 0) if link.startswith("seat-1") else None  # seat 1, generation 0

    routes = [
        WebSocketRoute("/ws", ws),
        Route("/t/t1/{name}", protocol),
        token_route(creds, link_for, lambda t: ROOM),
    ]
    return Starlette(routes=[*routes, *static_routes()])


async def test_the_livekit_widget_shows_the_end_and_follows_the_next_game(
    browser, livekit_server
) -> None:
    creds = Credentials(url=livekit_server.ws_url, api_key=API_KEY, api_secret=API_SECRET)
    hellos: list[dict[str, str]] = []
    state = over_state()
    texts = catalogue("uk")
    async with serve(fake_server(creds, hellos, state)) as base:
        context = await browser.new_context()
        try:
            page = await context.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda error: errors.append(str(error)))
            await page.goto(f"{base}/static/livekit/demo.html?link=seat-1&server={base}")
            await page.wait_for_selector("#status[data-ready], #status[data-error]", timeout=90_000)
            assert await page.get_attribute("#status", "data-error") is None
            end = page.locator(".autohost-overlay .end-screen")
            await end.wait_for(state="visible", timeout=60_000)
            winner = state["end"]["result"]["winner"]  # type: ignore[index]
            assert await end.locator(".end-winner").text_content() == texts[f"winner.{winner}"]
            roles = await end.locator(".end-seat .end-role").all_text_contents()
            seats = state["end"]["seats"]  # type: ignore[index]
            assert roles == [texts[f"role.{s['role']}"] for s in seats]
            items = await end.locator(".end-item").count()
            assert items == max(1, len(state["end"]["timeline"]))  # type: ignore[index]
            await wait_for(
                page,
                "() => [...document.querySelectorAll('.end-screen a.end-protocol')]"
                ".every((a) => a.href.startsWith('blob:'))",
            )
            href = await end.locator("a.end-protocol-html").get_attribute("href")
            sheet = await page.evaluate("async (h) => (await fetch(h)).text()", href)
            assert "sheet of t1" in sheet

            await page.evaluate("autohost.widget.send('next_test')")

            async def moved() -> bool:
                return [h["token"] for h in hellos] == ["seat-1", "seat-1-next"]

            await eventually(moved, "the widget reconnects with the new seat's token", seconds=30)
            assert hellos[1].get("table") == "t2"
            await end.wait_for(state="hidden", timeout=30_000)  # the new table's lobby
            assert errors == []
        finally:
            await context.close()
