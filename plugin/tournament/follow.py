"""A player's tournament page follows him (issue 34): its socket, `/club/tournaments/ws`,
opens with his tournament link's token (plugin.tournament.links) and is sent, as soon as
he has a seat at a started round's table, the `moved` message the next game sends
(plugin.web.messages.encode_moved: that table and his seat's token there), then closed;
the page goes to his seat (plugin/club/static/tournament.js, as the widget's moveTo).
Until then it is told who he is and that he waits.

A start made here rings the site's bell (every waiting socket looks at once); one made by
another server of the club's log is seen within POLL_SECONDS. The pages still open at a
player's previous table (its game over) are moved to his new seat too, over their own
sockets, as the next game moves them (`move_on`).

    POST /api/club/tournaments/{id}/links          {players?}: new links (the old stop) admin
    POST /api/club/tournaments/{id}/links/revoke   {player}                              admin
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
from typing import TYPE_CHECKING, Any

import msgspec
from starlette.requests import Request
from starlette.routing import BaseRoute, Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from plugin.club import ClubError
from plugin.club.api import body_of, guarded, require
from plugin.host.ports import LogUnavailable
from plugin.host.registry import Registry
from plugin.signing import TokenError
from plugin.web import messages, wire
from plugin.web.close_codes import CloseCode
from plugin.web.context import Server

from . import links
from .round_tables import RoundTable
from .state import Tournament

if TYPE_CHECKING:
    from .api import TournamentSite

POLL_SECONDS = 2.0  # how soon a waiting page sees a round another server started


class Bell:
    """Wakes every waiting page at once (a round started, a seat changed here)."""

    def __init__(self) -> None:
        self._event = asyncio.Event()

    def ring(self) -> None:
        self._event.set()
        self._event = asyncio.Event()

    async def wait(self, seconds: float) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._event.wait(), seconds)


def game_over(registry: Registry, table_id: str) -> bool:
    """Whether a table's game is over (or the table archived): no seat to go to there."""
    table = registry.tables.get(table_id)
    if table is not None:
        return bool(table.state.over)
    return registry.log.is_archived(table_id)


def no_seat_there(registry: Registry, table_id: str) -> bool:
    """Whether a page may not go to its seat at this table: its game is over, or the
    table is not made yet (a start cut short: plugin.tournament.rounds)."""
    if table_id not in registry.tables and registry.log.table_settings(table_id) is None:
        return True
    return game_over(registry, table_id)


def moved(server: Server, table: RoundTable, seat: int) -> bytes:
    """The `moved` message to `seat` at `table`, with that seat's token in its current link
    generation (a seat re-issued there since is not minted in an old one)."""
    generation = server.link_state(table.id).generations.get(seat, 0)
    token = server.signer.issue(table.id, seat, generation=generation)
    return messages.encode_moved(table.id, token)


def move_on(server: Server, tournament: Tournament, tables: list[RoundTable]) -> None:
    """The pages still open at the players' previous tables (their games over) go to their
    seats at these new tables, over their own sockets (as the next game moves them)."""
    registry = server.registry
    if registry is None:
        return
    order = list(tournament.tables)
    for table in tables:
        if no_seat_there(registry, table.id):  # not made (a start cut short): nowhere to go
            continue
        before = order[: order.index(table.id)]
        for seat, player in enumerate(table.seats, 1):
            for old_id in reversed(before):
                old = tournament.tables[old_id]
                if player in old.seats:
                    if game_over(registry, old_id):
                        message = moved(server, table, seat)
                        server.hub.move_viewer(old_id, old.seats.index(player) + 1, message)
                    break


