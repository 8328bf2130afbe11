"""The steps shared by the fuzz and authorization tests: play a table into its day-1 vote,
read every pending state, count the log. The protocol client is testing.Client."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from testing import Client, public_version

from .messages import CANDIDATES, SENDER


def play_to_vote(host: Client, seats: dict[int, Client]) -> dict[str, Any]:
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


def catch_up(host: Client, others: Iterable[Client]) -> None:
    """Read every state already sent, so the next message is the answer to the next frame
    (the host's newest state is the table's: an ack comes after the state it caused)."""
    assert host.state is not None
    version = public_version(host.state)
    for client in others:
        client.until(lambda s: public_version(s) >= version)


def log_size(db: Path, table_id: str | None = None) -> int:
    """How many entries the event log holds (of one table, when given)."""
    query, args = "SELECT count(*) FROM events", ()
    if table_id is not None:
        query, args = query + " WHERE table_id = ?", (table_id,)
    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as log:
        return int(log.execute(query, args).fetchone()[0])
