"""Clients of the game's WebSocket sockets (docs/protocol.md), blocking or asyncio.

Both speak the same frames: {"v": 1, "id": ..., "type": ..., **fields} out (`frame`); in,
the newest {"type": "state"} is kept and the ack or error that answers a message id is
matched to it.

- `Client`: blocking, over starlette's TestClient (`in_process`: the same app and code path,
  in this process) or a real socket (`connect`). Every read is bounded by `timeout`; a close
  from the server reads as {"type": "close", "code": ...}.
- `AsyncClient`: asyncio, one reader task per socket (the load benches run hundreds in one
  process); `history` keeps the moment each table version arrived, for latencies.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import time
from collections.abc import Callable
from typing import Any, Literal

import anyio
from websockets.asyncio.client import ClientConnection as AsyncConnection
from websockets.asyncio.client import connect as async_connect
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection as SyncConnection
from websockets.sync.client import connect as sync_connect

from .testclient import TestClient, WebSocketTestSession

Message = dict[str, Any]
_ids = itertools.count(1)


def frame(type: str, id: str, **fields: Any) -> str:
    """One client message as the server reads it."""
    return json.dumps({"v": 1, "id": id, "type": type, **fields})


def public_version(state: Message) -> int:
    """The table's public version in a state: what every page but the host's calls
    `table.version`, and the host's `table.public` (plugin/web/rhythm.py); pages compare
    versions by it, since a change only the host sees bumps no page's."""
    table = state["table"]
    return int(table.get("public", table["version"]))


def next_id() -> str:
    """A message id no other message of this process has."""
    return f"m{next(_ids)}"


def socket_url(port: int, token: str, host: str = "127.0.0.1") -> str:
    """The game protocol's WebSocket address on a server at `port`."""
    return f"ws://{host}:{port}/ws?token={token}"


# --- blocking ----------------------------------------------------------------------------


class Client:
    """One blocking connection. `ws` is a TestClient WebSocket session (see `in_process`)
    or a websockets.sync connection (see `connect`)."""

    def __init__(self, ws: WebSocketTestSession | SyncConnection, *, timeout: float = 10) -> None:
        self.ws = ws
        self.timeout = timeout  # seconds each read may wait
        self.state: Message | None = None  # the newest state read
        self.state_at = 0.0  # time.monotonic() when it was read
        self.closed = False
        self._close_seen: Message | None = None  # the close a send ran into

    def receive(self) -> Message:
        """The next message (a state is kept as `state`); TimeoutError after `timeout`."""
        if self.closed:
            raise ConnectionError("the server closed this connection")
        message = self._read()
        if message["type"] == "state":
            self.state, self.state_at = message, time.monotonic()
        elif message["type"] == "close":
            self.closed = True
        return message

    def send_frame(self, kind: Literal["text", "bytes"], payload: bytes) -> None:
        """One frame as it is, a text frame (UTF-8) or a binary one (the fuzzers). On a
        socket the server has closed, nothing is sent and the close is what the next read
        returns (as a widget sees it: told to reconnect, not crashed)."""
        if isinstance(self.ws, SyncConnection):
            try:
                self.ws.send(payload.decode() if kind == "text" else payload)
            except ConnectionClosed as closed:
                code = closed.rcvd.code if closed.rcvd else None
                self._close_seen = {"type": "close", "code": code}
        elif kind == "text":
            self.ws.send_text(payload.decode())
        else:
            self.ws.send_bytes(payload)

    def request(self, type: str, id: str | None = None, **fields: Any) -> Message:
        """Send one message; the ack or error that answers it (states read meanwhile are
        kept), or the close that came instead."""
        id = id or next_id()
        self.send_frame("text", frame(type, id, **fields).encode())
        return self.answer(id)

    def ack(self, type: str, id: str | None = None, **fields: Any) -> Message:
        """`request`, which must be acknowledged (AssertionError with the refusal)."""
        reply = self.request(type, id, **fields)
        assert reply["type"] == "ack", reply
        return reply

    def send_raw(self, text: str) -> Message:
        """Send any text; the first message after it that is not a state."""
        self.send_frame("text", text.encode())
        return self.next_answer()

    def answer(self, id: str) -> Message:
        """The first message that is not a state: the answer to the message `id`. Anything
        else first (an answer to another message, left unread) is an AssertionError, so a
        test that reads this also knows that nothing else came."""
        message = self.next_answer()
        if message["type"] in ("ack", "error"):
            assert message.get("id") in (id, None), f"an answer to another message: {message}"
        return message

    def next_answer(self) -> Message:
        """The first message read that is not a state."""
        while True:
            message = self.receive()
            if message["type"] != "state":
                return message

    def until(self, accept: Callable[[Message], bool], timeout: float = 60) -> Message:
        """The newest state, once it satisfies `accept` (reading more until it does)."""
        deadline = time.monotonic() + timeout
        while self.state is None or not accept(self.state):
            if time.monotonic() > deadline:
                raise TimeoutError(f"no state as expected in {timeout:g} s: {self.state}")
            self.receive()
        return self.state

    def wait_version(self, version: int) -> Message:
        """Read states until one is at least this public version (`public_version`)."""
        return self.until(lambda state: public_version(state) >= version)

    def close(self) -> None:
        self.ws.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _read(self) -> Message:
        if self._close_seen is not None:
            return self._close_seen
        if isinstance(self.ws, SyncConnection):
            try:
                text = self.ws.recv(timeout=self.timeout)
            except ConnectionClosed as closed:
                return {"type": "close", "code": closed.rcvd.code if closed.rcvd else None}
            return dict(json.loads(text))
        session = self.ws

        # The session's own receive() waits forever; a missing reply must fail instead.
        async def next_message() -> Any:
            with anyio.fail_after(self.timeout):
                return await session._send_rx.receive()

        message = session.portal.call(next_message)
        if message["type"] == "websocket.close":
            return {"type": "close", "code": message.get("code")}
        assert message["type"] == "websocket.send", message
        return dict(json.loads(message["text"]))


