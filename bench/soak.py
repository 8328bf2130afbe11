"""The failover soak: 3 `autohost serve --room livekit` × 20 tables on one PostgreSQL and one
LiveKit server, servers SIGKILLed and SIGSTOPped at random (then restarted / SIGCONTed) for
5 minutes while every table plays.

- PostgreSQL: a fresh cluster (testing/postgres.py); LiveKit: the real server
  (testing/livekit_server.py, its webhooks to the first server's port).
- Every table plays from start to end with simulated players (plugin.sim.Strategy: the
  same moves for the same views and seed) over the servers' WebSocket API, as a real client
  would: an input refused with "try again" (log_unavailable, stopping, table_moved), or
  whose socket died, is sent again with the same id on whichever server hosts the table
  now (tried in turn: no proxy). A finished table is replaced by a new one.
- `--livekit-tables` of them are also fully seated with real LiveKit participants
  (bench/_livekit_players.py, in their own process: they publish a tone when allowed).
- Chaos: every few seconds one server (never the last healthy one) is SIGKILLed and
  restarted a moment later, or SIGSTOPped for 1 to 6 s (shorter or longer than a lease)
  and SIGCONTed, or (any server) its way to LiveKit blips: each server reaches LiveKit
  (its bots and its RoomService calls) through a TCP proxy of its own
  (testing/tcp_proxy.py), reset or stalled for 0.5 to 8 s at random (issue 30).

Figures (goals 0): `soak_lost_acks` — acked inputs missing from the log at the end (each
acked client id must be there; the unique index makes "more than once" impossible, and
it is checked too); `soak_double_hosted` — moments two servers reported hosting one table
(every server's GET /api/tables, polled in parallel twice a second), or a server reported
a table whose live lease row names another owner in two polls running;
`soak_two_open_mics` — ListParticipants (livekit-api RoomService) polls of a seated room
with more than two open microphones, or two for longer than a handover (3 s). Not counted
once the room's game is over: the microphones are given back to everyone at the end, by
design, and that release is carried out a moment before any client sees the end (a poll
up to GAME_OVER_SECONDS before a widget saw it is the release, not a fault).
`soak_wrong_mic_s` — the seconds in which a seated room's open microphones (the same polls)
differed from the engine's speakers (the latest view a simulated page got) for longer than
1 s (goal 0). Informational: kills, stops, blips, failovers (epochs taken over), inputs
acked, retries.

    .venv/bin/python bench/soak.py [--seconds 300] [--tables 20] [--livekit-tables 3]
                                   [--servers 3] [--seed N] [--quick]

The seed is printed first; the last line is the JSON of figures.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402
import psycopg  # noqa: E402
from livekit import api  # noqa: E402

from plugin.rooms.livekit.permissions import PublishPermission  # noqa: E402
from plugin.rooms.livekit.tokens import Credentials, player_token  # noqa: E402
from plugin.server.livekit import ROOM_PREFIX  # noqa: E402
from plugin.sim import Strategy  # noqa: E402
from plugin.sim.speed import scaled_timers  # noqa: E402
from testing import AsyncClient, ServerProcess  # noqa: E402
from testing.livekit_server import (  # noqa: E402
    API_KEY,
    API_SECRET,
    running_server,
    server_binary,
)
from testing.postgres import PostgresServer, binaries  # noqa: E402
from testing.tcp_proxy import TcpProxy  # noqa: E402

RETRY = {"log_unavailable", "stopping", "table_moved", "table_elsewhere", "not_ready"}
HANDOVER_SECONDS = 3.0  # two open microphones for longer than this is not a handover
GAME_OVER_SECONDS = 5.0  # the end's release, before a widget on a busy machine saw the end
ALLOWED_OPEN = 2
WRONG_MIC_SECONDS = 1.0  # open microphones may differ from the speakers this long
SPEED = 10.0  # timers of the online preset divided by this (a 60 s speech: 6 s)
CONNECT_SECONDS = 3.0  # a socket to a paused server never opens: try the next one
GIVE_UP_SECONDS = 30.0  # an input not acked by then is abandoned (not counted as acked)
SETTLE_SECONDS = 30.0  # after the chaos: every table hosted again
API_SECONDS = 30.0  # an admin call (a new table joins its LiveKit room) on a loaded machine
STALL_SECONDS = 8.0  # no new state for this long (timers are 6 s at most): the host moves on


@dataclass
class Tally:
    acked: dict[str, set[str]] = field(default_factory=dict)  # table -> "seat/id" keys
    sent: int = 0
    retries: int = 0
    abandoned: int = 0
    kills: int = 0
    stops: int = 0
    games_finished: int = 0
    doubles: list[str] = field(default_factory=list)
    lease_mismatch: dict[tuple[str, str], int] = field(default_factory=dict)
    open_mics: list[tuple[str, float, str]] = field(default_factory=list)  # table, when, what
    over_at: dict[str, float] = field(default_factory=dict)  # table -> its end first seen
    mic_polls: int = 0
    blips: int = 0
    wrong_mic_s: float = 0.0
    wrong_mic: list[str] = field(default_factory=list)  # the first few, for the log
    host_polls: int = 0


class Cluster:
    def __init__(self, servers: list[ServerProcess]) -> None:
        self.servers = servers
        self.paused: set[int] = set()  # indexes SIGSTOPped now
        self.down: set[int] = set()  # indexes killed, not restarted yet

    def healthy(self) -> list[int]:
        return [i for i in range(len(self.servers)) if i not in self.paused | self.down]


class Soak:
    def __init__(self, args: argparse.Namespace, cluster: Cluster, creds: Credentials) -> None:
        self.args = args
        self.cluster = cluster
        self.creds = creds
        self.rng = random.Random(args.seed)
        self.tally = Tally()
        self.stopping = asyncio.Event()
        self.tasks: set[asyncio.Task[Any]] = set()
        self.rooms: dict[str, str] = {}  # seated table id -> its LiveKit room
        self.players: list[subprocess.Popen[str]] = []
        self.tables: list[str] = []
        self.proxies: list[TcpProxy] = []  # each server's way to LiveKit
        self.speakers: dict[str, set[int]] = {}  # table -> the engine's, as last viewed
        self._counter = 0

    def spawn(self, coroutine: Any) -> None:
        task = asyncio.ensure_future(coroutine)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    # --- tables and players -----------------------------------------------------------

    async def new_table(self, seated: bool) -> None:
        self._counter += 1
        record = {"seats": 10, "seed": self.args.seed * 1000 + self._counter,
                  "overrides": scaled_timers("online", SPEED)}  # fmt: skip
        links = await self.any_server("POST", "/api/tables", record)
        table_id = links["id"]
        self.tables.append(table_id)
        self.tally.acked[table_id] = set()
        if seated:
            room = ROOM_PREFIX + table_id
            self.rooms[table_id] = room
            tokens = [player_token(self.creds, room, seat) for seat in range(1, 11)]
            process = subprocess.Popen(
                [sys.executable, str(ROOT / "bench" / "_livekit_players.py")],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
            )  # fmt: skip
            assert process.stdin is not None
            process.stdin.write(json.dumps({"url": self.creds.url, "tokens": tokens}) + "\n")
            process.stdin.flush()
            self.players.append(process)
        self.spawn(self.play(table_id, links, seated))

    async def any_server(self, method: str, path: str, body: Any = None) -> Any:
        """An admin API call on a healthy server, the next one if it fails."""
        deadline = time.monotonic() + API_SECONDS * 4
        while True:
            for index in self.rng.sample(
                range(len(self.cluster.servers)), len(self.cluster.servers)
            ):
                if index not in self.cluster.healthy():
                    continue
                server = self.cluster.servers[index]
                try:
                    async with server.http() as client:
                        answer = await asyncio.wait_for(
                            client.request(method, path, json=body), API_SECONDS
                        )
                    if answer.status_code < 500:
                        answer.raise_for_status()
                        return answer.json()
                except (httpx.HTTPError, TimeoutError):
                    pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"no server answered {method} {path}")
            await asyncio.sleep(0.5)

    async def play(self, table_id: str, links: dict[str, Any], seated: bool) -> None:
        host = Seat(self, table_id, "host", links["host"]["token"], None)
        seats = [
            Seat(self, table_id, s["seat"], s["token"],
                 Strategy(s["seat"], self.args.seed, speech_seconds=2.0, think_seconds=1.0))
            for s in links["seats"]
        ]  # fmt: skip
        runners = [asyncio.ensure_future(seat.run()) for seat in (host, *seats)]
        try:
            await host.finished.wait()
        finally:
            for seat in (host, *seats):
                seat.done = True
            await asyncio.gather(*runners, return_exceptions=True)
        if host.over:
            self.tally.games_finished += 1
            if not self.stopping.is_set():
                await self.new_table(seated)

    # --- chaos --------------------------------------------------------------------------

    async def chaos(self, until: float) -> None:
        gap = (3.0, 8.0) if self.args.quick else (6.0, 14.0)
        while time.monotonic() < until:
            await asyncio.sleep(self.rng.uniform(*gap))
            if self.proxies and self.rng.random() < 1 / 3:
                self.tally.blips += 1
                proxy = self.rng.choice(self.proxies)
                proxy.cut(self.rng.uniform(0.5, 8.0), self.rng.choice(["reset", "stall"]))
                continue
            healthy = self.cluster.healthy()
            if len(healthy) < 2:
                continue  # never the last healthy server
            index = self.rng.choice(healthy)
            server = self.cluster.servers[index]
            if self.rng.random() < 0.5:
                self.tally.kills += 1
                self.cluster.down.add(index)
                await asyncio.to_thread(server.kill)
                self.spawn(self.restart(index, self.rng.uniform(1.0, 4.0)))
            else:
                self.tally.stops += 1
                self.cluster.paused.add(index)
                os.kill(server.pid, signal.SIGSTOP)
                self.spawn(self.resume(index, self.rng.uniform(1.0, 6.0)))

    async def restart(self, index: int, after: float) -> None:
        """Start the killed server again, as often as it takes (a start that times out on
        a loaded machine is killed by ServerProcess.start: try once more)."""
        await asyncio.sleep(after)
        while True:
            try:
                await asyncio.to_thread(self.cluster.servers[index].start, 120)
                break
            except RuntimeError as failure:
                print(f"soak: restart of server {index} failed ({failure}); again", file=sys.stderr)
                await asyncio.sleep(1.0)
        self.cluster.down.discard(index)

    async def resume(self, index: int, after: float) -> None:
        await asyncio.sleep(after)
        os.kill(self.cluster.servers[index].pid, signal.SIGCONT)
        self.cluster.paused.discard(index)

    # --- watching -----------------------------------------------------------------------

    async def watch_hosting(self) -> None:
        dsn = str(self.cluster.servers[0].db)
        async with await psycopg.AsyncConnection.connect(dsn, autocommit=True) as db:
            while not self.stopping.is_set():
                listed = await asyncio.gather(*(self.listed(s) for s in self.cluster.servers))
                leases = {
                    table_id: owner
                    for table_id, owner in await (
                        await db.execute("SELECT table_id, owner FROM leases WHERE expires > now()")
                    ).fetchall()
                }
                self.tally.host_polls += 1
                seen: dict[str, int] = {}
                for tables in listed:
                    for table_id, owner in tables.items():
                        seen[table_id] = seen.get(table_id, 0) + 1
                        key = (table_id, owner)
                        holder = leases.get(table_id)
                        if holder is not None and holder != owner:
                            count = self.tally.lease_mismatch.get(key, 0) + 1
                            self.tally.lease_mismatch[key] = count
                            if count == 2:
                                self.tally.doubles.append(f"{table_id}: {owner} vs lease {holder}")
                        else:
                            self.tally.lease_mismatch.pop(key, None)
                self.tally.doubles += [f"{t}: {n} servers" for t, n in seen.items() if n > 1]
                await asyncio.sleep(0.5)

    async def listed(self, server: ServerProcess) -> dict[str, str]:
        try:
            async with server.http() as client:
                answer = await asyncio.wait_for(client.get("/api/tables"), 1.0)
            return {t["id"]: t.get("owner", "") for t in answer.json() if "broken" not in t}
        except (httpx.HTTPError, TimeoutError, ValueError):
            return {}  # paused, dead or starting: acting for nothing it can show

    async def watch_mics(self) -> None:
        two_since: dict[str, float] = {}
        wrong_since: dict[str, float] = {}
        last_poll: dict[str, float] = {}
        async with api.LiveKitAPI(self.creds.url, API_KEY, API_SECRET, failover=False) as lk:
            while not self.stopping.is_set():
                for table_id, room in list(self.rooms.items()):
                    if table_id in self.tally.over_at:
                        continue  # the game is over: everyone may talk
                    try:
                        listed = await lk.room.list_participants(
                            api.ListParticipantsRequest(room=room)
                        )
                    except Exception:
                        continue
                    self.tally.mic_polls += 1
                    open_seats = sorted(
                        p.identity
                        for p in listed.participants
                        if p.identity.startswith("seat-")
                        and PublishPermission.of(p.permission).opens_microphone
                    )
                    now = time.monotonic()
                    wanted = self.speakers.get(table_id)
                    opened = {int(i.removeprefix("seat-").split(".")[0]) for i in open_seats}
                    if wanted is not None and opened != wanted:
                        since = wrong_since.setdefault(table_id, now)
                        if now - since > WRONG_MIC_SECONDS:
                            self.tally.wrong_mic_s += now - max(
                                last_poll.get(table_id, now), since + WRONG_MIC_SECONDS
                            )
                            if len(self.tally.wrong_mic) < 10:
                                self.tally.wrong_mic.append(
                                    f"{table_id}: open {sorted(opened)}, speakers "
                                    f"{sorted(wanted)} for {now - since:.1f} s"
                                )
                    else:
                        wrong_since.pop(table_id, None)
                    last_poll[table_id] = now
                    if len(open_seats) > ALLOWED_OPEN:
                        self.tally.open_mics.append((table_id, now, f"{table_id}: {open_seats}"))
                    if len(open_seats) == ALLOWED_OPEN:
                        since = two_since.setdefault(table_id, now)
                        if now - since > HANDOVER_SECONDS:
                            what = f"{table_id}: {open_seats} for {now - since:.1f} s"
                            self.tally.open_mics.append((table_id, now, what))
                            two_since[table_id] = now
                    else:
                        two_since.pop(table_id, None)
                await asyncio.sleep(0.3)

    # --- the end ------------------------------------------------------------------------

    def mic_faults(self) -> list[str]:
        """The microphone polls that broke the rule, less those within GAME_OVER_SECONDS
        before a widget saw the table's game end (the end gives every seat its microphone
        back, and that is carried out just before the end reaches the widgets)."""
        over = self.tally.over_at
        return [
            what
            for table_id, at, what in self.tally.open_mics
            if not (table_id in over and at >= over[table_id] - GAME_OVER_SECONDS)
        ]

    def lost_acks(self) -> tuple[int, int, int]:
        """(lost, doubled, acked): every acked client id in the log exactly once."""
        dsn = str(self.cluster.servers[0].db)
        lost = doubled = acked = 0
        with psycopg.connect(dsn, connect_timeout=10) as db:
            for table_id, keys in self.tally.acked.items():
                rows = db.execute(
                    "SELECT client_id, count(*) FROM events WHERE table_id = %s"
                    " AND client_id IS NOT NULL GROUP BY client_id",
                    (table_id,),
                ).fetchall()
                counts = {key: n for key, n in rows}
                acked += len(keys)
                lost += sum(1 for key in keys if key not in counts)
                doubled += sum(1 for key in keys if counts.get(key, 0) > 1)
        return lost, doubled, acked

    def failovers(self) -> int:
        with psycopg.connect(str(self.cluster.servers[0].db), connect_timeout=10) as db:
            rows = db.execute("SELECT epoch FROM leases").fetchall()
        return sum(int(epoch) - 1 for (epoch,) in rows)


class Seat:
    """One widget (a seat, or the host console): connects to any server that hosts the
    table, plays its strategy's moves, and sends an unanswered input again (same id)."""

    def __init__(
        self, soak: Soak, table_id: str, seat: int | str, token: str, strategy: Strategy | None
    ) -> None:
        self.soak, self.table_id, self.seat, self.token = soak, table_id, seat, token
        self.strategy = strategy
        self.client: AsyncClient | None = None
        self.done = False
        self.over = False
        self.finished = asyncio.Event()
        self._sent = 0
        self._moves: set[asyncio.Task[None]] = set()

    async def connect(self) -> AsyncClient:
        servers = self.soak.cluster.servers
        while not self.done:
            for server in random.sample(servers, len(servers)):
                try:
                    return await asyncio.wait_for(
                        AsyncClient.open(server.ws_url(self.token), f"{self.table_id}/{self.seat}"),
                        CONNECT_SECONDS,
                    )
                except (OSError, TimeoutError, ConnectionError, Exception):
                    continue
            await asyncio.sleep(0.25)
        raise asyncio.CancelledError

    async def run(self) -> None:
        last_change = time.monotonic()
        try:
            while not self.done:
                try:
                    self.client = await self.connect()
                except asyncio.CancelledError:
                    return
                version = -1
                while not self.done and not self.client.closed:
                    try:
                        await self.client.newer_than(version, timeout=1.0)
                    except (TimeoutError, ConnectionError):
                        if self.seat == "host" and time.monotonic() - last_change > STALL_SECONDS:
                            self.move("next", {})  # a stalled game: the host moves it on
                            last_change = time.monotonic()
                        continue
                    version, view = self.client.version, self.client.state
                    last_change = time.monotonic()
                    self.react(view)
                with contextlib.suppress(Exception):
                    await self.client.close()
        finally:
            for task in self._moves:
                task.cancel()
            await asyncio.gather(*self._moves, return_exceptions=True)
            if self.client is not None:
                with contextlib.suppress(Exception):
                    await self.client.close()

    def react(self, view: dict[str, Any]) -> None:
        if isinstance(view.get("speakers"), list):
            self.soak.speakers[self.table_id] = set(view["speakers"])
        if view.get("over") or (view.get("table") or {}).get("over"):
            self.soak.tally.over_at.setdefault(self.table_id, time.monotonic())
            self.over = True
            self.finished.set()
            self.done = True
            return
        if self.seat == "host":
            if view.get("phase") == "lobby" and not self._sent:
                self.move("start", {})
            return
        assert self.strategy is not None
        for move in self.strategy.moves(view):
            if move.type != "say":
                self.move(move.type, move.fields, move.delay)

    def move(self, kind: str, fields: dict[str, Any], delay: float = 0.0) -> None:
        self._sent += 1
        client_id = f"m{self._sent}"
        task = asyncio.ensure_future(self.send(kind, fields, client_id, delay))
        self._moves.add(task)
        task.add_done_callback(self._moves.discard)

    async def send(self, kind: str, fields: dict[str, Any], client_id: str, delay: float) -> None:
        await asyncio.sleep(delay)
        tally = self.soak.tally
        tally.sent += 1
        deadline = time.monotonic() + GIVE_UP_SECONDS
        first = True
        while not self.done and time.monotonic() < deadline:
            client = self.client
            if not first:
                tally.retries += 1
            first = False
            if client is None or client.closed:
                await asyncio.sleep(0.2)
                continue
            try:
                reply = await asyncio.wait_for(client.request(kind, id=client_id, **fields), 5)
            except (TimeoutError, ConnectionError, Exception):
                await asyncio.sleep(0.2)
                continue
            if reply["type"] == "ack":
                tally.acked[self.table_id].add(f"{self.seat}/{client_id}")
                return
            if reply.get("error") not in RETRY:
                return  # refused by the rules (the game moved on): never applied
            await asyncio.sleep(0.2)
        tally.abandoned += 1


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=300.0)
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--livekit-tables", type=int, default=3)
    parser.add_argument("--servers", type=int, default=3)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--quick", action="store_true", help="30 s, 6 tables, 1 seated")
    args = parser.parse_args()
    if args.quick:
        args.seconds, args.tables, args.livekit_tables = 30.0, 6, 1
    if args.seed is None:
        args.seed = random.SystemRandom().randrange(1, 10**6)
    print(f"soak: seed {args.seed}", flush=True)
    bin_dir, lk_binary = binaries(), server_binary()
    if bin_dir is None or lk_binary is None:
        raise SystemExit("soak: needs PostgreSQL and the livekit-server binary (scripts/test)")
    postgres = PostgresServer(bin_dir)
    folder = postgres.folder / "livekit"
    folder.mkdir()
    servers: list[ServerProcess] = []
    players: list[subprocess.Popen[str]] = []
    try:
        postgres.start()
        dsn = postgres.new_database()
        with running_server(lk_binary, folder) as lk:
            os.environ.update(LIVEKIT_URL=lk.ws_url, LIVEKIT_API_KEY=API_KEY,
                              LIVEKIT_API_SECRET=API_SECRET)  # fmt: skip
            # Each server reaches LiveKit through a proxy of its own (blips, issue 30).
            proxies = [await TcpProxy("127.0.0.1", lk.port).start()
                       for _ in range(args.servers)]  # fmt: skip
            servers = [
                ServerProcess(dsn, port=lk.webhook_port if i == 0 else None,
                              options=["--room", "livekit", "--no-voice",
                                       # every simulated page is on this one address
                                       "--proxy-connections-per-address", "0"],
                              env={"LIVEKIT_URL": f"ws://{proxies[i].address}"})
                for i in range(args.servers)
            ]  # fmt: skip
            for server in servers:
                server.start()
            creds = Credentials(url=lk.ws_url, api_key=API_KEY, api_secret=API_SECRET)
            soak = Soak(args, Cluster(servers), creds)
            soak.proxies = proxies
            players = soak.players
            for index in range(args.tables):
                await soak.new_table(seated=index < args.livekit_tables)
            watchers = [asyncio.ensure_future(soak.watch_hosting()),
                        asyncio.ensure_future(soak.watch_mics())]  # fmt: skip
            started = time.monotonic()
            await soak.chaos(started + args.seconds)
            soak.stopping.set()  # no new chaos, no new tables; let every table settle
            while soak.cluster.paused or soak.cluster.down:
                await asyncio.sleep(0.2)
            await asyncio.sleep(min(SETTLE_SECONDS, 5.0))
            for task in list(soak.tasks):
                task.cancel()
            await asyncio.gather(*soak.tasks, *watchers, return_exceptions=True)
            for proxy in proxies:
                await proxy.stop()
            for what in soak.tally.wrong_mic:
                print(f"soak: wrong microphones: {what}", file=sys.stderr)
            lost, doubled, acked = soak.lost_acks()
            faults = soak.mic_faults()
            figures = {
                "soak_lost_acks": lost + doubled,
                "soak_double_hosted": len(soak.tally.doubles),
                "soak_two_open_mics": len(faults),
                "soak_wrong_mic_s": round(soak.tally.wrong_mic_s, 2),
                "soak_blips": soak.tally.blips,
                "soak_kills": soak.tally.kills,
                "soak_stops": soak.tally.stops,
                "soak_failovers": soak.failovers(),
                "soak_inputs_acked": acked,
                "soak_inputs_sent": soak.tally.sent,
                "soak_retries": soak.tally.retries,
                "soak_abandoned": soak.tally.abandoned,
                "soak_games_finished": soak.tally.games_finished,
                "soak_tables": len(soak.tables),
                "soak_livekit_tables": len(soak.rooms),
                "soak_host_polls": soak.tally.host_polls,
                "soak_mic_polls": soak.tally.mic_polls,
                "soak_seconds": round(time.monotonic() - started, 1),
                "soak_seed": args.seed,
            }
            for what in (*soak.tally.doubles[:10], *faults[:10]):
                print(f"soak: {what}", file=sys.stderr)
            for server in servers:
                if server.alive():
                    server.kill()
            print(json.dumps(figures), flush=True)
    finally:
        for process in players:
            with contextlib.suppress(Exception):
                if process.stdin is not None:
                    process.stdin.close()
                process.wait(timeout=10)
            if process.poll() is None:  # stuck reconnecting to a LiveKit server now gone
                process.kill()
                process.wait(timeout=10)
        for server in servers:
            if server.process is not None:
                with contextlib.suppress(Exception):
                    os.kill(server.pid, signal.SIGCONT)
                    server.kill()
        postgres.remove()


if __name__ == "__main__":
    asyncio.run(main())
