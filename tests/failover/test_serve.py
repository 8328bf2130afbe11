"""`autohost serve --db postgresql://...`: one server, SIGKILLed in the middle of a vote and
started again, finds every acked vote in PostgreSQL."""

from __future__ import annotations

import pytest

from .conftest import (
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
