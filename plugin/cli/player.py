"""`autohost player`: the club's roster from the command line (issue 33), written straight into
the event log at --db, as the server's club page does (the server sees it at its next
request: the club catches up with its log before each).

    autohost player add NICK [--name N] [--city C] [--club C]
    autohost player link NICK [--kind player|judge|admin]   # a new personal link (old stops)
    autohost player revoke NICK [--kind ...]                 # the link stops working
    autohost player grant NICK judge|admin [--revoke]        # rights beyond a seat
    autohost player list [--json]
    common: [--db var/autohost.db] [--base-url URL]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from plugin.club import Club
from plugin.club.state import KINDS, ROLES, ClubError

DEFAULT_DB = "var/autohost.db"


def parse_args(argv: list[str]) -> argparse.Namespace:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--db", default=DEFAULT_DB, help="a SQLite file or postgresql:// URL")
    common.add_argument("--base-url", default="http://127.0.0.1:8000")
    common.add_argument("--json", action="store_true", help="print the answer as JSON")
    parser = argparse.ArgumentParser(prog="autohost player")
    commands = parser.add_subparsers(dest="command", required=True)
    add = commands.add_parser("add", parents=[common], help="add a player to the roster")
    add.add_argument("nick")
    for field in ("name", "city", "club"):
        add.add_argument(f"--{field}", default="")
    for name, text in (("link", "issue a personal link"), ("revoke", "revoke a link")):
        command = commands.add_parser(name, parents=[common], help=text)
        command.add_argument("nick")
        command.add_argument("--kind", default="player", choices=KINDS)
    grant = commands.add_parser("grant", parents=[common], help="a judge's or admin's right")
    grant.add_argument("nick")
    grant.add_argument("role", choices=ROLES)
    grant.add_argument("--revoke", action="store_true", help="take the right back")
    commands.add_parser("list", parents=[common], help="the roster")
    return parser.parse_args(argv)


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    from plugin.eventlog import EventLog, is_url, open_log
    from plugin.server.assembly import POSTGRES_FILES
    from plugin.signing import Signer, load_secret, secret_path_for

    files = POSTGRES_FILES if is_url(args.db) else Path(args.db)
    log = open_log(args.db)
    assert isinstance(log, EventLog)  # open_log's log is the core
    club = Club(log, Signer(load_secret(secret_path_for(files)), clock=log.wall))
    try:
        return _run(club, args)
    except ClubError as refusal:
        print(f"autohost player: {refusal.message}", file=sys.stderr)
        return 1
    finally:
        log.close()


def _run(club: Club, args: argparse.Namespace) -> int:
    from plugin.club import links

    answer: object
    if args.command == "add":
        fields = {"nick": args.nick, "name": args.name, "city": args.city, "club": args.club}
        record = club.change(lambda state: state.add_player(fields), source="cli")
        answer = {"id": record["id"], "nick": record["nick"]}
        text = f"added {record['nick']} ({record['id']})"
    elif args.command == "link":
        token = club.issue_link(args.nick, args.kind, source="cli")
        url = links.link_url(args.base_url, token)
        answer = {"nick": club.state.player(args.nick).nick, "kind": args.kind, "link": url}
        text = url
    elif args.command == "revoke":
        club.change(lambda state: state.revoke_link(args.nick, args.kind), source="cli")
        answer = {"revoked": args.kind, "nick": club.state.player(args.nick).nick}
        text = f"{club.state.player(args.nick).nick}'s {args.kind} link no longer works"
    elif args.command == "grant":
        club.change(
            lambda state: state.grant(args.nick, args.role, revoke=args.revoke), source="cli"
        )
        player = club.state.player(args.nick)
        answer = player.record()
        text = f"{player.nick}: {', '.join(sorted(player.roles)) or 'no rights'}"
    else:
        club.refresh()
        answer = [p.record() for p in club.state.players.values()]
        text = "\n".join(
            f"{p.id}\t{p.nick}\t{p.name}\t{p.city}\t{','.join(sorted(p.roles))}"
            for p in club.state.players.values()
        )
    print(json.dumps(answer, ensure_ascii=False) if args.json else text)
    return 0
