"""`autohost livekit --room NAME`: host a table in a club's LiveKit room.

    LIVEKIT_URL=wss://... LIVEKIT_API_KEY=... LIVEKIT_API_SECRET=... \\
    autohost livekit --room NAME [--table ID | --seats 10 --preset online --language uk]
                     [--db var/autohost.db|postgresql://...] [--host 127.0.0.1] [--port 8000]
                     [--base-url URL] [--grace 10] [--reconcile 5] [--no-voice]

Runs our server (WebSocket protocol, /livekit/token, /livekit/webhook) with the table
bound to the LiveKit room: the bot joins it and speaks, the engine's speakers decide whose
microphone the server lets publish. Prints the listening URL, then one JSON line with the
table's links. SIGINT/SIGTERM stop it; every microphone is given back (with a
postgresql:// --db, shared with other servers, it hands the table over instead, like
`autohost serve`). A shortcut onto `autohost serve --room livekit` (every table of a
server in its own room) for one table.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from collections.abc import AsyncIterator, Mapping
from pathlib import Path

from plugin.eventlog import is_url
from plugin.host.settings import TableSettings
from plugin.rooms.livekit.tokens import CREDENTIALS_ENV, Credentials, credentials_from
from plugin.server import (
    Hosting,
    Listening,
    LiveKitOptions,
    PortInUse,
    ServerOptions,
    run,
    run_until_signalled,
)
from plugin.signing import read_admin_key_file

ENV = CREDENTIALS_ENV


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="autohost livekit", description=__doc__.splitlines()[0])
    parser.add_argument("--room", required=True, help="the LiveKit room of the table")
    parser.add_argument("--table", default=None, help="an existing table id (default: new)")
    parser.add_argument("--seats", type=int, default=10)
    parser.add_argument("--preset", default="online")
    parser.add_argument("--language", default="uk")
    parser.add_argument("--db", type=db_argument, default=Path("var/autohost.db"),
                        help="a SQLite file or a postgresql:// URL")  # fmt: skip
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000, help="0 picks a free port")
    parser.add_argument("--base-url", default=None)
    parser.add_argument("--admin-key-file", type=Path, default=None,
                        help="default: $AUTOHOST_ADMIN_KEY or the file <db>.admin-key")  # fmt: skip
    parser.add_argument("--grace", type=float, default=10.0, help="reconnect grace, seconds")
    parser.add_argument("--reconcile", type=float, default=5.0, help="reconcile every N s")
    parser.add_argument("--no-voice", action="store_true", help="the bot joins but stays silent")
    return parser.parse_args(argv)


def db_argument(text: str) -> Path | str:
    """A postgresql:// URL stays a string (a Path would fold its // into /)."""
    return text if is_url(text) else Path(text)


def credentials(environ: Mapping[str, str]) -> Credentials:
    return credentials_from(environ)


@contextlib.asynccontextmanager
async def print_links(hosting: Hosting, where: Listening) -> AsyncIterator[None]:
    """Open the LiveKit table (create it the first time) and print its links as JSON."""
    from plugin.server.livekit import LiveKitTables

    lk, server, tables = hosting.options.livekit, hosting.server, hosting.tables
    assert lk is not None and server.registry is not None
    assert isinstance(tables, LiveKitTables)
    table_id = tables.only
    assert table_id is not None
    table = await server.registry.get(table_id)
    if table is None:
        settings = TableSettings.from_record(
            {"seats": lk.seats, "preset": lk.preset, "language": lk.language,
             "livekit_room": lk.room}
        )  # fmt: skip
        table = await server.registry.create(settings, table_id)
    print(json.dumps(server.links(table)), flush=True)
    yield


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    try:
        creds = credentials(os.environ)
    except ValueError as error:
        print(f"autohost livekit: {error}", file=sys.stderr)
        return 2
    try:
        admin_key = read_admin_key_file(args.admin_key_file) if args.admin_key_file else None
    except ValueError as error:
        print(f"autohost livekit: {error}", file=sys.stderr)
        return 2
    options = ServerOptions(
        host=args.host, port=args.port, db=args.db, admin_key=admin_key,
        base_url=args.base_url, media="livekit", voice=not args.no_voice,
        livekit=LiveKitOptions(
            credentials=creds, room=args.room, table=args.table, seats=args.seats,
            preset=args.preset, language=args.language, grace=args.grace,
            reconcile=args.reconcile,
        ),
    )  # fmt: skip
    try:
        return run_until_signalled(
            lambda: run(options, session=print_links), name="autohost livekit"
        )
    except PortInUse as error:
        print(f"autohost livekit: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
