"""A server whose clock is off takes over a table streaming with roles (issue 31, "time
across servers"), against real `autohost serve` processes on one real PostgreSQL, the heir
under Debian's libfaketime (its wall clock 10 s fast, or 10 s slow).

The outside check: an heir 10 s fast showed the stream overlay the roles 21 s after the
deal under a 30 s delay, because it compared the owner's wall-clock stamps in the log with
its own clock; and after a takeover the delayed roles came only at the next change of the
table. The log's times are now the database's (EventLog.wall, wall_now), and a table taken
over schedules its overlay's next refresh at once (StreamTiming.restore).
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from plugin.signing import Signer
from testing import SECRET, ServerProcess, connect
from testing.postgres import PostgresServer

from .conftest import claim_after, create_table, host_of, leases, widget

pytestmark = pytest.mark.slow
FAKETIME = Path("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1")
DELAY = 20  # the stream's delay, seconds
SLACK = 4.0  # a takeover's replay and the polls, on a busy machine


@pytest.mark.skipif(not FAKETIME.exists(), reason="needs Debian's libfaketime (faketime)")
@pytest.mark.parametrize("skew", ["+10s", "-10s"])
def test_an_heir_with_a_skewed_clock_shows_the_roles_after_the_delay_and_on_time(
    postgres: PostgresServer, skew: str
) -> None:
    dsn = postgres.new_database()
    owner = ServerProcess(dsn, options=["--room", "embedded", "--no-voice"])
    heir = ServerProcess(dsn, options=["--room", "embedded", "--no-voice"])
    heir.env.update(
        {"LD_PRELOAD": str(FAKETIME), "FAKETIME": skew, "FAKETIME_DONT_FAKE_MONOTONIC": "1"}
    )
    try:
        owner.start()
        links = create_table(owner)
        table_id = links["id"]
        heir.start()
        with widget(owner, links["host"]["token"]) as host:
            host.ack("stream", on=True, delay=DELAY)
            host.ack("start")
            dealt = time.monotonic()  # the deal is logged before the ack
        epoch = leases(dsn)[table_id][1]
        owner.kill()
        claim_after(dsn, table_id, epoch)
        assert host_of(table_id, [heir]) is heir
        overlay_token = Signer(SECRET.encode()).issue(table_id, "watch", stream=True)
        with connect(heir.ws_url(overlay_token), timeout=5) as overlay:
            shown = None
            while time.monotonic() - dealt < DELAY + 3 * SLACK:
                try:
                    message = overlay.receive()
                except TimeoutError:
                    continue
                stream = message.get("stream") if message["type"] == "state" else None
                if stream and stream["roles"]:
                    shown = time.monotonic() - dealt
                    break
        assert shown is not None, "the roles never showed"
        assert shown >= DELAY - 0.5, f"shown {shown:.1f} s after the deal, delay {DELAY} s"
        assert shown <= DELAY + SLACK, f"shown {shown:.1f} s after the deal: late"
    finally:
        for server in (owner, heir):
            if server.alive():
                server.kill()
