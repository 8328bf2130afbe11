"""`autohost protocol --db PATH --table ID [--html FILE] [--json FILE]`: a game's record."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from plugin.protocol.export import table_protocol
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
    from plugin.host.ports import LogUnavailable

    if not is_url(args.db) and not Path(args.db).is_file():
        print(f"autohost protocol: no event log at {args.db}", file=sys.stderr)
        return 2
    try:
        log = open_log(args.db)
    except LogUnavailable as error:
        print(f"autohost protocol: {error}", file=sys.stderr)
        return 2
    try:
        protocol = table_protocol(log, args.table)
    finally:
        log.close()
    if protocol is None:
        print(f"autohost protocol: no table {args.table!r} in {args.db}", file=sys.stderr)
        return 2
    if args.html:
        Path(args.html).write_text(render_sheet(protocol), encoding="utf-8")
    text = json.dumps(protocol, ensure_ascii=False, indent=1)
    if args.json:
        Path(args.json).write_text(text, encoding="utf-8")
    elif not args.html:
        print(text)
    return 0
