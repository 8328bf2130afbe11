"""`autohost livekit --room NAME`: host a table in a club's LiveKit room.

    LIVEKIT_URL=wss://... LIVEKIT_API_KEY=... LIVEKIT_API_SECRET=... \\
    autohost livekit --room NAME [--table ID | --seats 10 --preset online --language uk]
                     [--db var/autohost.db] [--host 127.0.0.1] [--port 8000] [--base-url URL]
                     [--grace 10] [--reconcile 5] [--no-voice]

Runs our server (WebSocket protocol, /livekit/token, /livekit/webhook) with the table
bound to the LiveKit room: the bot joins it and speaks, the engine's speakers decide whose
microphone the server lets publish. Prints the listening URL, then one JSON line with the
table's links. SIGINT/SIGTERM stop it; every microphone is given back.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from dataclasses import replace
from pathlib import Path

from plugin.rooms.livekit.tokens import Credentials

ENV = ("LIVEKIT_URL", "LIVEKIT_API_KEY", "LIVEKIT_API_SECRET")


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="autohost livekit", description=__doc__.splitlines()[0])
    parser.add_argument("--room", required=True, help="the LiveKit room of the table")
    parser.add_argument("--table", default=None, help="an existing table id (default: new)")
    parser.add_argument("--seats", type=int, default=10)
    parser.add_argument("--preset", default="online")
    parser.add_argument("--language", default="uk")
    parser.add_argument("--db", type=Path, default=Path("var/autohost.db"))
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000, help="0 picks a free port")
    parser.add_argument("--base-url", default=None)
    parser.add_argument("--admin-key", default=None)
    parser.add_argument("--grace", type=float, default=10.0, help="reconnect grace, seconds")
    parser.add_argument("--reconcile", type=float, default=5.0, help="reconcile every N s")
    parser.add_argument("--no-voice", action="store_true", help="the bot joins but stays silent")
    return parser.parse_args(argv)


def credentials(environ: dict[str, str] | os._Environ[str]) -> Credentials:
    missing = [name for name in ENV if not environ.get(name)]
    if missing:
        raise ValueError(f"set {', '.join(missing)} (the club's LiveKit server and API key)")
    return Credentials(
        url=environ["LIVEKIT_URL"],
        api_key=environ["LIVEKIT_API_KEY"],
        api_secret=environ["LIVEKIT_API_SECRET"],
    )


async def run(args: argparse.Namespace, creds: Credentials) -> int:
    import uvicorn

    from plugin.host.registry import new_table_id
    from plugin.host.settings import TableSettings
    from plugin.rooms.livekit.hosting import livekit_app
    from plugin.web.app import Server
    from plugin.web.tokens import load_admin_key

    table_id = args.table or new_table_id()
    app, _ = livekit_app(
        creds, args.room, table_id,
        db_path=args.db, admin_key=load_admin_key(args.db, args.admin_key),
        base_url=args.base_url or f"http://{args.host}:{args.port}",
        voice=not args.no_voice, reconcile_every=args.reconcile, grace=args.grace,
    )  # fmt: skip
    server = uvicorn.Server(
        uvicorn.Config(app, host=args.host, port=args.port, log_level="warning", lifespan="on")
    )
    serving = asyncio.create_task(server.serve())
    while not server.started and not serving.done():
        await asyncio.sleep(0.02)
    if not server.started:
        await serving
        return 1
    port = server.servers[0].sockets[0].getsockname()[1]
    print(f"autohost: listening on http://{args.host}:{port} (room {args.room})", flush=True)
    state: Server = app.state.server
    assert state.registry is not None
    if args.base_url is None and args.port == 0:  # links must carry the port picked
        state.config = replace(state.config, base_url=f"http://{args.host}:{port}")
    table = await state.registry.get(table_id)
    if table is None:
        settings = TableSettings.from_record(
            {"seats": args.seats, "preset": args.preset, "language": args.language}
        )
        table = await state.registry.create(settings, table_id)
    print(json.dumps(state.links(table)), flush=True)
    await serving
    return 0


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    try:
        creds = credentials(os.environ)
    except ValueError as error:
        print(f"autohost livekit: {error}", file=sys.stderr)
        return 2
    try:
        return asyncio.run(run(args, creds))
    except KeyboardInterrupt:
        return 0
