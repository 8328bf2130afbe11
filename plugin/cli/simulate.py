"""`autohost simulate`: whole games by random legal actions (plugin.sim.simulate), or, with
`--tournament`, a whole tournament on a real server (issue 34):

    autohost simulate --tournament [--players 100] [--tables 10] [--games 10]
        [--stage semi-final:20:2:1 --stage final:10:1:1 | --no-stages] [--seed 0]
        [--seat-seconds 5] [--db FILE] [--json]

A real server runs in this process on a free loopback port (its web app, registry, club
and tournaments, on a SQLite log: a temporary one unless --db), without rooms or voice.
Simulated people play the tournament through its API and table protocol
(plugin.sim.tournament): every round started through the server, every table hosted by
its bot and played to its end, every sheet signed by a simulated judge, later stages
seated from the standings. Then the server is stopped, its log opened again, and the
standings recomputed from the club's records alone (plugin.tournament.standings.recompute)
must equal the ones the server published live, stage by stage, overall and the final
results; every game must have a complete protocol (roles, a winner). A summary is printed
(and one JSON object with --json); the exit status is 0 only when all of that holds.
Sizes that cannot be seated are refused before anything starts, with the reason.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import math
import secrets
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from plugin.club import ClubState
from plugin.eventlog import EventLog, open_log
from plugin.host.ports import Log
from plugin.protocol.export import table_protocol
from plugin.sim.tables import Played
from plugin.sim.tournament import Outcome, Plan, StagePlan, run
from plugin.tournament.exports import document
from plugin.tournament.standings import Live, recompute
from plugin.tournament.state import Stage, TournamentError, problem_of

DEFAULT_STAGES = ("semi-final:20:2:1", "final:10:1:1")


def main(argv: list[str]) -> int:
    if "--tournament" not in argv:
        from plugin.sim.simulate import main as games

        return games(argv)
    try:
        plan, args = parse(argv)
    except TournamentError as error:
        print(f"autohost simulate: {error.message}", file=sys.stderr)
        return 2
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    with tempfile.TemporaryDirectory(prefix="autohost-sim-") as tmp:
        db = args.db or Path(tmp) / "tournament.db"
        say = (lambda line: print(line, file=sys.stderr, flush=True)) if args.json else print
        summary = asyncio.run(simulate(plan, db, progress=say))
    if args.json:
        print(json.dumps(summary))
    else:
        print(text(summary))
    return 0 if summary["ok"] else 1


def parse(argv: list[str]) -> tuple[Plan, argparse.Namespace]:
    parser = argparse.ArgumentParser(prog="autohost simulate --tournament", description=(
        "a whole tournament on a real server, played by simulated people"))  # fmt: skip
    parser.add_argument("--tournament", action="store_true", required=True)
    parser.add_argument("--players", type=int, default=100)
    parser.add_argument("--tables", type=int, default=10, help="tables per qualifying round")
    parser.add_argument("--games", type=int, default=10, help="qualifying games per player")
    parser.add_argument(
        "--stage",
        action="append",
        metavar="NAME:PLAYERS:TABLES:GAMES",
        help="a later stage (default: semi-final:20:2:1 and final:10:1:1)",
    )
    parser.add_argument("--no-stages", action="store_true", help="the qualifying only")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--seat-seconds", type=float, default=5.0,
                        help="each stage's seating's deadline (the optimiser)")  # fmt: skip
    parser.add_argument("--db", type=Path, help="keep the server's log here (SQLite)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if not 0 < args.seat_seconds <= 60:
        parser.error("--seat-seconds is more than 0, at most 60")
    stages = [] if args.no_stages else [stage_of(s) for s in args.stage or DEFAULT_STAGES]
    plan = Plan(players=args.players, tables=args.tables, games=args.games,
                stages=tuple(stages), seed=args.seed, seat_seconds=args.seat_seconds)  # fmt: skip
    check(plan)
    return plan, args


def stage_of(text: str) -> StagePlan:
    parts = text.split(":")
    if len(parts) != 4 or not all(p.isdigit() for p in parts[1:]) or not parts[0]:
        raise TournamentError("bad_field", f"a stage is NAME:PLAYERS:TABLES:GAMES, not {text!r}")
    return StagePlan(parts[0], int(parts[1]), int(parts[2]), int(parts[3]))


def check(plan: Plan) -> None:
    """The server's own checks of the sizes (plugin.tournament.state), before it starts."""
    sizes = [(plan.players, plan.tables, plan.games, "qualifying")]
    sizes += [(s.players, s.tables, s.games, s.name) for s in plan.stages]
    before = plan.players
    for players, tables, games, name in sizes:
        if min(players, tables, games) < 1:
            raise TournamentError("impossible_sizes", f"stage {name!r}: players, tables and "
                                  "games are whole numbers from 1")  # fmt: skip
        if players > before:
            why = f"stage {name!r} takes {players} players of {before}"
            raise TournamentError("impossible_sizes", why)
        before = players
        stage = Stage(name=name, players=players, tables=tables, games=games)
        problem_of(stage, [str(n) for n in range(players)], ())


