"""`autohost livekit --db postgresql://...`: the one-table shortcut keeps its log on
PostgreSQL (the URL is not folded into a file path), leases its table there, and on SIGINT
hands it over (lease expired) instead of giving the microphones back. It hosts that table
and no other: a table of the database nobody holds is left to the full servers (it has no
LiveKit room for it), and it refuses to make one."""

from __future__ import annotations

import asyncio
import json
import signal

import httpx
import pytest
from livekit import api

from plugin.eventlog import open_log
from testing import AutohostProcess
from testing.livekit_server import API_KEY, API_SECRET
from testing.postgres import PostgresServer

from .conftest import events, leases

pytestmark = [pytest.mark.slow, pytest.mark.livekit]


async def test_the_one_table_shortcut_takes_a_postgresql_url(
    livekit_server, postgres: PostgresServer
) -> None:
    dsn = postgres.new_database()
    other = open_log(dsn)  # a table another server made and left (nobody holds it)
    other.create_table("someone-elses", {"seats": 10})
    other.close()
    env = dict(LIVEKIT_URL=livekit_server.ws_url, LIVEKIT_API_KEY=API_KEY,
               LIVEKIT_API_SECRET=API_SECRET, AUTOHOST_ADMIN_KEY="admin-test",
               AUTOHOST_SECRET="test-secret-0123456789abcdef0123")  # fmt: skip
    process = AutohostProcess(
        ["livekit", "--room", "pg-room", "--port", "0", "--db", dsn, "--no-voice"],
        env=env, ready="listening on",
    )  # fmt: skip
    process.start(timeout=30)
    try:
        listening = process.wait_for("listening on")
        assert "(db postgresql://postgres@127.0.0.1:" in listening, listening
        links = json.loads(process.wait_for('"seats":', timeout=30))
        table_id = links["id"]
        owner, epoch = leases(dsn)[table_id]  # made in PostgreSQL, leased by this process
        assert epoch == 1 and str(process.pid) in owner
        async with api.LiveKitAPI(livekit_server.ws_url, API_KEY, API_SECRET,
                                  failover=False) as lkapi:  # fmt: skip
            listed = await lkapi.room.list_participants(api.ListParticipantsRequest(room="pg-room"))
            assert "autohost-bot" in {p.identity for p in listed.participants}
        url = listening.split("listening on ")[1].split()[0]
        async with httpx.AsyncClient(base_url=url, timeout=10) as http:
            admin = {"Authorization": "Bearer admin-test"}
            made = await http.post("/api/tables", json={}, headers=admin)
            assert made.status_code == 409 and made.json()["error"] == "one_table_server"
            await asyncio.sleep(2.0)  # several claim passes (every 0.1 s)
        assert "someone-elses" not in leases(dsn), "a one-table server claimed another table"
    finally:
        code = process.stop(timeout=30, sig=signal.SIGINT)
    assert code == 0
    assert events(dsn, table_id) == []  # a lobby: nothing played, nothing invented
    import psycopg

    with psycopg.connect(dsn, connect_timeout=5) as db:
        (expired,) = db.execute(
            "SELECT expires <= now() FROM leases WHERE table_id = %s", (table_id,)
        ).fetchone()
    assert expired, "SIGINT hands the table over: its lease is expired at once"
