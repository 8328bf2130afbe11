"""A frozen PostgreSQL (every process of the cluster SIGSTOPped: it accepts TCP, answers
nothing) must not freeze a server: its inputs are refused with log_unavailable within the
log's deadline, the loop keeps answering, the lease is lost cleanly (the table dropped),
and after SIGCONT the table is claimed back with every acked vote and none doubled."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator

import httpx
import pytest

from plugin.eventlog.postgres import CONNECT_TIMEOUT, STATEMENT_SECONDS
from testing import ServerProcess
from testing.postgres import PostgresServer, running_postgres

from .conftest import close_all, host_of, open_all
from .test_failover import start_vote, votes_logged

pytestmark = pytest.mark.slow
LOG_DEADLINE = STATEMENT_SECONDS + CONNECT_TIMEOUT  # the worst a refusal may wait


def cluster(postgres: PostgresServer) -> list[int]:
    """The postmaster and every process it forked (backends, writers, the WAL)."""
    assert postgres.process is not None
    root = postgres.process.pid
    children = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat") as stat:
                    parent = int(stat.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError):
                continue
            if parent == root:
                children.append(int(name))
    return [root, *children]


@pytest.fixture
def frozen_pair() -> Iterator[tuple[PostgresServer, ServerProcess]]:
    with running_postgres() as postgres:  # a cluster of its own: this test freezes it
        server = ServerProcess(
            postgres.new_database(), options=["--room", "embedded", "--no-voice"]
        )
        server.start()
        try:
            yield postgres, server
        finally:
            if server.alive():
                server.kill()


def test_a_frozen_database_refuses_inputs_and_the_loop_goes_on(frozen_pair) -> None:
    postgres, server = frozen_pair
    table_id, links, _ = start_vote([server])
    host, seats = open_all(server, links)
    frozen = cluster(postgres)
    for pid in frozen:
        os.kill(pid, signal.SIGSTOP)
    try:
        asked = time.monotonic()
        reply = seats[4].request("vote", candidate=6, id="v4")
        assert time.monotonic() - asked < LOG_DEADLINE + 2.0
        assert reply["type"] == "error" and reply["error"] == "log_unavailable", reply
        # The loop is not stuck behind the database: the server answers HTTP meanwhile.
        answered = time.monotonic()
        assert httpx.get(server.base + "/healthz", timeout=LOG_DEADLINE + 2).status_code in (
            200,
            503,
        )
        assert time.monotonic() - answered < LOG_DEADLINE + 2.0
        # Past the lease it could not renew, the table is dropped (the lease lost cleanly).
        deadline = time.monotonic() + 15
        while table_id in server.hosted():
            assert time.monotonic() < deadline, "the server kept a table it could not renew"
            time.sleep(0.1)
    finally:
        for pid in frozen:
            os.kill(pid, signal.SIGCONT)
    close_all(host, seats)
    assert host_of(table_id, [server]) is server  # claimed back once the database answers
    host, seats = open_all(server, links)
    assert host.state["vote"]["round"]["tally"] == {"5": 2, "6": 1}  # v4 was never applied
    deadline = time.monotonic() + 15
    while (reply := seats[4].request("vote", candidate=6, id="v4"))["type"] != "ack":
        assert time.monotonic() < deadline, reply
        time.sleep(0.2)
    assert sorted(votes_logged(server, table_id)) == ["1/v1", "2/v2", "3/v3", "4/v4"]
    close_all(host, seats)
    assert server.stop() == 0
