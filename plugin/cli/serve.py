"""`autohost serve`: run the server with its tables and the SQLite event log.

    autohost serve [--host 127.0.0.1] [--port 8000] [--db var/autohost.db|postgresql://...]
                   [--admin-key K]
                   [--base-url URL] [--room embedded|none] [--no-voice]

With the embedded room (the default) every table gets its WebRTC room, the voice in its
language, the player and host pages and the video mesh; `--room none` serves the control
protocol only (a LiveKit deployment uses `autohost livekit`).

Prints the listening URL once the tables are replayed and the socket is open. SIGTERM and
SIGINT stop it cleanly: every table's microphones given back, the log checkpointed.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from plugin.eventlog import is_url
from plugin.server import DEFAULT_DB, PortInUse, ServerOptions, run, run_until_signalled


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="autohost serve", description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000, help="0 picks a free port")
    parser.add_argument("--db", default=str(DEFAULT_DB), help="the SQLite event log, or a "
                        "postgresql:// URL shared by several servers")  # fmt: skip
    parser.add_argument("--admin-key", default=None, help="default: $AUTOHOST_ADMIN_KEY or "
                        "the file <db>.admin-key (created once)")  # fmt: skip
    parser.add_argument("--base-url", default=None, help="links' base (default: listen URL)")
    parser.add_argument("--room", choices=("embedded", "none"), default="embedded")
    parser.add_argument("--no-voice", action="store_true", help="the host stays silent")
    return parser.parse_args(argv)


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    options = ServerOptions(
        host=args.host,
        port=args.port,
        db=args.db if is_url(args.db) else Path(args.db),
        admin_key=args.admin_key,
        base_url=args.base_url,
        media=args.room,
        voice=not args.no_voice,
    )
    try:
        return run_until_signalled(lambda: run(options), name="autohost")
    except PortInUse as error:
        print(f"autohost serve: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
