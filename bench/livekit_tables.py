"""LiveKit tables per core: many live tables in one server, players in another process.

    .venv/bin/python bench/livekit_tables.py --game [--tables 10] [--players 2]
                                             [--seconds 150] [--speech 30]
    .venv/bin/python bench/livekit_tables.py [--tables 10] [--players 2] [--seconds 30]
                                             [--turn-every 5] [--no-voice] [--bot-quiet S]

One server (this process: the assembly of `autohost serve --room livekit`, listening on the
LiveKit server's webhook port so webhooks count) hosts `--tables` tables, each in its own
room of a real LiveKit server (.cache/bin/livekit-server) with its bot; the players are
LiveKit participants in another process (bench/_livekit_players.py). CPU is this process's
own (time.process_time, every thread).

`--game` (the figure, livekit_tables_per_core): tables of 10 seats play whole games under
the online preset's own timers. Every seat is a participant that plays as the widget does:
hello and commands by RPC to the bot, its view from the bot's data messages, its moves from
plugin.sim.Strategy (nominations, votes, night actions; a speech passed after `--speech`
seconds, 30 by default: half the preset's minute, so the bots announce more often than in
a club). The first `--players` seats of each table also hear the room and publish a tone
when the engine lets them. So the server does what it does in a club: the bots announce
every phase, permissions change at every turn, every view goes to ten participants, every
input is in the log before its ack. Table N passed its first speeches at once (1 s each), so
the tables are spread over the day (speeches, the vote, the night) when the window opens.

The default (the stress, *_stress keys): tables of 7 seats whose host moves to the next
speaker every `--turn-every` seconds (tables staggered), the first `--players` seats in the
room. At 5 s every bot talks most of the time, so every bot's track stays published, and a
published track costs the LiveKit SDK's Opus encoder ~2 % of a core whether it carries
speech or silence (measured with 48, 24 and 16 kHz sources, DTX on and off, RED off,
24 kbit/s: no change).

Figures: tables per core = 100 % / CPU per playing table; the CPU per table of the same
tables idle in their lobbies (a bot that says nothing); turn change = the room's
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
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from plugin.host.inputs import HOST, Next, Start  # noqa: E402
from plugin.host.settings import TableSettings  # noqa: E402
from plugin.rooms.livekit.tokens import Credentials, player_token  # noqa: E402
from plugin.server import LiveKitOptions, ServerOptions, build, listening  # noqa: E402
from plugin.server.livekit import LiveKitTables  # noqa: E402
from testing.cpu import cpu_window  # noqa: E402
from testing.livekit_server import API_KEY, API_SECRET, running_server, server_binary  # noqa: E402

SEATS = 7  # the stress's tables
GAME_SEATS = 10


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
    seats = GAME_SEATS if args.game else SEATS
    summary: dict[str, int] = {}
    async with listening(hosting.app, port=lk.webhook_port):
        registry = hosting.server.registry
        tables_ = hosting.tables
        assert registry is not None and isinstance(tables_, LiveKitTables)
        tables = []
        for number in range(args.tables):
            # --game: the online preset as it is; the stress: the host moves every turn
            record = {"seats": seats, "seed": number}
            if not args.game:
                record["overrides"] = {"speech_seconds": 600}
            table = await registry.create(TableSettings.from_record(record), f"bench{number:02d}")
            hosted = tables_.hosted[table.id]
            if args.bot_quiet is not None:  # one quiet spell in every phase
                hosted.bot.quiet_after = args.bot_quiet
                hosted.bot.set_quiet_after = lambda seconds: None  # type: ignore[method-assign]
            hosted.room.set_speakers = timed(hosted.room, turn_ms, recording, waited)  # type: ignore[method-assign]
            tables.append(table)
        # --game: table N's players pass its first fast[N] speeches at once (spread the day)
        fast = [round(number * seats / len(tables)) for number in range(len(tables))]
        if args.game:  # every seat plays; the first --players of each also hear and speak
            entries: list[Any] = [
                {
                    "token": player_token(creds, tables_.rooms_by_table[table.id], seat),
                    "media": seat <= args.players, "seed": number, "speech": args.speech,
                    "think": 3.0, "fast": fast[number],
                }
                for number, table in enumerate(tables)
                for seat in range(1, seats + 1)
            ]  # fmt: skip
            spec: dict[str, Any] = {"url": lk.ws_url, "players": entries}
            present = seats
        else:
            entries = [
                player_token(creds, tables_.rooms_by_table[table.id], seat)
                for table in tables
                for seat in range(1, args.players + 1)
            ]
            spec, present = {"url": lk.ws_url, "tokens": entries}, args.players
        # The players' own computers do their work in a club: here, at a lower priority,
        # they take what the server and LiveKit leave of these two cores (their CPU is
        # not counted either way; the turn changes are timed against what is left).
        players = subprocess.Popen(
            [sys.executable, str(ROOT / "bench" / "_livekit_players.py")],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=ROOT,
            preexec_fn=lambda: os.nice(10),
        )  # fmt: skip
        try:
            assert players.stdin is not None and players.stdout is not None
            players.stdin.write(json.dumps(spec) + "\n")
            players.stdin.flush()
            line = await asyncio.wait_for(asyncio.to_thread(players.stdout.readline), 300)
            assert line.strip() == "ready", line
            deadline = time.monotonic() + 60
            while not all(len(t.present) == present for t in tables):
                assert time.monotonic() < deadline, [sorted(t.present) for t in tables]
                await asyncio.sleep(0.1)
            await asyncio.sleep(2)
            idle_cpu, idle_wall = await window(min(args.seconds, 10.0), "idle")
            for table in tables:
                outcome = await table.submit(HOST, Start())
                assert outcome.ok, outcome

            stop = asyncio.Event()
            refused = 0

            async def play(table, offset: float) -> None:
                nonlocal refused
                await asyncio.sleep(offset)
                while not stop.is_set():
                    outcome = await table.submit(HOST, Next())
                    refused += not outcome.ok
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(stop.wait(), args.turn_every)

            if args.game:  # the players play; table N passes its first speeches quickly
                playing = []
                deadline = time.monotonic() + args.warm_up
                while time.monotonic() < deadline and not all(
                    _past_fast(t, fast[n]) for n, t in enumerate(tables)
                ):
                    await asyncio.sleep(0.5)
            else:
                await asyncio.sleep(3)  # warm up: the first announcements are rendered
                step = args.turn_every / len(tables)
                playing = [asyncio.create_task(play(t, i * step)) for i, t in enumerate(tables)]
                await asyncio.sleep(args.turn_every)  # every table had its first turn
            before = [_where(t) for t in tables]
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
            after = [_where(t) for t in tables]
            if args.game:
                moved = (f"{a} -> {b}" for a, b in zip(before, after, strict=True))
                print("tables from/to: " + "; ".join(moved))
            phases = sorted({t.state.phase.value for t in tables})
        finally:
            summary = await _finish(players)
    bots = [tables_.hosted[t.id].bot for t in tables]
    starts = sorted(d * 1000 for b in bots for d in b.start_delays)
    publishes = sorted(d * 1000 for b in bots for d in b.publish_seconds)
    captures = sum(b.captures for b in bots)
    print(
        f"bots: {sum(b.frames_sent for b in bots)} frames sent in {captures} captures, "
        f"{sum(b.publishes for b in bots)} publishes (p50 {_median(publishes)} ms, max "
        f"{_top(publishes)} ms); a phrase's first frame to its capture p50 "
        f"{_median(starts)} ms, max {_top(starts)} ms; players: {summary}"
    )
    per_table = busy_cpu / busy_wall * 100 / len(tables)
    slowest = [round(ms, 1) for ms in sorted(turn_ms)[-5:]]
    idle_per_table = idle_cpu / idle_wall * 100 / len(tables)
    pace = "playing games" if args.game else f"a turn every {args.turn_every:g} s"
    print(
        f"{len(tables)} tables x {present} players, voice {'off' if args.no_voice else 'on'}"
        f", {pace} per table: {per_table:.2f} % of a core per "
        f"playing table ({100 / per_table:.1f} tables per core), {idle_per_table:.2f} % per "
        f"idle table; {len(turn_ms)} turn changes p50 {_median(turn_ms)} ms, "
        f"max {_top(turn_ms)} ms (slowest {slowest}, behind the room's lock {waited}); "
        f"refused {refused}; "
        f"phases {phases}"
    )
    suffix = "" if args.game else "_stress"
    figures: dict[str, float | None] = {
        f"livekit_tables_per_core{suffix}": round(100 / per_table, 1),
        f"livekit_table_cpu_percent{suffix}": round(per_table, 2),
        f"livekit_tables_turn_change_p50_ms{suffix}": _median(turn_ms),
        f"livekit_tables_turn_change_max_ms{suffix}": _top(turn_ms),
    }
    if args.game:
        figures |= {
            "livekit_idle_table_cpu_percent": round(idle_per_table, 2),
            "livekit_bot_phrase_start_p50_ms": _median(starts),
            "livekit_bot_phrase_start_max_ms": _top(starts),
        }
    return figures


async def _finish(players: subprocess.Popen[str]) -> dict[str, int]:
    """Close the players' stdin (they stop), read their summary, wait for them to go, off
    the event loop: the bots are still playing meanwhile."""

    def finish() -> dict[str, int]:
        assert players.stdin is not None and players.stdout is not None
        with contextlib.suppress(BrokenPipeError):
            players.stdin.close()
        try:
            line = players.stdout.readline()
            players.wait(timeout=40)
        except subprocess.TimeoutExpired:
            players.kill()
            players.wait()
        try:
            return dict(json.loads(line))
        except ValueError:
            return {}

    return await asyncio.to_thread(finish)


def _past_fast(table, fast: int) -> bool:
    """Whether a table is past the speeches its players pass at once (day 1, seats up to
    `fast`)."""
    state = table.state
    if state.day > 1:
        return True
    return state.day == 1 and (state.phase.value != "speech" or (state.speaker or 0) > fast)


def _where(table) -> str:
    """Where a table's game is: day, phase, speaker."""
    state = table.state
    speaker = getattr(state, "speaker", None)
    return f"d{state.day} {state.phase.value}" + (f" {speaker}" if speaker else "")


