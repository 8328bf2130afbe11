"""LiveKit tables per core: many live tables in one server, players in another process.

    .venv/bin/python bench/livekit_tables.py [--tables 10] [--players 2] [--seconds 30]
                                             [--turn-every 5] [--no-voice] [--bot-quiet S]

One server (this process: the assembly of `autohost serve --room livekit`, listening on the
LiveKit server's webhook port so webhooks count) hosts `--tables` tables of 7 seats, each
in its own room of a real LiveKit server (.cache/bin/livekit-server) with its bot; the
first `--players` seats of every table are LiveKit participants in another process
(bench/_livekit_players.py: they hear the bot and the speaker, and publish a tone when the
engine lets them). Every table plays: the host starts it and moves to the next speaker
every `--turn-every` seconds (tables staggered), so the bots announce, permissions change
and webhooks arrive. CPU is this process's own (time.process_time, every thread).

The default pace (a turn every 5 s) is a stress: every bot talks most of the time, so every
bot's track stays published, and a published track costs the LiveKit SDK's Opus encoder
~1.6 % of a core whether it carries speech or silence (the SDK feeds it silence; measured
with 48, 24 and 16 kHz sources, DTX on and off, RED off, 24 kbit/s: no change), about
40 % of the server's CPU here. `--game-pace`: a turn every 60 s, a speech's length in
every preset, for 60 s; its figures have their own keys (*_game_pace).

Figures: livekit_tables_per_core = 100 % / CPU per playing table; the CPU per table of the
same tables idle in their lobbies (a bot that says nothing); turn change = the room's
set_speakers until the server answered (p50, max; goal < 50 ms).
Last line: JSON.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from plugin.host.commands import HOST, Command  # noqa: E402
from plugin.host.settings import TableSettings  # noqa: E402
from plugin.rooms.livekit.tokens import Credentials, player_token  # noqa: E402
from plugin.server import LiveKitOptions, ServerOptions, build, listening  # noqa: E402
from plugin.server.livekit import LiveKitTables  # noqa: E402
from plugin.testing.cpu import cpu_window  # noqa: E402
from plugin.testing.livekit_server import API_KEY, API_SECRET, running_server, server_binary  # noqa: E402

SEATS = 7


def timed(room, samples: list[float], recording: list[bool], waited: list[float]):
    """Wrap `room.set_speakers` to time it; `waited` gets the slow ones that first waited
    for the room's lock (a reconcile or another update in flight)."""
    method = room.set_speakers

    async def wrapper(seats):
        start, busy = time.perf_counter(), room._lock.locked()
        try:
            return await method(seats)
        finally:
            ms = (time.perf_counter() - start) * 1000
            if recording[0]:
                samples.append(ms)
                if busy and ms > 20:
                    waited.append(round(ms, 1))

    return wrapper


async def window(seconds: float, what: str) -> tuple[float, float]:
    measured = await cpu_window(seconds)
    print(f"{what}: {measured.percent:.1f} % of a core; busiest threads: {measured.busiest}")
    return measured.cpu, measured.wall


