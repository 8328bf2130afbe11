"""Several `autohost serve` on one PostgreSQL: the owner of a table killed, paused, stopped,
or the database restarted, in the middle of a vote. Every acked vote survives, none is
applied twice, and no table is ever hosted by two servers (each server's /api/tables, and
the lease row, which has one owner)."""

from __future__ import annotations

import os
import signal
import time

import psycopg
import pytest
from websockets.exceptions import ConnectionClosed

from testing import Client, ServerProcess, connect
from testing.postgres import running_postgres

from .conftest import (
    CLOCK_SAVE_SECONDS,
    TAKEOVER_SECONDS,
    HostingWatch,
    Refused,
    Servers,
    assert_resumed,
    claim_after,
    close_all,
    create_table,
    dsn_of,
    events,
    host_of,
    leases,
    open_all,
    tally,
    to_the_vote,
    widget,
)

pytestmark = pytest.mark.slow


def votes_logged(server: ServerProcess, table_id: str) -> list[str | None]:
    """The client id of every vote in the log (each acked vote once, nothing doubled)."""
    return [client_id for _, kind, client_id in events(dsn_of(server), table_id) if kind == "vote"]


def start_vote(servers: list[ServerProcess]) -> tuple[str, dict, ServerProcess]:
    """A table created on the first server, played to the vote, 3 votes acked there, its
    timer running; waits past a clock save (about once a second) before it returns."""
    links = create_table(servers[0])
    table_id = links["id"]
    owner = host_of(table_id, servers)
    host, seats = open_all(owner, links)
    to_the_vote(host, seats)
    for voter, candidate in [(1, 5), (2, 6), (3, 5)]:
        seats[voter].ack("vote", candidate=candidate, id=f"v{voter}")
    tally(host, {"5": 2, "6": 1})
    close_all(host, seats)
    time.sleep(CLOCK_SAVE_SECONDS)
    return table_id, links, owner


def reopen_all(
    server: ServerProcess, links: dict, table_id: str, deadline: float
) -> tuple[Client, dict[int, Client]]:
    """Every widget open again on `server` once it hosts the table, tried again (as the
    pages do) while the table is being dropped or claimed back."""
    while True:
        host_of(table_id, [server])
        try:
            return open_all(server, links)
        except (Refused, ConnectionClosed, OSError) as refused:
            assert time.monotonic() < deadline, f"the widgets cannot open: {refused}"
            time.sleep(0.2)


def timer_left(host: Client) -> tuple[int, float]:
    clock = host.state["clock"]
    return clock["timer"], clock["remaining"] - (time.monotonic() - host.state_at)


def finish_on(server: ServerProcess, links: dict) -> tuple[Client, dict[int, Client]]:
    host, seats = open_all(server, links)
    assert host.state["vote"]["round"]["tally"] == {"5": 2, "6": 1}
    seats[4].ack("vote", candidate=6, id="v4")
    # A retry of a vote acked by the dead server is recognised, not applied again.
    assert seats[1].ack("vote", candidate=5, id="v1").get("duplicate") is True
    tally(host, {"5": 2, "6": 2})
    return host, seats


@pytest.mark.parametrize("count", [2, 3])
def test_sigkill_of_the_owner_mid_vote(servers: Servers, count: int) -> None:
    running = servers(count)
    with HostingWatch(running) as watch:
        sigkill_mid_vote(running)
    assert watch.polls > 10 and watch.doubles == []


def sigkill_mid_vote(running: list[ServerProcess]) -> None:
    table_id, links, owner = start_vote(running)
    epoch = leases(dsn_of(owner))[table_id][1]
    others = [s for s in running if s is not owner]
    # A link opened on a server that does not host the table: "try again" (close 1013),
    # which the pages' reconnecting socket retries, not "no such table" (final).
    with connect(others[0].ws_url(links["host"]["token"])) as elsewhere:
        refused = elsewhere.receive()
    assert refused["type"] == "error" and refused["error"] == "table_elsewhere", refused
    with widget(owner, links["host"]["token"]) as console:
        timer, remaining = timer_left(console)
        read = time.monotonic()
    owner.kill()
    killed = time.monotonic()
    claimed = claim_after(dsn_of(owner), table_id, epoch)
    heir = host_of(table_id, others)
    took = time.monotonic() - killed
    assert took < TAKEOVER_SECONDS
    with widget(heir, links["host"]["token"]) as console:
        timer_now, left_now = timer_left(console)
        ran = (killed - read) + (time.monotonic() - claimed)  # on the owner, on the heir
    assert_resumed(timer_now, left_now, timer, remaining, ran)
    host, seats = finish_on(heir, links)
    assert leases(dsn_of(heir))[table_id][1] == epoch + 1
    assert [table_id in s.hosted() for s in others].count(True) == 1
    assert sorted(votes_logged(heir, table_id)) == ["1/v1", "2/v2", "3/v3", "4/v4"]
    close_all(host, seats)


def test_sigstop_of_the_owner_then_resumed_it_does_not_write(servers: Servers) -> None:
    running = servers(2)
    with HostingWatch(running) as watch:
        sigstop_mid_vote(running)
    assert watch.polls > 10 and watch.doubles == []


