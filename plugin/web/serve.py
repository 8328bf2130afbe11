"""`autohost serve`: run the server with its tables and the SQLite event log.

    autohost serve [--host 127.0.0.1] [--port 8000] [--db var/autohost.db] [--admin-key K]
                   [--base-url URL] [--room embedded|none] [--no-voice]

With the embedded room (the default) every table gets its WebRTC room, the voice in its
language, the player and host pages and the video mesh; `--room none` serves the control
protocol only (a LiveKit deployment uses `autohost livekit`).

Prints the listening URL once the tables are replayed and the socket is open. SIGTERM and
SIGINT stop it cleanly: every table's microphones given back, the log checkpointed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sys
from dataclasses import replace
from pathlib import Path

import uvicorn

from .app import ServerConfig, create_app
from .tokens import load_admin_key

DEFAULT_DB = Path("var/autohost.db")


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="autohost serve", description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000, help="0 picks a free port")
    parser.add_argument("--db", type=Path, default=DEFAULT_DB, help="the SQLite event log")
    parser.add_argument("--admin-key", default=None, help="default: $AUTOHOST_ADMIN_KEY or "
                        "the file <db>.admin-key (created once)")  # fmt: skip
    parser.add_argument("--base-url", default=None, help="links' base (default: listen URL)")
    parser.add_argument("--room", choices=("embedded", "none"), default="embedded")
    parser.add_argument("--no-voice", action="store_true", help="the host stays silent")
    return parser.parse_args(argv)


async def serve(args: argparse.Namespace) -> int:
    admin_key = load_admin_key(args.db, args.admin_key)
    base_url = args.base_url or f"http://{args.host}:{args.port}"
    config = ServerConfig(db_path=args.db, admin_key=admin_key, base_url=base_url)
    if args.room == "embedded":
        from plugin.rooms.embedded.hosting import (
            EmbeddedTables,
            server_routes,
            use_host_and_loopback_ice,
        )

        use_host_and_loopback_ice()
        tables = EmbeddedTables(voice=not args.no_voice)
        config = replace(
            config,
            room_factory=tables.room,
            voice_factory=tables.voice,
            routes=server_routes(tables),
        )
    server = uvicorn.Server(
        uvicorn.Config(
            create_app(config),
            host=args.host,
            port=args.port,
            log_level="warning",
            lifespan="on",
            # A state message is ~1.5 KiB; deflating it cost a quarter of the send path's CPU
            # (bench/vote_latency.py profile, 600 clients), more than the bytes are worth.
            ws_per_message_deflate=False,
        )
    )
    task = asyncio.create_task(server.serve())
    while not server.started and not task.done():
        await asyncio.sleep(0.02)
    if server.started:
        port = server.servers[0].sockets[0].getsockname()[1]
        print(f"autohost: listening on http://{args.host}:{port} (db {args.db})", flush=True)
    await task
    return 0 if server.started else 1


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    stopped_by: list[int] = []
    # uvicorn handles SIGTERM/SIGINT itself (graceful shutdown: the lifespan closes every
    # table), then re-raises the signal to the handler that was there before it. This one
    # only notes it, so a clean stop ends with status 0 instead of death by signal.
    for number in (signal.SIGTERM, signal.SIGINT):
        signal.signal(number, lambda sig, frame: stopped_by.append(sig))
    code = asyncio.run(serve(args))
    if stopped_by:
        # Whoever started us may have stopped reading our output already.
        with contextlib.suppress(BrokenPipeError):
            print(f"autohost: stopped ({signal.Signals(stopped_by[0]).name})", flush=True)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
