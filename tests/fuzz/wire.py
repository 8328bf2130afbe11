"""Talking to the WebSocket protocol in tests: a `Channel` over starlette's TestClient (in
process, the same app and code path) or over a real socket, and the steps shared by the
fuzz and authorization tests (play a table into its day-1 vote, read every pending state,
count the log)."""

from __future__ import annotations

import contextlib
import json
import sqlite3
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio

from .messages import CANDIDATES, SENDER

with warnings.catch_warnings():  # starlette 1.x: "use httpx2" at import, nothing else
    warnings.filterwarnings("ignore", message=r"Using `httpx` with `starlette.testclient`")
    from starlette.testclient import TestClient


@dataclass
class Channel:
    """One connection: send one frame, read the next message (with a timeout)."""

    send: Callable[[str, bytes], None]
    read: Callable[[], dict[str, Any]]
    state: dict[str, Any] | None = None  # the newest state read

    def receive(self) -> dict[str, Any]:
        message = self.read()
        if message["type"] == "state":
            self.state = message
        return message

    def request(self, type: str, id: str, **fields: Any) -> dict[str, Any]:
        self.send("text", json.dumps({"v": 1, "id": id, "type": type, **fields}).encode())
        while True:
            message = self.receive()
            if message["type"] != "state":
                return message

    def until(self, accept: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        """The newest state, once it satisfies `accept` (reading more until it does)."""
        while self.state is None or not accept(self.state):
            self.receive()
        return self.state


def in_process(stack: contextlib.ExitStack, client: TestClient, path: str) -> Channel:
    """A TestClient WebSocket as a Channel; a close from the server reads as
    {"type": "close", "code": ...}."""
    ws = stack.enter_context(client.websocket_connect(path))

    def send(kind: str, payload: bytes) -> None:
        if kind == "text":
            ws.send_text(payload.decode())
        else:
            ws.send_bytes(payload)

    def read() -> dict[str, Any]:
        # The session's own receive() waits forever; a missing reply must fail instead.
        async def next_message() -> Any:
            with anyio.fail_after(10):
                return await ws._send_rx.receive()

        message = ws.portal.call(next_message)
        if message["type"] == "websocket.close":
            return {"type": "close", "code": message.get("code")}
        assert message["type"] == "websocket.send", message
        return dict(json.loads(message["text"]))

    return Channel(send, read)


def play_to_vote(host: Channel, seats: dict[int, Channel]) -> dict[str, Any]:
    """Start, nominate 5 and 6, press `next` until the day-1 vote is open; its state."""
    host.until(lambda s: True)
    assert host.request("start", "s0")["type"] == "ack"
    nominations = dict(zip((1, 2), CANDIDATES, strict=True))
    for step in range(60):
        state = host.until(lambda s: True)
        round_ = (state.get("vote") or {}).get("round")
        if state["phase"] == "voting" and round_ and round_["open"]:
            assert SENDER in round_["waiting"]
            return state
        speaker = state.get("speaker")
        if state["phase"] == "speech" and speaker in nominations:
            reply = seats[speaker].request(
                "nominate", f"n{speaker}", target=nominations.pop(speaker)
            )
            assert reply["type"] == "ack", reply
        version = state["table"]["version"]
        reply = host.request("next", f"x{step}")
        assert reply["type"] == "ack", reply
        host.until(lambda s, v=version: s["table"]["version"] > v)
    raise AssertionError("the vote never opened")


def catch_up(host: Channel, others: Iterable[Channel]) -> None:
    """Read every state already sent, so the next message is the answer to the next frame
    (the host's newest state is the table's: an ack comes after the state it caused)."""
    assert host.state is not None
    version = host.state["table"]["version"]
    for channel in others:
        channel.until(lambda s: s["table"]["version"] >= version)


def log_size(db: Path, table_id: str | None = None) -> int:
    """How many entries the event log holds (of one table, when given)."""
    query, args = "SELECT count(*) FROM events", ()
    if table_id is not None:
        query, args = query + " WHERE table_id = ?", (table_id,)
    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as log:
        return int(log.execute(query, args).fetchone()[0])
