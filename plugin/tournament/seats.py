"""Late and absent players (issue 34): the judges see which seated players have not joined
their table (plugin.tournament.board) and either replace one, or start the table's game
without him.

- Replace (`tournament.replace`): a roster player or a guest takes the seat before the
  game starts. The table then names the seat after him, re-issues the seat's link (the
  absent player's token stops there), and its log names its new club player
  (`club.seat`, which the judge's sheet scores); his tournament page is moved to it.
- Start without him (`tournament.absent`): the game starts and the host removes the seat
  at once, as the engine's `PlayerLeft` (the host's "remove": a player who left the
  game). The rules say what that does: his role was dealt and is out of the game, the
  table plays on with the others (plugin/rules/removals.py); seed 000 line 31: a nominee
  who left before the vote cancels it (no nomination can name him now); mafiaratings
  8.17 (the preset's `best_move_void_after_day1_leavers`): players who left on day 1
  can void the best move; the engine refuses a removal in the lobby (ANY_TIME, machine.py),
  hence the start first. The record keeps who was absent (the standings count it).

Both are records first, then the table's side (`sync`), which looks at what the table
already has: asked again after a failure half-way, it finishes; the record is not
written twice.

    POST /api/club/tournaments/{id}/replace   {table, seat, player}          judge
    POST /api/club/tournaments/{id}/absent    {table, seat}                  judge
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.routing import BaseRoute, Route

from plugin.club import ClubState
from plugin.club.api import body_of, guarded, require
from plugin.club.games import seated_players
from plugin.host.inputs import HOST, Remove, Start
from plugin.host.table import Table
from plugin.rules.state import Phase
from plugin.web.context import Server

from .round_tables import RoundTable
from .rounds import SEATED, SOURCE
from .state import Tournament, TournamentError, TournamentState, _member

if TYPE_CHECKING:
    from .api import TournamentSite


AGAIN = ("already_seated", "already_absent")  # asked again: only the table's side is done


def _seat_at(state: TournamentState, tid: str, table_id: object, seat: object) -> RoundTable:
    tournament = state.get(tid)
    table = tournament.tables.get(table_id) if isinstance(table_id, str) else None
    if table is None:
        raise TournamentError("no_table", f"{tid} has no table {table_id!r}", 404)
    if not isinstance(seat, int) or isinstance(seat, bool) or not 1 <= seat <= len(table.seats):
        raise TournamentError("bad_seat", f"a seat is a number 1..{len(table.seats)}")
    if table.round in tournament.stages[table.stage].finished:
        raise TournamentError("round_finished", f"round {table.round + 1} is finished", 409)
    return table


def replace_question(tid: str, table_id: object, seat: object, ref: object) -> Any:
    def ask(club: ClubState, state: TournamentState) -> dict[str, Any]:
        table = _seat_at(state, tid, table_id, seat)
        assert isinstance(seat, int)
        player = _member(club, ref)
        tournament = state.get(tid)
        if table.seats[seat - 1] == player:
            raise TournamentError("already_seated", f"{player} sits at seat {seat}", 409)
        if player in state.playing(tournament) | set(table.seats):
            why = f"{club.nick_of(player)} already plays at a table of an unfinished round"
            raise TournamentError("player_busy", why, 409)
        return {"type": "tournament.replace", "tournament": tid, "table": table.id,
                "seat": seat, "player": player, "was": table.seats[seat - 1]}  # fmt: skip

    return ask


def absent_question(tid: str, table_id: object, seat: object) -> Any:
    def ask(_: ClubState, state: TournamentState) -> dict[str, Any]:
        table = _seat_at(state, tid, table_id, seat)
        assert isinstance(seat, int)
        if seat in table.absent:
            raise TournamentError("already_absent", f"seat {seat} is played without", 409)
        return {"type": "tournament.absent", "tournament": tid, "table": table.id,
                "seat": seat, "player": table.seats[seat - 1]}  # fmt: skip

    return ask


async def hosted(server: Server, table_id: object) -> Table:
    """The table, hosted here (its changes are written by the server that hosts it)."""
    registry = server.registry
    table = await registry.get(str(table_id)) if registry is not None else None
    if table is None:
        owner = server.elsewhere(str(table_id))
        where = f": ask {owner}" if owner else ""
        raise TournamentError("table_elsewhere", f"table {table_id} is not hosted here{where}", 409)
    return table


async def sync(server: Server, club: ClubState, tournament: Tournament, table: Table) -> None:
    """Bring a table in line with its tournament record: a replaced seat named, its link
    re-issued and its club player logged (`club.seat` last: what is done is not redone
    but that re-issue); an absent seat removed from the game, started first if need be."""
    rt = tournament.tables[table.id]
    logged = seated_players(e.record for e in table.log.entries(table.id))
    for seat, player in enumerate(rt.seats, 1):
        if logged.get(seat) == player:
            continue
        await table.rename(seat, club.nick_of(player))
        await table.reissue([seat])
        server.hub.close_viewer(table.id, seat, "token_reissued", "another player sits here now")
        record = {"type": SEATED, "tournament": tournament.id, "seats": {str(seat): player}}
        await table.log.commit(table.id, record, source=SOURCE)
    for seat in sorted(rt.absent):
        if table.state.over or seat not in table.state.alive:
            continue
        if table.state.phase is Phase.LOBBY:
            started = await table.submit(HOST, Start())
            if not started.ok:
                raise TournamentError(started.code or "refused", started.message or "", 409)
        removed = await table.submit(HOST, Remove(seat=seat))
        if not removed.ok:
            raise TournamentError(removed.code or "refused", removed.message or "", 409)


def seat_routes(here: TournamentSite) -> list[BaseRoute]:
    site = here.site

    async def change(request: Request, kind: str) -> Any:
        caller = require(site, request, "judge")
        tid, body = request.path_params["id"], await body_of(request)
        server = site.server
        assert server is not None
        tournaments = here.tournaments
        tournaments.state.get(tid)  # 404 before anything else
        table_id, seat = body.get("table"), body.get("seat")
        if kind == "replace":
            ask = replace_question(tid, table_id, seat, body.get("player"))
        else:
            ask = absent_question(tid, table_id, seat)
        try:  # refused here: nothing is written
            ask(tournaments.club.state, tournaments.state)
        except TournamentError as refusal:
            if refusal.code not in AGAIN:
                raise
            # Recorded before: the table's side is finished (a failure half-way), no record.
            table = await hosted(server, table_id)
            tournament = tournaments.state.get(tid)
            await sync(server, tournaments.club.state, tournament, table)
            return {"already": True, "table_now": tournament.tables[table.id].view()}
        table = await hosted(server, table_id)
        if kind == "replace" and table.state.phase is not Phase.LOBBY:
            why = "a player is replaced before the game starts; then he is removed (absent)"
            raise TournamentError("game_started", why, 409)
        record = await tournaments.commit(ask, source=caller.source)
        tournament = tournaments.state.get(tid)
        await sync(server, tournaments.club.state, tournament, table)
        here.bell.ring()  # the new player's page goes to his seat
        return {**record, "table_now": tournament.tables[table.id].view()}

    async def replace(request: Request) -> Any:
        return await change(request, "replace")

    async def absent(request: Request) -> Any:
        return await change(request, "absent")

    return [
        Route("/api/club/tournaments/{id}/replace", guarded(replace), methods=["POST"]),
        Route("/api/club/tournaments/{id}/absent", guarded(absent), methods=["POST"]),
    ]
