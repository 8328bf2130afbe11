"""One hosted table played to its end by simulated people over the real protocol (issue 34's
tournament simulator): ten simulated players, each on its seat's WebSocket with its token
and deciding from the view it sees (plugin.sim.strategy: speeches passed, nominations,
votes, night actions), and a simulated host at the console who starts the game once every
seat has joined and, like a judge in a hurry, presses `next` whenever the table has not
changed for a moment and no player is about to act (a night meeting's minute, a speech's
rest, a vote nobody is left to cast): the clock's timers run out by hand, so a game takes
seconds, not an hour.

Every input is a protocol message the server checks; the game is the server's: the
simulator only chooses among what a view offers, the server refuses what is not legal
(counted in `SimTable.refused`, reported, never fatal: a `next` racing a vote is refused
as stale, as a hurried judge's click would be).

Servers: each socket is given every server of the club (`urls`) and moves to the next one
when its server is gone or says the table is hosted elsewhere (a failover: the survivor
claims the table and the sockets find it there), as a page tries its peers in turn.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import random
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import websockets

from plugin.tasks import cancel_and_wait
from plugin.web.close_codes import CloseCode

from .strategy import Strategy

log = logging.getLogger(__name__)

BACKOFF = 0.2  # seconds before a socket tries the next server
MOVES_ON = ("next", "end_speech")  # the console's actions that move a game on
FINAL = {CloseCode.UNAUTHORIZED, CloseCode.NO_TABLE}  # a bad token, a table nobody knows


class Socket:
    """One widget's socket (a seat's or the host's), kept open across servers."""

    def __init__(self, urls: Sequence[str], token: str, label: str,
                 on_view: Callable[[dict[str, Any]], None]) -> None:  # fmt: skip
        self.urls = [u.rstrip("/") for u in urls]
        self.token, self.label, self.on_view = token, label, on_view
        self.view: dict[str, Any] | None = None
        self.errors: list[dict[str, Any]] = []
        self.source = label.rsplit("/", 1)[-1]  # the log's `source`: the seat, or "host"
        self.acked: list[str] = []  # the inputs the server acked, as its log keys them
        self.changed = asyncio.Event()
        self.reconnects = 0
        self._socket: Any = None
        self._counter = 0
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name=f"sim {self.label}")

    async def stop(self) -> None:
        await cancel_and_wait([self._task], log=log)

    async def _run(self) -> None:
        at = 0
        while True:
            url = "ws" + self.urls[at % len(self.urls)].removeprefix("http") + "/ws"
            try:
                async with websockets.connect(url, max_size=2**22) as socket:
                    await socket.send(json.dumps({"type": "hello", "token": self.token}))
                    self._socket = socket
                    async for raw in socket:
                        self._receive(json.loads(raw))
                    if socket.close_code in FINAL:
                        log.error("%s: refused (%s)", self.label, socket.close_reason)
                        return
            except (OSError, websockets.WebSocketException, TimeoutError) as error:
                log.debug("%s: socket lost (%s)", self.label, error)
            finally:
                self._socket = None
            self.reconnects += 1
            at += 1  # the next server: this one is gone, or the table is hosted elsewhere
            await asyncio.sleep(BACKOFF)

    def _receive(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        if kind == "error":
            self.errors.append(message)
        elif kind == "ack":  # durable from now on: the log holds it under this key
            self.acked.append(f"{self.source}/{message.get('id')}")
        elif kind == "state":
            self.view = message
            self.changed.set()
            self.on_view(message)

    async def send(self, kind: str, fields: dict[str, Any] | None = None) -> None:
        """One protocol message (dropped while disconnected: the view will ask again)."""
        socket = self._socket
        if socket is None:
            return
        self._counter += 1
        message = {"v": 1, "id": f"{self.label}-{self._counter}", "type": kind, **(fields or {})}
        with contextlib.suppress(websockets.WebSocketException):
            await socket.send(json.dumps(message))


@dataclass(slots=True)
class Played:
    """What a table's game came to, as the simulator saw it."""

    table: str
    winner: str | None = None
    started: float | None = None  # perf_counter when the host console saw the game begin
    ended: float | None = None
    refused: int = 0  # inputs the server refused (stale clicks), never fatal
    refusals: dict[str, int] = field(default_factory=dict)  # their error codes
    reconnects: int = 0
    host_steps: int = 0  # the host's `next`s
    moves: int = 0  # the players' inputs
    errors: list[str] = field(default_factory=list)
    acked: list[str] = field(default_factory=list)  # every input acked, by its log key


class SimTable:
    """A table's ten simulated players and its simulated host (see the module)."""

    def __init__(self, urls: Sequence[str], links: dict[str, Any], *, seed: int,
                 idle: float = 0.1, speech_seconds: float = 0.05,
                 think_seconds: float = 0.15) -> None:  # fmt: skip
        self.links = links
        self.played = Played(table=links["id"])
        self.rng = random.Random(seed)
        self.idle = idle
        self.players: list[tuple[Strategy, Socket]] = []
        for seat in links["seats"]:
            strategy = Strategy(seat["seat"], seed, speech_seconds=speech_seconds,
                                think_seconds=think_seconds)  # fmt: skip
            socket = Socket(urls, seat["token"], f"{links['id']}/{seat['seat']}", lambda _: None)
            socket.on_view = self._player(strategy, socket)
            self.players.append((strategy, socket))
        self.host = Socket(urls, links["host"]["token"], f"{links['id']}/host", self._host_view)
        self._moves: set[asyncio.Task[None]] = set()

    def _player(self, strategy: Strategy, socket: Socket) -> Callable[[dict[str, Any]], None]:
        def on_view(view: dict[str, Any]) -> None:
            for move in strategy.moves(view):
                if move.type == "say":
                    continue  # no audio here: the speech is its pass
                task = asyncio.create_task(self._move(socket, move.type, move.fields, move.delay))
                self._moves.add(task)
                task.add_done_callback(self._moves.discard)

        return on_view

    async def _move(self, socket: Socket, kind: str, fields: dict[str, Any], delay: float) -> None:
        await asyncio.sleep(delay)
        self.played.moves += 1
        await socket.send(kind, fields)

    def _host_view(self, view: dict[str, Any]) -> None:
        if self.played.started is None and view.get("phase") not in (None, "lobby"):
            self.played.started = time.perf_counter()

    async def play(
        self, timeout: float, before_start: Callable[[], Awaitable[None]] | None = None
    ) -> Played:
        """Join every seat, start the game, move it on until it is over (or `timeout`).
        `before_start`: what else the host waits for before he starts (a listener's audio)."""
        sockets = [s for _, s in self.players] + [self.host]
        for socket in sockets:
            socket.start()
        try:
            async with asyncio.timeout(timeout):
                await self._until(lambda: all(s.view is not None for s in sockets))
                if before_start is not None:
                    await before_start()
                if (self.host.view or {}).get("phase") == "lobby":
                    await self.host.send("start")
                while not (self.host.view or {}).get("over"):
                    self.host.changed.clear()
                    try:
                        await asyncio.wait_for(self.host.changed.wait(), self._pause())
                    except TimeoutError:  # nothing moved: the judge moves the game on,
                        if not any(not move.done() for move in self._moves):
                            await self._step()  # unless a player is about to act
        except TimeoutError:
            self.played.errors.append(f"not over after {timeout:g} s: {self.host.view}")
        finally:
            await cancel_and_wait(list(self._moves), log=log)
            for socket in sockets:
                await socket.stop()
        view = self.host.view or {}
        self.played.winner = view.get("winner")
        self.played.ended = time.perf_counter()
        self.played.refused = sum(len(s.errors) for s in sockets)
        for error in (e for s in sockets for e in s.errors):
            code = str(error.get("error"))
            self.played.refusals[code] = self.played.refusals.get(code, 0) + 1
        self.played.reconnects = sum(s.reconnects for s in sockets)
        self.played.acked = [key for s in sockets for key in s.acked]
        return self.played

    async def _step(self) -> None:
        """The host's move: one of the console's actions the table would accept now (its
        view's `controls`) that moves the game on."""
        offered = [c for c in (self.host.view or {}).get("controls", []) if c in MOVES_ON]
        if offered:
            self.played.host_steps += 1
            await self.host.send(self.rng.choice(offered))

    def _pause(self) -> float:
        """How long the table must be quiet before the host moves it on: twice as long while
        a vote waits for ballots (the called voters' moves are coming)."""
        view = self.host.view or {}
        round_ = (view.get("vote") or {}).get("round") or {}
        waiting = round_.get("open") and round_.get("waiting")
        return self.idle * (2 if waiting else 1) * self.rng.uniform(0.8, 1.2)

    async def _until(self, ready: Callable[[], bool]) -> None:
        while not ready():
            await asyncio.sleep(0.02)