def follow_routes(here: TournamentSite) -> list[BaseRoute]:
    site = here.site

    def server_of() -> Server:
        server = site.server
        assert server is not None
        return server

    async def issue(request: Request) -> Any:
        caller = require(site, request, "admin")
        tid, body = request.path_params["id"], await body_of(request)
        tournaments = here.tournaments
        club = tournaments.club.state
        ask = links.issue_question(tid, body.get("players"), club)
        record = await tournaments.commit(ask, source=caller.source)
        tournament = tournaments.state.get(tid)
        players = list(record["generations"])
        again = [p for p, generation in record["generations"].items() if generation > 0]
        await _revoke_seats(here, tournament, again)
        server = server_of()
        return {"links": links.links_answer(server.signer, server.config.base_url, tournament,
                                            club, players)}  # fmt: skip

    async def revoke(request: Request) -> Any:
        caller = require(site, request, "admin")
        tid, body = request.path_params["id"], await body_of(request)
        tournaments = here.tournaments
        ask = links.revoke_question(tid, body.get("player"), tournaments.club.state)
        record = await tournaments.commit(ask, source=caller.source)
        await _revoke_seats(here, tournaments.state.get(tid), [record["player"]])
        return {"revoked": record["player"]}

    async def socket(websocket: WebSocket) -> None:
        await websocket.accept()
        server = server_of()
        try:
            token, _ = await wire.opening_token(websocket, server.config.hello_seconds)
        except wire.Refused as refusal:
            await _refuse(websocket, refusal.code, refusal.message)
            return
        gone = asyncio.ensure_future(_until_gone(websocket))
        try:
            await _follow(here, server, websocket, token, gone)
        finally:
            gone.cancel()

    return [
        Route("/api/club/tournaments/{id}/links", guarded(issue), methods=["POST"]),
        Route("/api/club/tournaments/{id}/links/revoke", guarded(revoke), methods=["POST"]),
        WebSocketRoute("/club/tournaments/ws", socket),
    ]


async def _follow(
    here: TournamentSite, server: Server, websocket: WebSocket, token: str,
    gone: asyncio.Future[None],
) -> None:  # fmt: skip
    told: dict[str, Any] | None = None
    while not gone.done():
        registry = server.registry
        now: dict[str, Any] | None = None
        going: bytes | None = None
        try:
            if registry is None:
                raise LogUnavailable("the server is starting or stopping")
            tournaments = here.tournaments
            tournament, player = links.admit(server.signer, tournaments.state, token)
            found = links.seat_of(tournament, player, functools.partial(no_seat_there, registry))
            if found is not None:
                going = moved(server, *found)
            else:
                now = {"type": "tournament", "tournament": tournament.id, "name": tournament.name,
                       "player": player, "nick": tournaments.club.state.nick_of(player),
                       "waiting": True}  # fmt: skip
        except TokenError as refusal:
            await _refuse(websocket, refusal.code, refusal.message)
            return
        except (LogUnavailable, ClubError):  # the database away, the server starting: the
            pass  # page waits and asks again
        if going is not None:
            with contextlib.suppress(WebSocketDisconnect, RuntimeError, OSError):
                await websocket.send_text(going.decode())
                await websocket.close(code=CloseCode.ENDED, reason="table_moved_on")
            return
        if now is not None and now != told:
            told = now
            with contextlib.suppress(WebSocketDisconnect, RuntimeError, OSError):
                await websocket.send_text(msgspec.json.encode(now).decode())
        waiting = asyncio.ensure_future(here.bell.wait(POLL_SECONDS))
        await asyncio.wait([waiting, gone], return_when=asyncio.FIRST_COMPLETED)
        waiting.cancel()


async def _until_gone(websocket: WebSocket) -> None:
    """Returns once the page left (whatever it sends meanwhile is not read)."""
    with contextlib.suppress(WebSocketDisconnect, RuntimeError):
        while await wire.receive(websocket) is not None:
            pass


async def _refuse(websocket: WebSocket, code: str, message: str) -> None:
    await wire.refuse(websocket, messages.encode_error(code, message), code, CloseCode.UNAUTHORIZED)


async def _revoke_seats(here: TournamentSite, tournament: Tournament, players: list[str]) -> None:
    """A re-issued or revoked tournament link takes its power over his current seat with
    it: that seat's link is re-issued at his table (hosted here), so a token the old link
    minted stops there too; his new link's page is given the new one."""
    server = here.site.server
    registry = server.registry if server is not None else None
    if server is None or registry is None:
        return
    for player in players:
        found = links.seat_of(tournament, player, functools.partial(game_over, registry))
        table = await registry.get(found[0].id) if found is not None else None
        if found is None or table is None:
            continue
        seat = found[1]
        await table.reissue([seat])
        server.hub.close_viewer(table.id, seat, "token_reissued", "this link was replaced")
    here.bell.ring()
