"""A round's tables on real `autohost serve` processes (issue 34): `autohost tournament start
--server` starts it through the running server, whose bots host every table; SIGKILLed and
started again, the server hosts them again and the tournament still names them; on a
shared PostgreSQL database the board of another server names the server that hosts them,
and when that one dies the other takes every table over (the leases) and its board shows
them hosted there."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from typing import Any

import httpx

from plugin.paths import ROOT
from testing import ServerProcess
from testing.postgres import PostgresServer

AUTOHOST = [sys.executable, "-m", "plugin.cli"]
TAKEOVER_SECONDS = 20  # a lease (2 s), a heartbeat, a replay each, on a busy machine
NICKS = [f"P{n}" for n in range(1, 21)]


def call(server: ServerProcess, path: str, body: dict[str, Any] | None = None) -> Any:
    headers = {"Authorization": f"Bearer {server.admin_key}"}
    url = f"{server.base}/api/club/{path}"
    if body is None:
        reply = httpx.get(url, headers=headers, timeout=30)
    else:
        reply = httpx.post(url, json=body, headers=headers, timeout=60)
    assert reply.is_success, reply.text
    return reply.json()


def seated(server: ServerProcess) -> None:
    for nick in NICKS:
        call(server, "players", {"nick": nick})
    call(server, "tournaments", {"name": "Cup", "players": NICKS, "tables": 2, "games": 1})
    call(server, "tournaments/t1/seat", {"seconds": 2})


def start_command(server: ServerProcess) -> subprocess.CompletedProcess[str]:
    command = [*AUTOHOST, "tournament", "start", "t1", "1", "--server", server.base,
               "--db", str(server.db), "--json"]  # fmt: skip
    env = {**os.environ, "AUTOHOST_ADMIN_KEY": server.admin_key}  # never on a command line
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=60, env=env)


def ids_of(started: dict[str, Any]) -> list[str]:
    return [t["id"] for t in started["tables"]]


def until(check: Any, seconds: float) -> Any:
    deadline = time.monotonic() + seconds
    while True:
        value = check()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(0.2)


def test_the_command_line_starts_a_round_on_a_running_server(tmp_path: Any) -> None:
    with ServerProcess(tmp_path / "autohost.db", options=["--no-voice"]) as server:
        seated(server)
        done = start_command(server)
        assert done.returncode == 0, done.stderr
        started = json.loads(done.stdout)
        ids = sorted(t["id"] for t in started["tables"])
        assert started["complete"] and len(ids) == 2 and sorted(server.hosted()) == ids
        again = start_command(server)
        assert again.returncode == 1 and "has started" in again.stderr
        assert sorted(server.hosted()) == ids

        server.kill()  # a crash: nothing of the round is lost
        server.start()
        assert sorted(server.hosted()) == ids
        tables = call(server, "tournaments/t1")["tables"]
        assert sorted(t["id"] for t in tables) == ids
        board = call(server, "tournaments/t1/board")["rounds"][0]["tables"]
        assert [t["where"] for t in board] == ["here", "here"]


def test_another_server_takes_a_rounds_tables_over(postgres: PostgresServer) -> None:
    dsn = postgres.new_database()
    options = ["--room", "embedded", "--no-voice"]
    first, second = ServerProcess(dsn, options=options), ServerProcess(dsn, options=options)
    first.start()
    try:
        second.start()
        seated(first)
        started = call(first, "tournaments/t1/start", {"round": 0})
        ids = sorted(t["id"] for t in started["tables"])
        assert sorted(first.hosted()) == ids and second.hosted() == []
        seen = call(second, "tournaments/t1/board")["rounds"][0]["tables"]
        assert [(t["where"], t.get("server")) for t in seen] == [("elsewhere", first.base)] * 2
        assert [(t["phase"], t["decision"]) for t in seen] == [("lobby", "start")] * 2
        call(first, "tournaments/t1/absent", {"table": ids_of(started)[0], "seat": 4})
        seen = call(second, "tournaments/t1/board")["rounds"][0]["tables"]  # from the log
        assert seen[0]["phase"] != "lobby" and 4 not in seen[0]["alive"]

        first.kill()  # the server hosting the round dies: the other takes its tables
        assert until(lambda: sorted(second.hosted(lenient=True)) == ids, TAKEOVER_SECONDS)
        board = call(second, "tournaments/t1/board")["rounds"][0]["tables"]
        assert [t["where"] for t in board] == ["here", "here"]
        assert board[0]["phase"] != "lobby" and 4 not in board[0]["alive"]  # as it was left
        assert board[1]["phase"] == "lobby" and board[1]["decision"] == "start"
        assert call(second, "tournaments/t1")["stages"][0]["started"] == [0]
    finally:
        for server in (first, second):
            if server.alive():
                server.kill()