def _median(values: list[float]) -> float | None:
    return round(statistics.median(values), 1) if values else None


def _top(values: list[float]) -> float | None:
    return round(max(values), 1) if values else None


async def main(args: argparse.Namespace) -> dict[str, float | None]:
    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
    binary = server_binary()
    if binary is None:
        print("real server: .cache/bin/livekit-server missing, skipped")
        return {}
    with tempfile.TemporaryDirectory() as folder, running_server(binary, Path(folder)) as lk:
        return await run(args, lk, Path(folder))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", action="store_true", help="whole games played (the figure)")
    parser.add_argument("--tables", type=int, default=10)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=None, help="30; 150 with --game")
    parser.add_argument("--speech", type=float, default=30.0, help="--game: a speech's length")
    parser.add_argument(
        "--warm-up", type=float, default=240.0, help="--game: at most this long before the window"
    )
    parser.add_argument("--turn-every", type=float, default=5.0)
    parser.add_argument("--no-voice", action="store_true")
    parser.add_argument(
        "--bot-quiet",
        type=float,
        default=None,
        help="seconds of quiet before a bot unpublishes, in every phase (default: the room's)",
    )
    arguments = parser.parse_args()
    if arguments.seconds is None:
        arguments.seconds = 150.0 if arguments.game else 30.0
    print(json.dumps(asyncio.run(main(arguments))))