async def simulate(plan: Plan, db: Path, *, progress: Any = print) -> dict[str, Any]:
    """Serve, play, stop; then check the server's standings against the records."""
    from plugin.server.assembly import build
    from plugin.server.http import listening
    from plugin.server.options import ServerOptions

    admin_key, secret = secrets.token_urlsafe(24), secrets.token_bytes(32)
    options = ServerOptions(port=0, db=db, media="none", voice=False, admin_key=admin_key,
                            secret=secret)  # fmt: skip
    hosting = build(options)
    began = time.perf_counter()
    async with listening(hosting.app, port=0) as where:
        outcome = await run(plan, [where.url], admin_key=admin_key, secret=secret,
                            progress=progress)  # fmt: skip
    return summarise(plan, outcome, db, time.perf_counter() - began)


def summarise(plan: Plan, outcome: Outcome, db: Path | str, seconds: float) -> dict[str, Any]:
    """The run in figures, and whether the standings equal the records' recomputation."""
    log = open_log(db)
    try:
        assert isinstance(log, EventLog)
        records = [e.record for e in log.club_records(0)]
        incomplete = [t for r in outcome.rounds for t in r.tables
                      if not complete(table_protocol(log, t))]  # fmt: skip
        lost = [f"{g.table}: {key}" for r in outcome.rounds for g in r.games
                for key in sorted(set(g.acked) - logged(log, g.table))]  # fmt: skip
    finally:
        log.close()
    recomputed = recomputed_document(records, outcome.tournament)
    equal = recomputed == outcome.standings
    problems = list(outcome.problems)
    if not equal:
        problems.append("the live standings differ from the records' recomputation")
    problems += [f"table {t}: its protocol is not complete" for t in incomplete]
    problems += [f"acked, not in the log: {key}" for key in lost]
    games = [g for r in outcome.rounds for g in r.games]
    starts = [r.start_s for r in outcome.rounds if not math.isnan(r.start_s)]
    winners = [row["nick"] for row in outcome.standings.get("results", [])[:3]]
    return {
        "ok": not problems, "tournament": outcome.tournament, "players": plan.players,
        "stages": 1 + len(plan.stages), "rounds": len(outcome.rounds), "games": len(games),
        "signed": len(outcome.signed), "standings_equal_recompute": equal,
        "incomplete_protocols": len(incomplete), "acked_inputs": sum(len(g.acked) for g in games),
        "acked_not_logged": len(lost),
        "city_wins": sum(g.winner == "city" for g in games),
        "mafia_wins": sum(g.winner == "mafia" for g in games),
        "draws": sum(g.winner == "draw" for g in games),
        "refused_inputs": sum(g.refused for g in games), "refusals": refusals(games),
        "round_start_s_max": round(max(starts), 3) if starts else None,
        "seconds": round(seconds, 1), "podium": winners, "problems": problems[:20],
    }  # fmt: skip


def logged(log: Log, table: str) -> set[str]:
    """The keys of the inputs a table's log holds (`<source>/<the client's message id>`)."""
    return {e.client_id for e in log.entries(table) if e.client_id is not None}


def refusals(games: list[Played]) -> dict[str, int]:
    """The codes of the inputs the server refused, counted (a hurried host's click racing
    a player's: `not_now`, `closed`, `not_speaking`; a socket at a server that does not
    host its table: `table_elsewhere`), none of them an error of the server."""
    counted: dict[str, int] = {}
    for game in games:
        for code, n in game.refusals.items():
            counted[code] = counted.get(code, 0) + n
    return dict(sorted(counted.items()))


def complete(protocol: dict[str, Any] | None) -> bool:
    """A finished game's protocol: over, a winner, every seat with its role, its days."""
    if protocol is None or not protocol.get("over") or not protocol.get("winner"):
        return False
    seats = protocol.get("players") or []
    return len(seats) >= 10 and all(s.get("role") for s in seats) and bool(protocol["days"])


def recomputed_document(records: list[dict[str, Any]], tid: str) -> dict[str, Any]:
    """The standings document (as a judge sees it) from the club's records alone."""
    club = ClubState()
    for record in records:
        club.apply(record)
    state, tables = recompute(records)
    live = Live()
    live.tables = tables
    return document(state, live, tid, club.nick_of, judge=True)


def text(summary: dict[str, Any]) -> str:
    lines = [
        f"tournament {summary['tournament']}: {summary['players']} players, "
        f"{summary['stages']} stages, {summary['rounds']} rounds, {summary['games']} games "
        f"({summary['signed']} sheets signed; city {summary['city_wins']}, mafia "
        f"{summary['mafia_wins']}, draw {summary['draws']}) in {summary['seconds']} s",
        f"inputs refused (races of a hurried host, sockets at the wrong server): "
        f"{summary['refused_inputs']} {summary['refusals']}",
        f"slowest round start (request -> every table's game begun): "
        f"{summary['round_start_s_max']} s",
        f"standings equal the records' recomputation: {summary['standings_equal_recompute']}; "
        f"incomplete protocols: {summary['incomplete_protocols']}; inputs acked "
        f"{summary['acked_inputs']}, of them not in the log: {summary['acked_not_logged']}",
        "podium: " + ", ".join(summary["podium"]),
    ]
    lines += [f"problem: {p}" for p in summary["problems"]]
    return "\n".join(lines)
