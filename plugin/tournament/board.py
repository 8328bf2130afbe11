"""The judges' board (issue 34): every table of the rounds being played, at a glance.

    GET  /api/club/tournaments/{id}/board         judge (a judge's or admin's link, the key)
    POST /api/club/tournaments/{id}/play          {stage?, round}: every table of the round
                                                  hosted here still in its lobby starts its
                                                  game (the chief judge's "begin")  judge

For each table: where it is (hosted here; by another server of the club's database, with
that server's address and what its log says: phase, day, who speaks; not made yet;
broken), its phase, day, who speaks and the time left, each seat's player with whether
he has joined the table (a page of his seat is connected here) or was left out,
`decision` when the table waits for a human (its game is to be started, the live host's
dialog, a revote to start) and `trouble` when its bot or server is in trouble (nobody
holds its lease, this server lost it, it could not be opened, it is not made). A judge
opens any table's console from the board (the club's POST /api/club/tables/{table}/host,
plugin.club.hosting: the host's link; the console takes the game over in manual mode).
The page: /club/tournaments/{id}/board.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.routing import BaseRoute, Route

from plugin.club import ClubState
from plugin.club.api import body_of, guarded, require
from plugin.host.game import is_event_record, replay
from plugin.host.inputs import HOST, Start
from plugin.host.ports import LogUnavailable
from plugin.host.registry import Registry
from plugin.host.settings import TableSettings
from plugin.host.table import Table
from plugin.rules.state import Phase
from plugin.web.context import Server

from .round_tables import RoundTable
from .state import Tournament, TournamentError

if TYPE_CHECKING:
    from .api import TournamentSite

DECISIONS = {Phase.LOBBY: "start", Phase.DIALOG: "dialog", Phase.AWAIT_REVOTE: "revote"}


def playing(tournament: Tournament) -> list[tuple[int, int]]:
    """(stage, round) of every started round not finished, in order."""
    return [(n, r) for n, stage in enumerate(tournament.stages)
            for r in sorted(stage.started - stage.finished)]  # fmt: skip


def board(server: Server, club: ClubState, tournament: Tournament) -> dict[str, Any]:
    registry = server.registry
    rounds = []
    for stage, round_ in playing(tournament):
        tables = [t for t in tournament.tables.values() if (t.stage, t.round) == (stage, round_)]
        rounds.append({"stage": stage, "stage_name": tournament.stages[stage].name,
                       "round": round_,
                       "tables": [_table(server, registry, club, t)
                                  for t in sorted(tables, key=lambda t: t.number)]})  # fmt: skip
    return {"tournament": tournament.id, "name": tournament.name, "rounds": rounds}


def _seats(club: ClubState, rt: RoundTable, joined: set[int] | None) -> list[dict[str, Any]]:
    return [{"seat": n, "player": p, "nick": club.nick_of(p), "absent": n in rt.absent,
             "joined": None if joined is None else n in joined}
            for n, p in enumerate(rt.seats, 1)]  # fmt: skip


def _table(
    server: Server, registry: Registry | None, club: ClubState, rt: RoundTable
) -> dict[str, Any]:
    row: dict[str, Any] = {"id": rt.id, "table": rt.number, "trouble": [], "decision": None}
    if registry is None:
        return {**row, "where": "unknown", "seats": _seats(club, rt, None),
                "trouble": ["server_stopping"]}  # fmt: skip
    table = registry.tables.get(rt.id)
    if table is not None and registry.holds(rt.id):
        return {**row, **_live(server, table, rt), "seats": _seats(
            club, rt, server.hub.connected_seats(rt.id))}  # fmt: skip
    row["seats"] = _seats(club, rt, None)
    try:
        made = registry.log.table_settings(rt.id) is not None
        archived = made and registry.log.is_archived(rt.id)
        owner = registry.owner_url(rt.id) if made and not archived else None
    except LogUnavailable:
        return {**row, "where": "unknown", "trouble": ["log_unavailable"]}
    if rt.id in registry.broken:
        return {**row, "where": "broken", "trouble": [f"broken: {registry.broken[rt.id]}"]}
    if not made:
        return {**row, "where": "missing", "trouble": ["not_made"]}
    if archived:
        over = registry.final(rt.id) is not None
        return {**row, "where": "archived", "over": over}
    if table is not None:  # open here, its lease not renewed in time
        return {**row, "where": "here", "trouble": ["lease_lost"]}
    if registry.leases is None:  # one server's log: opened at its first use
        return {**row, "where": "here", "trouble": ["not_open"]}
    if owner is None:
        return {**row, "where": "nobody", "trouble": ["no_lease_holder"], **_read(registry, rt)}
    return {**row, "where": "elsewhere", "server": owner, **_read(registry, rt)}


def _read(registry: Registry, rt: RoundTable) -> dict[str, Any]:
    """A table hosted elsewhere as its log has it (a read-only replay, as an archived
    table's end screen is read): its phase, day and speaker, not its clock or presence."""
    try:
        record = registry.log.table_settings(rt.id)
        records = [e.record for e in registry.log.entries(rt.id)]
        settings = TableSettings.from_record(record)
        state, _ = replay(settings, [r for r in records if is_event_record(r)])
    except LogUnavailable:
        return {}
    except Exception as error:  # its log does not replay: the host will find it broken
        return {"trouble": [f"unreadable: {type(error).__name__}"]}
    decision = DECISIONS.get(state.phase)
    return {"phase": state.phase.value, "day": state.day, "speaker": state.speaker,
            "over": bool(state.over), "alive": sorted(state.alive),
            "decision": None if state.over else decision}  # fmt: skip


def _live(server: Server, table: Table, rt: RoundTable) -> dict[str, Any]:
    state = table.state
    snapshot = table.snapshot()
    decision = DECISIONS.get(state.phase)
    if state.dialog is not None:
        decision = f"dialog:{state.dialog.kind}"
    trouble = []
    if rt.id in (server.registry.broken if server.registry else {}):
        trouble.append("broken")
    remaining = snapshot.timer_remaining
    return {"where": "here", "phase": state.phase.value, "day": state.day,
            "speaker": state.speaker, "left": None if remaining is None else round(remaining, 1),
            "paused": snapshot.paused, "manual": state.manual, "over": bool(state.over),
            "winner": state.winner, "alive": sorted(state.alive),
            "decision": None if state.over else decision, "trouble": trouble}  # fmt: skip


def board_routes(here: TournamentSite) -> list[BaseRoute]:
    site = here.site

    async def endpoint(request: Request) -> Any:
        require(site, request, "judge")
        tournaments = here.tournaments
        tournament = tournaments.state.get(request.path_params["id"])
        server = site.server
        assert server is not None
        for rt in tournament.tables.values():  # opened here at first use (one server's log)
            if server.registry is not None and server.registry.leases is None:
                stage = tournament.stages[rt.stage]
                if rt.round in stage.started - stage.finished:
                    await server.table(rt.id)
        return board(server, tournaments.club.state, tournament)

    async def play(request: Request) -> Any:
        """Start the game at every table of a round hosted here still in its lobby."""
        require(site, request, "judge")
        tid, body = request.path_params["id"], await body_of(request)
        tournaments, index = here.tournaments, body.get("stage", 0)
        tournament, stage, round_ = tournaments.state.seated(tid, index, body.get("round"))
        if round_ not in stage.started or round_ in stage.finished:
            raise TournamentError("round_not_playing", f"round {round_ + 1} is not playing", 409)
        server = site.server
        assert server is not None and server.registry is not None
        started, skipped = [], {}
        for rt in tournament.tables.values():
            if (rt.stage, rt.round) != (index, round_):
                continue
            table = await server.registry.get(rt.id)
            if table is None:
                skipped[rt.id] = "not hosted here"
            elif table.state.phase is not Phase.LOBBY:
                skipped[rt.id] = "started already"
            elif (verdict := await table.submit(HOST, Start())).ok:
                started.append(rt.id)
            else:
                skipped[rt.id] = f"{verdict.code}: {verdict.message}"
        return {"started": started, "skipped": skipped}

    return [Route("/api/club/tournaments/{id}/board", guarded(endpoint), methods=["GET"]),
            Route("/api/club/tournaments/{id}/play", guarded(play), methods=["POST"])]  # fmt: skip