def sigstop_mid_vote(running: list[ServerProcess]) -> None:
    table_id, links, owner = start_vote(running)
    (other,) = [s for s in running if s is not owner]
    stale_host, stale_seats = open_all(owner, links)  # widgets still on the paused server
    os.kill(owner.pid, signal.SIGSTOP)
    try:
        heir = host_of(table_id, [other])
        host, seats = finish_on(heir, links)
    finally:
        os.kill(owner.pid, signal.SIGCONT)
    # Resumed past its lease: an input that reaches it is refused (fenced), never applied.
    # (or its socket is closed first: the dropped table's widgets are told to reconnect).
    reply = stale_seats[5].request("vote", candidate=6, id="late")
    assert reply["type"] != "ack", reply
    assert reply.get("error") in ("log_unavailable", "stopping", "table_moved", None), reply
    deadline = time.monotonic() + TAKEOVER_SECONDS
    while table_id in owner.hosted():
        assert time.monotonic() < deadline, "the resumed server still hosts the table"
        time.sleep(0.05)
    assert other.hosted() == [table_id]
    assert sorted(votes_logged(heir, table_id)) == ["1/v1", "2/v2", "3/v3", "4/v4"]  # no "late"
    seats[7].ack("vote", candidate=5, id="v7")  # the heir goes on
    tally(host, {"5": 3, "6": 2})
    close_all(host, seats)
    close_all(stale_host, stale_seats)


def test_sigterm_hands_the_table_over_at_once(servers: Servers) -> None:
    running = servers(2)
    table_id, links, owner = start_vote(running)
    (other,) = [s for s in running if s is not owner]
    dsn = dsn_of(owner)
    holder, epoch = leases(dsn)[table_id]
    assert owner.stop() == 0
    # No lease to wait out: by the time the owner has exited, its lease is given back
    # (expired at once) or the other server has already claimed it.
    with psycopg.connect(dsn, connect_timeout=5) as db:
        row = db.execute(
            "SELECT owner, epoch, expires <= clock_timestamp() FROM leases WHERE table_id = %s",
            (table_id,),
        ).fetchone()
    assert row is not None
    now_holder, now_epoch, expired = row
    assert expired or (now_holder != holder and now_epoch == epoch + 1), row
    heir = host_of(table_id, [other])
    host, seats = finish_on(heir, links)
    close_all(host, seats)


def test_a_database_restart_refuses_inputs_and_loses_none() -> None:
    with running_postgres() as postgres:  # a cluster of its own: this test stops it
        dsn = postgres.new_database()
        server = ServerProcess(dsn, options=["--room", "embedded", "--no-voice"])
        server.start()
        try:
            table_id, links, _ = start_vote([server])
            host, seats = open_all(server, links)
            postgres.stop()
            reply = seats[4].request("vote", candidate=6, id="v4")
            assert reply["type"] == "error" and reply["error"] == "log_unavailable", reply
            postgres.start()
            host_of(table_id, [server])
            # The widget sends its input again with the same id, reconnecting as the page
            # does when it is refused or its socket closed: the server may still drop the
            # table once the database is back (its heartbeat was stalled past the lease)
            # and claim it again. Applied once, whichever way it went.
            deadline = time.monotonic() + TAKEOVER_SECONDS
            while (reply := seats[4].request("vote", candidate=6, id="v4"))["type"] != "ack":
                assert time.monotonic() < deadline, reply
                time.sleep(0.2)
                close_all(host, seats)
                host, seats = reopen_all(server, links, table_id, deadline)
            tally(host, {"5": 2, "6": 2})
            assert sorted(votes_logged(server, table_id)) == ["1/v1", "2/v2", "3/v3", "4/v4"]
            close_all(host, seats)
            assert server.stop() == 0
        finally:
            if server.alive():
                server.kill()


def test_a_database_away_longer_than_a_lease_then_back() -> None:
    with running_postgres() as postgres:
        dsn = postgres.new_database()
        server = ServerProcess(dsn, options=["--room", "embedded", "--no-voice"])
        server.start()
        try:
            table_id, links, _ = start_vote([server])
            stopped = time.monotonic()
            postgres.stop()
            # Past the lease it cannot renew, the server drops its tables; not before.
            deadline = stopped + TAKEOVER_SECONDS
            while table_id in server.hosted():
                assert time.monotonic() < deadline, "the server kept a table it could not renew"
                time.sleep(0.05)
            assert time.monotonic() - stopped >= 1.5, "dropped before its lease can have run out"
            with connect(server.ws_url(links["host"]["token"])) as console:
                refused = console.receive()  # "try again", not "no such table"
            assert refused["type"] == "error", refused
            assert refused["error"] == "log_unavailable", refused
            postgres.start()
            assert host_of(table_id, [server]) is server  # claimed back, replayed
            host, seats = open_all(server, links)
            assert host.state["vote"]["round"]["tally"] == {"5": 2, "6": 1}
            seats[4].ack("vote", candidate=6, id="v4")
            tally(host, {"5": 2, "6": 2})
            assert sorted(votes_logged(server, table_id)) == ["1/v1", "2/v2", "3/v3", "4/v4"]
            close_all(host, seats)
            assert server.stop() == 0
        finally:
            if server.alive():
                server.kill()
