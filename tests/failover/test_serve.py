"""`autohost serve --db postgresql://...`: one server, SIGKILLed in the middle of a vote and
started again, finds every acked vote in PostgreSQL."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from plugin.paths import ROOT

from .conftest import (
    AUTOHOST,
    Servers,
    close_all,
    create_table,
    dsn_of,
    events,
    host_of,
    leases,
    open_all,
    tally,
    to_the_vote,
)

pytestmark = pytest.mark.slow


def test_a_vote_survives_sigkill_and_restart(servers: Servers) -> None:
    (server,) = servers(1)
    links = create_table(server)
    table_id = links["id"]
    host, seats = open_all(server, links)
    to_the_vote(host, seats)
    for voter, candidate in [(1, 5), (2, 6), (3, 5)]:
        seats[voter].ack("vote", candidate=candidate)
    tally(host, {"5": 2, "6": 1})
    close_all(host, seats)
    owner_before = leases(dsn_of(server))[table_id]
    server.kill()
    server.start()  # a new process: a new owner, which claims the table once its lease ran out
    assert host_of(table_id, [server]) is server
    host, seats = open_all(server, links)
    assert host.state["vote"]["round"]["tally"] == {"5": 2, "6": 1}
    seats[4].ack("vote", candidate=6)
    tally(host, {"5": 2, "6": 2})
    owner, epoch = leases(dsn_of(server))[table_id]
    assert owner != owner_before[0] and epoch == owner_before[1] + 1
    votes = [row for row in events(dsn_of(server), table_id) if row[1] == "vote"]
    assert len(votes) == 4 and len({client_id for *_, client_id in votes}) == 4
    close_all(host, seats)
    assert server.stop() == 0


def test_table_new_and_protocol_take_a_postgresql_url(servers: Servers) -> None:
    (server,) = servers(1)
    dsn = dsn_of(server)
    made = subprocess.run(
        [*AUTOHOST, "table", "new", "--seats", "10", "--seed", "4", "--db", dsn,
         "--base-url", server.base, "--json"],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
        env={**os.environ, "AUTOHOST_SECRET": server.secret},
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    links = json.loads(made.stdout)
    # Made with no lease: the first server that looks for unowned tables claims it.
    assert host_of(links["id"], [server]) is server
    assert leases(dsn)[links["id"]][1] == 1
    host, seats = open_all(server, links)  # the links work: the same secret
    host.ack("start")
    close_all(host, seats)
    exported = subprocess.run(
        [*AUTOHOST, "protocol", "--db", dsn, "--table", links["id"]],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert exported.returncode == 0, exported.stderr
    assert json.loads(exported.stdout)["table"] == links["id"]
    gone = subprocess.run(
        [*AUTOHOST, "protocol", "--db", dsn.rsplit("/", 1)[0] + "/nowhere", "--table", "x"],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert gone.returncode == 2 and "refuses" in gone.stderr
