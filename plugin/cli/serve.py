"""`autohost serve`: run the server with its tables and the SQLite event log.

    autohost serve [--config FILE] [--host 127.0.0.1] [--port 8000] [--db var/autohost.db|postgresql://...]
                   [--base-url URL] [--room embedded|livekit|none] [--no-voice]
                   [--admin-key-file F] [--tls-cert PEM --tls-key PEM] [--proxy-trusted ADDR]
                   [--ice-stun URL] [--ice-turn URL --ice-turn-secret-file F]
                   [--rtc-udp-ports LOW-HIGH] ...

Every setting can be given in a TOML file (`--config`, see config/server.example.toml and
docs/deploy.md); a flag wins over the file. With the embedded room (the default) every
table gets its WebRTC room, the voice in its language, the player and host pages and the
video mesh; `--room livekit` puts every table in its own room of a club's LiveKit server
(LIVEKIT_URL, LIVEKIT_API_KEY and LIVEKIT_API_SECRET from the environment; the room a
table names, else autohost-<id>), with one bot per table and one /livekit/webhook for
all; `--room none` serves the control protocol only. The admin key is never a flag (every
local user sees a process's arguments): a file, or $AUTOHOST_ADMIN_KEY.

Prints the listening URL once the tables are replayed and the socket is open. SIGTERM and
SIGINT stop it cleanly: every table's microphones given back, the log checkpointed. A bad
configuration exits with status 2 and says what is wrong.
"""

from __future__ import annotations

import argparse
import sys

from plugin.server import PortInUse, TlsFilesError, run, run_until_signalled
from plugin.server.config import ConfigError, add_flags, merged, options_from


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="autohost serve", description=__doc__.splitlines()[0])
    add_flags(parser)
    return parser.parse_args(argv)


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    try:
        options = options_from(merged(args))
    except ConfigError as error:
        print(f"autohost serve: {error}", file=sys.stderr)
        return 2
    try:
        return run_until_signalled(lambda: run(options), name="autohost")
    except (PortInUse, TlsFilesError) as error:  # a file changed since the check above
        print(f"autohost serve: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
