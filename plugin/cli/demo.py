"""`autohost demo`: one table in the browser, its empty seats taken by simulated players.

    autohost demo [--port 8000] [--host 127.0.0.1] [--seats 10] [--humans 1] [--speed 1]
                  [--lang uk] [--no-voice] [--no-video] [--preset online] [--seed N]
                  [--db var/demo.db]
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
import logging
import sys
from collections.abc import Sequence
from pathlib import Path

from plugin.host.registry import new_table_id
from plugin.host.settings import LANGUAGES
from plugin.server import PortInUse, ServerOptions, run, run_until_signalled

DEFAULT_DB = Path("var/demo.db")


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="autohost demo", description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000, help="0 picks a free port")
    parser.add_argument("--seats", type=int, default=10)
    parser.add_argument("--humans", type=int, default=1, help="seats 1..N are left for people")
    parser.add_argument("--speed", type=float, default=1.0, help="divide every timer by this")
    parser.add_argument("--lang", default="uk", choices=LANGUAGES)
    parser.add_argument("--no-voice", action="store_true", help="the host stays silent")
    parser.add_argument("--no-video", action="store_true", help="the bots send no picture")
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


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    if args.terminal:
        from plugin.sim.terminal import run_terminal_vote

        asyncio.run(run_terminal_vote(lang=args.lang, speed=args.speed, preset=args.preset))
        return 0
    from plugin.server.demo import DemoTable, demo_session

    demo = DemoTable(
        table_id=new_table_id(), seats=args.seats, humans=args.humans, speed=args.speed,
        language=args.lang, preset=args.preset, seed=args.seed, voice=not args.no_voice,
        video=not args.no_video,
    )  # fmt: skip
    options = ServerOptions(
        host=args.host, port=args.port, db=args.db, voice=not args.no_voice,
        voiced_table=demo.table_id,
    )  # fmt: skip
    session = demo_session(demo)
    try:
        return run_until_signalled(
            lambda: run(options, name="autohost demo", session=session), name="autohost demo"
        )
    except PortInUse as error:
        print(f"autohost demo: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
