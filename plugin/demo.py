"""`autohost demo`: one table in the browser, its empty seats taken by simulated players.

    autohost demo [--port 8000] [--host 127.0.0.1] [--seats 10] [--humans 1] [--speed 1]
                  [--lang uk] [--no-voice] [--preset online] [--seed N] [--db var/demo.db]
    autohost demo --terminal [--speed 1] [--lang uk]     # issue 2's text-only day vote

It starts the server (the WebSocket protocol, the pages, the embedded WebRTC room with the
table's voice), creates one table whose timers are the preset's divided by --speed, fills
seats --humans+1 .. --seats with simulated players (plugin.sim: the same protocol and the
same WebRTC route as a browser), and prints a link for every seat and for the host
console. With --humans 0 the game starts by itself once every bot has joined; otherwise
the host starts it from the console ("next", the space bar). Ctrl-C stops it cleanly:
the bots leave, every table's microphones are given back, the log is checkpointed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import secrets
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import uvicorn

from plugin.host.commands import HOST, Command
from plugin.host.registry import new_table_id
from plugin.host.settings import LANGUAGES, TableSettings
from plugin.rooms.embedded.hosting import (
    EmbeddedTables,
    server_routes,
    use_host_and_loopback_ice,
)
from plugin.web.app import Server, ServerConfig, create_app
from plugin.web.tokens import load_admin_key, table_links

log = logging.getLogger(__name__)

DEFAULT_DB = Path("var/demo.db")
JOIN_TIMEOUT = 30.0


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="autohost demo", description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000, help="0 picks a free port")
    parser.add_argument("--seats", type=int, default=10)
    parser.add_argument("--humans", type=int, default=1, help="seats 1..N are left for people")
    parser.add_argument("--speed", type=float, default=1.0, help="divide every timer by this")
    parser.add_argument("--lang", default="uk", choices=LANGUAGES)
    parser.add_argument("--no-voice", action="store_true", help="the host stays silent")
    parser.add_argument("--preset", default="online")
    parser.add_argument("--seed", type=int, default=None, help="deals the roles (random)")
    parser.add_argument("--db", type=Path, default=DEFAULT_DB)
    parser.add_argument("--terminal", action="store_true", help="text-only day vote")
    args = parser.parse_args(list(argv))
    if not args.speed > 0:
        parser.error("--speed must be a positive number")
    if not 7 <= args.seats <= 12:
        parser.error("--seats must be 7..12")
    if not 0 <= args.humans <= args.seats:
        parser.error(f"--humans must be 0..{args.seats}")
    return args


async def run_demo(args: argparse.Namespace, *, ready: asyncio.Event | None = None) -> int:
    """The browser demo; returns when the server stops (Ctrl-C / SIGTERM)."""
    from plugin.sim import SimPlayer
    from plugin.sim.speed import scaled_timers

    use_host_and_loopback_ice()
    table_id = new_table_id()
    tables = EmbeddedTables(table_id=table_id, voice=not args.no_voice)
    base_url = f"http://{args.host}:{args.port}"
    config = ServerConfig(
        db_path=args.db,
        admin_key=load_admin_key(args.db),
        base_url=base_url,
        room_factory=tables.room,
        voice_factory=tables.voice,
        routes=server_routes(tables),
    )
    app = create_app(config)
    server = uvicorn.Server(
        uvicorn.Config(app, host=args.host, port=args.port, log_level="warning", lifespan="on")
    )
    serving = asyncio.create_task(server.serve(), name="demo server")
    while not server.started and not serving.done():
        await asyncio.sleep(0.02)
    if not server.started:
        return 1
    port = server.servers[0].sockets[0].getsockname()[1]
    base_url = f"http://{args.host}:{port}"
    hosted: Server = app.state.server
    assert hosted.registry is not None
    settings = TableSettings(
        preset=args.preset,
        language=args.lang,
        seats=args.seats,
        seed=args.seed if args.seed is not None else secrets.randbits(31),
        overrides=scaled_timers(args.preset, args.speed),
    )
    table = await hosted.registry.create(settings, table_id=table_id)
    links = table_links(hosted.signer, base_url, table_id, args.seats)
    bots = [
        SimPlayer(
            base_url,
            table_id,
            seat["seat"],
            seat["token"],
            seed=settings.seed,
            lang=args.lang,
            voice=not args.no_voice,
            speech_seconds=max(1.0, 6.0 / args.speed),
            think_seconds=max(0.3, 3.0 / args.speed),
        )
        for seat in links["seats"][args.humans :]
    ]
    _print_links(links, args, base_url)
    watcher = asyncio.create_task(_stop_bots_on_exit(server, bots), name="demo bots")
    try:
        await asyncio.gather(*(bot.start() for bot in bots))
        print(f"autohost demo: {len(bots)} simulated players joined", flush=True)
        if args.humans == 0:
            await table.submit(HOST, Command(kind="start"))
            print("autohost demo: the game has started (no human seats)", flush=True)
        if ready is not None:
            ready.set()
        await serving
    finally:
        watcher.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await watcher
        await asyncio.gather(*(bot.stop() for bot in bots), return_exceptions=True)
        if not serving.done():
            server.should_exit = True
            await serving
    return 0


async def _stop_bots_on_exit(server: uvicorn.Server, bots: list[Any]) -> None:
    """When the server is asked to stop, the bots leave first (no reconnect attempts)."""
    while not server.should_exit:
        await asyncio.sleep(0.1)
    await asyncio.gather(*(bot.stop() for bot in bots), return_exceptions=True)


def _print_links(links: dict[str, Any], args: argparse.Namespace, base_url: str) -> None:
    print(f"autohost demo: table {links['id']} on {base_url} (db {args.db})", flush=True)
    print(f"  host console: {links['host']['link']}")
    for seat in links["seats"]:
        who = "you" if seat["seat"] <= args.humans else "bot"
        print(f"  seat {seat['seat']:>2} ({who}): {seat['link']}")
    if args.humans:
        print("Open the console to start the game (the big key, or the space bar).")
    print("Ctrl-C stops the demo.", flush=True)


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    if args.terminal:
        from plugin.sim.terminal import run_terminal_vote

        asyncio.run(run_terminal_vote(lang=args.lang, speed=args.speed, preset=args.preset))
        return 0
    stopped_by: list[int] = []
    # uvicorn handles SIGINT/SIGTERM (graceful shutdown: the lifespan closes every table,
    # microphones given back, log checkpointed) and then re-raises the signal to the
    # previous handler: this one notes it, so Ctrl-C ends with status 0 (as in serve.py).
    for number in (signal.SIGTERM, signal.SIGINT):
        signal.signal(number, lambda sig, frame: stopped_by.append(sig))
    code = asyncio.run(run_demo(args))
    if stopped_by:
        print(f"autohost demo: stopped ({signal.Signals(stopped_by[0]).name})", flush=True)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
