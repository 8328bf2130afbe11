"""The `autohost` command. Each subcommand lives in the module that owns it and is
imported only when used, so `autohost scenario` never loads aiortc or LiveKit."""

from __future__ import annotations

import importlib
import sys

# name -> (module, function, one-line help). The function takes argv (list[str]) -> int.
COMMANDS: dict[str, tuple[str, str, str]] = {
    "scenario": ("plugin.cli.scenario", "main", "run one conformance scenario file"),
    "simulate": (
        "plugin.cli.simulate",
        "main",
        "play many games with random legal actions, or a whole tournament",
    ),
    "protocol": ("plugin.cli.protocol", "main", "export a game's protocol (JSON or HTML)"),
    "serve": ("plugin.cli.serve", "main", "run the server with its tables"),
    "table": ("plugin.cli.table", "main", "create tables (autohost table new ...)"),
    "demo": ("plugin.cli.demo", "main", "one table with simulated players, in the browser"),
    "say": ("voice.cli", "say_main", "render one announcement to a WAV file"),
    "phrases": ("voice.cli", "phrases_main", "check the phrase catalogues"),
    "voice": ("voice.cli", "voice_main", "the voice: list engines; a club's recorded voice"),
    "livekit": ("plugin.cli.livekit", "main", "host a table in a LiveKit room"),
    "player": ("plugin.cli.player", "main", "the club's roster: add, link, revoke, grant, list"),
    "tournament": ("plugin.cli.tournament", "main", "a club's tournament: new, seat, show, ..."),
}


def usage() -> str:
    lines = ["usage: autohost COMMAND [ARGS...]", "", "commands:"]
    lines += [f"  {name:<10} {text}" for name, (_, _, text) in COMMANDS.items()]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not args or args[0] in {"-h", "--help"}:
        print(usage())
        return 0
    name, rest = args[0], args[1:]
    if name not in COMMANDS:
        print(f"autohost: unknown command {name!r}\n\n{usage()}", file=sys.stderr)
        return 2
    module, function, _ = COMMANDS[name]
    command = getattr(importlib.import_module(module), function)
    try:
        return int(command(rest) or 0)
    except Exception as error:
        # An event log or key file that cannot be used (a folder, an empty or damaged
        # file): one line that names it, for every command, never a traceback.
        from plugin.eventlog import BadLogFile
        from plugin.signing import BadKeyFile

        if isinstance(error, BadLogFile | BadKeyFile):
            print(f"autohost {name}: {error}", file=sys.stderr)
            return 2
        raise


if __name__ == "__main__":
    sys.exit(main())