async def run(args: argparse.Namespace, lk, folder: Path) -> dict[str, float | None]:
    creds = Credentials(url=lk.ws_url, api_key=API_KEY, api_secret=API_SECRET)
    options = ServerOptions(
        port=lk.webhook_port, db=folder / "autohost.db", admin_key="bench", media="livekit",
        voice=not args.no_voice, livekit=LiveKitOptions(credentials=creds),
    )  # fmt: skip
    hosting = build(options)
    turn_ms: list[float] = []
    waited: list[float] = []
    recording = [False]
    async with listening(hosting.app, port=lk.webhook_port):
        registry = hosting.server.registry
        tables_ = hosting.tables
        assert registry is not None and isinstance(tables_, LiveKitTables)
        tables = []
        for number in range(args.tables):
            settings = TableSettings.from_record(
                {"seats": SEATS, "seed": number, "overrides": {"speech_seconds": 600}}
            )
            table = await registry.create(settings, f"bench{number:02d}")
            hosted = tables_.hosted[table.id]
            if args.bot_quiet is not None:
                hosted.bot.quiet_after = args.bot_quiet
            hosted.room.set_speakers = timed(hosted.room, turn_ms, recording, waited)  # type: ignore[method-assign]
            tables.append(table)
        tokens = [
            player_token(creds, tables_.rooms_by_table[table.id], seat)
            for table in tables
            for seat in range(1, args.players + 1)
        ]
        players = subprocess.Popen(
            [sys.executable, str(ROOT / "bench" / "_livekit_players.py")],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=ROOT,
        )  # fmt: skip
        try:
            assert players.stdin is not None and players.stdout is not None
            players.stdin.write(json.dumps({"url": lk.ws_url, "tokens": tokens}) + "\n")
            players.stdin.flush()
            line = await asyncio.wait_for(asyncio.to_thread(players.stdout.readline), 120)
            assert line.strip() == "ready", line
            deadline = time.monotonic() + 60
            while not all(len(t.present) == args.players for t in tables):
                assert time.monotonic() < deadline, [sorted(t.present) for t in tables]
                await asyncio.sleep(0.1)
            await asyncio.sleep(2)
            idle_cpu, idle_wall = await window(min(args.seconds, 10.0), "idle")
            for table in tables:
                outcome = await table.submit(HOST, Command(kind="start"))
                assert outcome.ok, outcome
            await asyncio.sleep(3)  # warm up: the first announcements are rendered

            stop = asyncio.Event()
            refused = 0

            async def play(table, offset: float) -> None:
                nonlocal refused
                await asyncio.sleep(offset)
                while not stop.is_set():
                    outcome = await table.submit(HOST, Command(kind="next"))
                    refused += not outcome.ok
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(stop.wait(), args.turn_every)

            step = args.turn_every / len(tables)
            playing = [asyncio.create_task(play(t, i * step)) for i, t in enumerate(tables)]
            await asyncio.sleep(args.turn_every)  # every table had its first turn
            recording[0] = True
            profile = os.environ.get("LIVEKIT_BENCH_PROFILE")  # a file: cProfile the loop
            profiler = cProfile.Profile() if profile else None
            if profiler is not None:
                profiler.enable()
            busy_cpu, busy_wall = await window(args.seconds, "playing")
            if profiler is not None:
                profiler.disable()
                profiler.dump_stats(profile)
            recording[0] = False
            stop.set()
            await asyncio.gather(*playing)
            phases = sorted({t.state.phase.value for t in tables})
        finally:
            if players.stdin is not None:
                players.stdin.close()
            try:
                players.wait(timeout=30)
            except subprocess.TimeoutExpired:
                players.kill()
                players.wait()
    bots = [tables_.hosted[t.id].bot for t in tables]
    starts = sorted(d * 1000 for b in bots for d in b.start_delays)
    publishes = sorted(d * 1000 for b in bots for d in b.publish_seconds)
    captures = sum(b.captures for b in bots)
    print(
        f"bots: {sum(b.frames_sent for b in bots)} frames sent in {captures} captures, "
        f"{sum(b.publishes for b in bots)} publishes (p50 {_median(publishes)} ms, max "
        f"{_top(publishes)} ms); a phrase's first frame to its capture p50 "
        f"{_median(starts)} ms, max {_top(starts)} ms"
    )
    per_table = busy_cpu / busy_wall * 100 / len(tables)
    slowest = [round(ms, 1) for ms in sorted(turn_ms)[-5:]]
    idle_per_table = idle_cpu / idle_wall * 100 / len(tables)
    print(
        f"{len(tables)} tables x {args.players} players, voice {'off' if args.no_voice else 'on'}"
        f", a turn every {args.turn_every:g} s per table: {per_table:.2f} % of a core per "
        f"playing table ({100 / per_table:.1f} tables per core), {idle_per_table:.2f} % per "
        f"idle table; {len(turn_ms)} turn changes p50 {statistics.median(turn_ms):.1f} ms, "
        f"max {max(turn_ms):.1f} ms (slowest {slowest}, behind the room's lock {waited}); "
        f"refused {refused}; "
        f"phases {phases}"
    )
    if args.game_pace:  # the same tables at a real game's pace: its own keys
        return {
            "livekit_tables_per_core_game_pace": round(100 / per_table, 1),
            "livekit_table_cpu_percent_game_pace": round(per_table, 2),
            "livekit_tables_turn_change_max_ms_game_pace": round(max(turn_ms), 1),
        }
    return {
        "livekit_tables_per_core": round(100 / per_table, 1),
        "livekit_table_cpu_percent": round(per_table, 2),
        "livekit_idle_table_cpu_percent": round(idle_per_table, 2),
        "livekit_tables_turn_change_p50_ms": round(statistics.median(turn_ms), 1),
        "livekit_tables_turn_change_max_ms": round(max(turn_ms), 1),
        "livekit_bot_phrase_start_p50_ms": _median(starts),
        "livekit_bot_phrase_start_max_ms": _top(starts),
    }


def _median(values: list[float]) -> float | None:
    return round(statistics.median(values), 1) if values else None


def _top(values: list[float]) -> float | None:
    return round(max(values), 1) if values else None


async def main(args: argparse.Namespace) -> dict[str, float | None]:
    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
    binary = server_binary()
    if binary is None:
        print("real server: .cache/bin/livekit-server missing, skipped")
        return dict.fromkeys(
            ["livekit_tables_per_core", "livekit_table_cpu_percent",
             "livekit_idle_table_cpu_percent", "livekit_tables_turn_change_p50_ms",
             "livekit_tables_turn_change_max_ms", "livekit_bot_phrase_start_p50_ms",
             "livekit_bot_phrase_start_max_ms"]
        )  # fmt: skip
    with tempfile.TemporaryDirectory() as folder, running_server(binary, Path(folder)) as lk:
        return await run(args, lk, Path(folder))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=10)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--turn-every", type=float, default=5.0)
    parser.add_argument("--no-voice", action="store_true")
    parser.add_argument(
        "--game-pace",
        action="store_true",
        help="a turn every 60 s (a speech's length) for 60 s, reported under *_game_pace",
    )
    parser.add_argument(
        "--bot-quiet",
        type=float,
        default=None,
        help="seconds of quiet before a bot unpublishes (default: the bot's)",
    )
    arguments = parser.parse_args()
    if arguments.game_pace:  # unless told otherwise (bench/run --quick)
        defaults = parser.parse_args([])
        if arguments.turn_every == defaults.turn_every:
            arguments.turn_every = 60.0
        if arguments.seconds == defaults.seconds:
            arguments.seconds = 60.0
    print(json.dumps(asyncio.run(main(arguments))))
