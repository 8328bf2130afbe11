"""`autohost protocol --db PATH --table ID [--html FILE] [--json FILE]`: a game's record."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from plugin.protocol.export import game_protocol
from plugin.protocol.sheet import render_sheet


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="autohost protocol", description=__doc__)
    parser.add_argument("--db", default="var/autohost.db", help="the server's event log "
                        "(a SQLite file or a postgresql:// URL)")  # fmt: skip
    parser.add_argument("--table", required=True)
    parser.add_argument("--html", help="write the printable sheet here")
    parser.add_argument("--json", help="write the JSON protocol here (default: stdout)")
    args = parser.parse_args(argv)
    from plugin.eventlog import is_url, open_log
    from plugin.host.log import LogUnavailable
    from plugin.host.settings import TableSettings

    if not is_url(args.db) and not Path(args.db).is_file():
        print(f"autohost protocol: no event log at {args.db}", file=sys.stderr)
        return 2
    try:
        log = open_log(args.db)
    except LogUnavailable as error:
        print(f"autohost protocol: {error}", file=sys.stderr)
        return 2
    try:
        record = log.table_settings(args.table)
        if record is None:
            print(f"autohost protocol: no table {args.table!r} in {args.db}", file=sys.stderr)
            return 2
        settings = TableSettings.from_record(record)
        from plugin.host.game import is_event_record
        from plugin.host.table import with_logged_names

        entries = log.entries(args.table)
        settings = with_logged_names(settings, [e.record for e in entries])  # the lobby's
        records = [e.record for e in entries if is_event_record(e.record)]
        # The game's date: its first input's, in the server's local time (a club's evening).
        played = entries[0].wall if entries else time.time()
    finally:
        log.close()
    protocol = game_protocol(
        preset=settings.preset,
        seats=settings.seats,
        records=records,
        names=settings.names,
        overrides=settings.overrides,
        roles=settings.roles,
        seed=settings.seed,
        manual=settings.manual,
        table=args.table,
        language=settings.language,
        club=settings.club,
        host=settings.host_name,
        date=time.strftime("%Y-%m-%d", time.localtime(played)),
    )
    if args.html:
        Path(args.html).write_text(render_sheet(protocol), encoding="utf-8")
    text = json.dumps(protocol, ensure_ascii=False, indent=1)
    if args.json:
        Path(args.json).write_text(text, encoding="utf-8")
    elif not args.html:
        print(text)
    return 0