def in_process(stack: contextlib.ExitStack, client: TestClient, path: str) -> Client:
    """A client of `path` (e.g. "/ws?token=...") on the app behind starlette's TestClient
    (`testing.TestClient`), closed with `stack`."""
    return Client(stack.enter_context(client.websocket_connect(path)))


def connect(url: str, *, timeout: float = 10) -> Client:
    """A client over a real socket (close it, or use it as a context manager)."""
    # max_queue=None: a client that reads only now and then must not stall its socket.
    connection = sync_connect(url, max_size=None, max_queue=None, compression=None)
    # websockets 17 wants its connection entered as a context manager; Client.close() (or
    # leaving the Client's own `with`) closes it.
    return Client(connection.__enter__(), timeout=timeout)


# --- asyncio -----------------------------------------------------------------------------


class AsyncClient:
    """One connection with a reader task. `history`: (table version, time.perf_counter())
    of every state read; `pending`: ids sent and not answered (yet)."""

    def __init__(self, ws: AsyncConnection, label: str = "") -> None:
        self.ws = ws
        self.label = label
        self.state: Message = {}
        self.version = -1
        self.history: list[tuple[int, float]] = []
        self.closed = False
        self.pending: set[str] = set()
        self._replies: dict[str, asyncio.Future[Message]] = {}
        # (version, the moment a state of at least that version is read): resolved by the
        # reader itself, so a waiter costs no task and its moment is the reader's.
        self._arrivals: list[tuple[int, asyncio.Future[float]]] = []
        self._reader = asyncio.create_task(self._read(), name=f"client {label}")

    @classmethod
    async def open(
        cls, url: str, label: str = "", *, compression: Literal["deflate"] | None = "deflate"
    ) -> AsyncClient:
        """Connect and read the first state. `compression=None` turns permessage-deflate
        off (browsers negotiate it: the default)."""
        ws = await async_connect(
            url, max_queue=None, compression=compression, open_timeout=60, ping_interval=None
        )
        client = cls(ws, label)
        await client.wait_version(0)
        return client

    async def _read(self) -> None:
        try:
            async for text in self.ws:
                message = json.loads(text)
                if message["type"] == "state":
                    now = time.perf_counter()
                    self.state, self.version = message, public_version(message)
                    self.history.append((self.version, now))
                    if self._arrivals:
                        self._arrived(now)
                elif message.get("id") in self._replies:
                    future = self._replies.pop(message["id"])
                    if not future.done():
                        future.set_result(message)
        except ConnectionClosed:
            pass
        finally:
            self.closed = True
            waiting: list[asyncio.Future[Any]] = [*self._replies.values()]
            for future in [*waiting, *(arrival for _, arrival in self._arrivals)]:
                if not future.done():
                    future.set_exception(ConnectionError(f"{self.label}: connection closed"))

    def _arrived(self, now: float) -> None:
        still = []
        for version, future in self._arrivals:
            if self.version < version:
                still.append((version, future))
            elif not future.done():
                future.set_result(now)
        self._arrivals = still

    async def _arrival(self, version: int, timeout: float) -> float:
        if self.closed:
            raise ConnectionError(f"{self.label}: connection closed")
        future: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        entry = (version, future)
        self._arrivals.append(entry)
        try:
            return await asyncio.wait_for(future, timeout)
        except TimeoutError:
            raise TimeoutError(f"{self.label}: no state version {version}") from None
        finally:
            if entry in self._arrivals:
                self._arrivals.remove(entry)

    async def wait_version(self, version: int, timeout: float = 60) -> None:
        """Until a state of at least this table version was read."""
        if self.version < version:
            await self._arrival(version, timeout)

    async def newer_than(self, version: int, timeout: float = 60) -> float:
        """The moment (time.perf_counter()) a state newer than `version` was read."""
        if self.version > version:
            moment = self.reached(version + 1)
            assert moment is not None
            return moment
        return await self._arrival(version + 1, timeout)

    async def request(self, type: str, id: str | None = None, **fields: Any) -> Message:
        """Send one message; the ack or error that answers it (its "id" is the message's),
        within 60 s."""
        id = id or next_id()
        reply: asyncio.Future[Message] = asyncio.get_running_loop().create_future()
        self._replies[id] = reply
        self.pending.add(id)
        await self.ws.send(frame(type, id, **fields))
        answer = await asyncio.wait_for(reply, 60)
        self.pending.discard(id)
        return answer

    async def ack(self, type: str, **fields: Any) -> Message:
        """`request`, which must be acknowledged (AssertionError with the refusal)."""
        reply = await self.request(type, **fields)
        assert reply["type"] == "ack", reply
        return reply

    def reached(self, version: int) -> float | None:
        """The moment this client first read a state of at least `version`."""
        for seen, moment in self.history:
            if seen >= version:
                return moment
        return None

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await self.ws.close()
        self._reader.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._reader
