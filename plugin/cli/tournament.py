"""`autohost tournament`: a club's tournament from the command line (issue 34), written
straight into the club's records in the event log at --db, as `autohost player` writes the
roster (the server sees it at its next request).

    autohost tournament new NAME --players NICK,NICK,guest:NICK,... --tables T --games G
        [--stage NAME:PLAYERS:TABLES:GAMES]... [--keep-apart NICK,NICK]...
        [--preset classic] [--system fiim] [--hide-extras-from STAGE]
    autohost tournament seat ID [--stage N] [--players NICK,...] [--seconds S] [--seed N]
    autohost tournament swap ID ROUND NICK NICK [--stage N]   # before the round starts
    autohost tournament start ID ROUND [--stage N] [--server URL [--admin-key-file F]]
    autohost tournament finish ID ROUND [--stage N]
    autohost tournament show ID
    autohost tournament standings ID [--csv] [--public]   # stages, overall, final results
    autohost tournament link ID ROUND TABLE TABLE_ID [--stage N]   # a club table's game
    autohost tournament reveal ID             # the judges' hidden extra points, to all
    common: [--db var/autohost.db] [--json]

Stages and rounds are numbered from 1 here, as the organiser counts them. `start` makes
the round's tables (plugin.tournament.rounds): with --server through the running server
(POST /api/club/tournaments/{id}/start, its bots host them at once), else written into the
log (a server opens each at its first use). A start cut short is finished by running it
again.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from plugin.club import Club, ClubError
from plugin.tournament import Tournament, Tournaments, rounds
from plugin.tournament.exports import document, to_csv
from plugin.tournament.exports import text as standings_text

if TYPE_CHECKING:
    from plugin.eventlog import EventLog

DEFAULT_DB = "var/autohost.db"


def parse_args(argv: list[str]) -> argparse.Namespace:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--db", default=DEFAULT_DB, help="a SQLite file or postgresql:// URL")
    common.add_argument("--json", action="store_true", help="print the answer as JSON")
    parser = argparse.ArgumentParser(prog="autohost tournament")
    commands = parser.add_subparsers(dest="command", required=True)
    new = commands.add_parser("new", parents=[common], help="create a tournament")
    new.add_argument("name")
    new.add_argument("--players", required=True, help="nicknames, comma-separated")
    new.add_argument("--tables", type=int, required=True, help="tables per qualifying round")
    new.add_argument("--games", type=int, required=True, help="qualifying games per player")
    new.add_argument("--stage", action="append", default=[], help="NAME:PLAYERS:TABLES:GAMES")
    new.add_argument("--keep-apart", action="append", default=[], help="NICK,NICK")
    new.add_argument("--preset", default="classic")
    new.add_argument("--system", default="fiim")
    new.add_argument("--hide-extras-from", default=None, help="a stage's name")
    seat = commands.add_parser("seat", parents=[common], help="compute and store a seating")
    seat.add_argument("id")
    seat.add_argument("--stage", type=int, default=1)
    seat.add_argument("--players", default=None, help="a later stage's players (nicknames)")
    seat.add_argument("--seconds", type=float, default=60.0)
    seat.add_argument("--seed", type=int, default=0)
    swap = commands.add_parser("swap", parents=[common], help="two players trade places")
    swap.add_argument("id")
    swap.add_argument("round", type=int)
    swap.add_argument("a")
    swap.add_argument("b")
    swap.add_argument("--stage", type=int, default=1)
    for name in ("start", "finish"):
        command = commands.add_parser(name, parents=[common], help=f"{name} a round")
        command.add_argument("id")
        command.add_argument("round", type=int)
        command.add_argument("--stage", type=int, default=1)
        if name == "start":
            command.add_argument("--server", default=None, help="start it through this server")
            command.add_argument("--admin-key-file", type=Path, default=None,
                                 help="with --server; default: $AUTOHOST_ADMIN_KEY or "
                                 "<db>.admin-key")  # fmt: skip
    show = commands.add_parser("show", parents=[common], help="a tournament and its seating")
    show.add_argument("id")
    table = commands.add_parser("standings", parents=[common], help="standings and results")
    table.add_argument("id")
    table.add_argument("--csv", action="store_true", help="print them as CSV")
    table.add_argument("--public", action="store_true", help="as the public sees them")
    link = commands.add_parser("link", parents=[common], help="link a table to a round's")
    link.add_argument("id")
    link.add_argument("round", type=int)
    link.add_argument("table", type=int)
    link.add_argument("table_id")
    link.add_argument("--stage", type=int, default=1)
    reveal = commands.add_parser("reveal", parents=[common], help="reveal the hidden extras")
    reveal.add_argument("id")
    return parser.parse_args(argv)


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    from plugin.eventlog import EventLog, is_url, open_log
    from plugin.server.assembly import POSTGRES_FILES
    from plugin.signing import Signer, load_secret, secret_path_for

    files = POSTGRES_FILES if is_url(args.db) else Path(args.db)
    if args.command == "start" and args.server:
        return _start_remote(args, files)
    log = open_log(args.db)
    assert isinstance(log, EventLog)  # open_log's log is the core
    signer = Signer(load_secret(secret_path_for(files)), clock=log.wall)  # the log's time
    tournaments = Tournaments(Club(log, signer))
    try:
        tournaments.refresh()
        answer, text = _run(tournaments, log, args)
    except ClubError as refusal:
        print(f"autohost tournament: {refusal.message}", file=sys.stderr)
        return 1
    finally:
        log.close()
    print(json.dumps(answer, ensure_ascii=False) if args.json else text)
    return 0


def _split(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def _id(tournaments: Tournaments, ref: str) -> str:
    return ref if ref.startswith("guest:") else tournaments.club.state.player(ref).id


def _stage(text: str) -> dict[str, Any]:
    parts = text.split(":")
    if len(parts) != 4 or not all(p.isdigit() for p in parts[1:]):
        raise ClubError("bad_field", f"a stage is NAME:PLAYERS:TABLES:GAMES, not {text!r}")
    return {"name": parts[0], "players": int(parts[1]), "tables": int(parts[2]),
            "games": int(parts[3])}  # fmt: skip


def _start_remote(args: argparse.Namespace, files: Path) -> int:
    """POST /api/club/tournaments/{id}/start on a running server, with its admin key."""
    import httpx

    from plugin.signing import load_admin_key, read_admin_key_file

    given = read_admin_key_file(args.admin_key_file) if args.admin_key_file else None
    url = f"{args.server.rstrip('/')}/api/club/tournaments/{args.id}/start"
    try:
        reply = httpx.post(url, json={"stage": args.stage - 1, "round": args.round - 1},
                           headers={"Authorization": f"Bearer {load_admin_key(files, given)}"},
                           timeout=60)  # fmt: skip
        answer = reply.json()
    except (httpx.HTTPError, ValueError) as error:
        print(f"autohost tournament: no answer from {args.server}: {error}", file=sys.stderr)
        return 1
    if reply.status_code != 201:
        print(f"autohost tournament: {answer.get('message', answer)}", file=sys.stderr)
    if "tables" in answer:
        print(json.dumps(answer, ensure_ascii=False) if args.json else _started(args, answer))
    return 0 if reply.status_code == 201 else 1


def _started(args: argparse.Namespace, answer: dict[str, Any]) -> str:
    lines = [f"round {args.round} started"]
    for table in answer["tables"]:
        failed = f" (not made: {table['failed']})" if "failed" in table else ""
        nicks = ", ".join(table["nicks"])
        lines.append(f"table {table['table']}: {nicks} (at table {table['id']}){failed}")
    return "\n".join(lines)


def _run(tournaments: Tournaments, log: EventLog, args: argparse.Namespace) -> tuple[object, str]:
    src = "cli"
    if args.command == "new":
        fields = {"name": args.name, "players": _split(args.players), "tables": args.tables,
                  "games": args.games, "stages": [_stage(s) for s in args.stage],
                  "keep_apart": [_split(pair) for pair in args.keep_apart],
                  "preset": args.preset, "system": args.system,
                  "hide_extras_from": args.hide_extras_from}  # fmt: skip
        record = tournaments.create(fields, source=src)
        return record, f"created {record['name']} ({record['id']})"
    if args.command == "show":
        tournament = tournaments.state.get(args.id)
        return tournament.view(), show(tournaments, tournament)
    if args.command == "standings":
        doc = document(tournaments.state, tournaments.live, args.id,
                       tournaments.club.state.nick_of, judge=not args.public)  # fmt: skip
        return doc, to_csv(doc).rstrip("\r\n") if args.csv else standings_text(doc)
    if args.command == "reveal":
        return tournaments.reveal(args.id, source=src), "the judges' extra points are public"
    stage = args.stage - 1
    if args.command == "seat":
        chosen = None if args.players is None else [_id(tournaments, p) for p in
                                                    _split(args.players)]  # fmt: skip
        record = tournaments.seat(args.id, stage, players=chosen, seed=args.seed,
                                  seconds=args.seconds, source=src)  # fmt: skip
        return record, show(tournaments, tournaments.state.get(args.id))
    if args.command == "swap":
        a, b = _id(tournaments, args.a), _id(tournaments, args.b)
        record = tournaments.swap(args.id, stage, args.round - 1, a, b, source=src)
        change = record["change"]
        return record, (f"swapped {args.a} and {args.b} in round {args.round}: cost "
                        f"{change['total']:+g} (meetings {change['meetings']:+g}, seats "
                        f"{change['seats']:+g}, tables {change['tables']:+g})")  # fmt: skip
    if args.command == "link":
        record = tournaments.link_table(args.id, stage, args.round - 1, args.table,
                                        args.table_id, source=src)  # fmt: skip
        return record, f"table {args.table_id} is table {args.table} of round {args.round}"
    if args.command == "start":
        started = rounds.start_in_log(tournaments, log, args.id, stage, args.round - 1, source=src)
        return started, _started(args, started)
    record = tournaments.finish_round(args.id, stage, args.round - 1, source=src)
    return record, f"round {args.round} finished"


def show(tournaments: Tournaments, tournament: Tournament) -> str:
    """A tournament as text: its stages, each seating round by round, seat by seat."""
    nick = tournaments.club.state.nick_of
    lines = [f"{tournament.id} {tournament.name}: {len(tournament.players)} players, "
             f"rules {tournament.preset}, scoring {tournament.system}"]  # fmt: skip
    for n, stage in enumerate(tournament.stages, 1):
        lines.append(f"stage {n} {stage.name}: {stage.players} players, {stage.tables} "
                     f"tables, {stage.games} games each")  # fmt: skip
        if stage.cost:
            lines.append("  cost " + ", ".join(f"{k} {v:g}" for k, v in stage.cost.items()))
        for r, tables in enumerate(stage.seating):
            state = ("finished" if r in stage.finished else "playing" if r in stage.started
                     else "not started")  # fmt: skip
            lines.append(f"  round {r + 1} ({state})")
            for t, table in enumerate(tables, 1):
                seats = ", ".join(f"{s}.{nick(stage.seated[p])}" for s, p in enumerate(table, 1))
                lines.append(f"    table {t}: {seats}")
    return "\n".join(lines)
