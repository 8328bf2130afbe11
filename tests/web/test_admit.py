"""`Server.admit`, the one token check of every route and socket (plugin/web/context.py):
a genuine token of the table, of the kind the endpoint takes, for a seat the table has, of
its link's current generation; and the same codes, in the same order, as each endpoint's
own check gave before it was written once."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from plugin.eventlog import log_opener
from plugin.signing import Grant, Invite, Signer, TokenError, Watch
from plugin.web.context import LinkState, Server, ServerConfig
from plugin.web.hub import Hub

from .conftest import ADMIN, SECRET

TEN_SEATS = LinkState(table="t1", seats=10, generations={})


@pytest.fixture
def server(tmp_path: Path) -> Server:
    db = tmp_path / "autohost.db"
    config = ServerConfig(db_path=db, admin_key=ADMIN, secret=SECRET, log=log_opener(db))
    return Server(config=config, signer=Signer(SECRET), hub=Hub())


def refusal(check: Callable[..., object], *args: object) -> str:
    """The code of the TokenError `check(*args)` raises (it must raise one)."""
    with pytest.raises(TokenError) as refused:
        check(*args)
    return refused.value.code


def test_a_seat_and_the_host_of_the_table_are_admitted(server: Server) -> None:
    seat = server.admit(server.signer.issue("t1", 3), TEN_SEATS)
    assert isinstance(seat, Grant) and seat.seat == 3 and seat.table == "t1"
    host = server.admit(server.signer.issue("t1", "host"), TEN_SEATS, "seat")
    assert host.is_host


def test_a_seat_the_table_does_not_have_is_refused(server: Server) -> None:
    for seat in (11, 42):
        token = server.signer.issue("t1", seat)
        assert refusal(server.admit, token, TEN_SEATS) == "token_bad_seat"
    # The table's seat count is the LinkState's: 42 is a seat of a 50-seat table.
    assert server.admit(token, LinkState(table="t1", seats=50, generations={})).seat == 42


def test_a_replaced_link_is_refused_and_its_successor_admitted(server: Server) -> None:
    reissued = LinkState(table="t1", seats=10, generations={3: 1, "watch": 2, "invite": 1})
    old, new = server.signer.issue("t1", 3), server.signer.issue("t1", 3, generation=1)
    assert refusal(server.admit, old, reissued) == "token_reissued"
    assert server.admit(new, reissued).seat == 3
    # A newer generation than the table's is no better than an older one.
    assert refusal(server.admit, new, TEN_SEATS) == "token_reissued"


def test_a_token_of_another_table_is_refused(server: Server) -> None:
    token = server.signer.issue("t2", 3)
    assert refusal(server.admit, token, TEN_SEATS) == "token_other_table"
    assert refusal(server.admit, "not.a-token", TEN_SEATS) == "token_malformed"
    forged = Signer(b"another-secret-0123456789abcdef").issue("t1", 3)
    assert refusal(server.admit, forged, TEN_SEATS) == "token_forged"


def test_a_watch_link_opens_what_takes_links_only(server: Server) -> None:
    watch = server.signer.issue("t1", "watch")
    assert isinstance(server.admit(watch, TEN_SEATS), Watch)
    assert refusal(server.admit, watch, TEN_SEATS, "seat") == "token_watch_only"
    assert refusal(server.admit, watch, TEN_SEATS, "invite") == "token_not_invite"
    # As Server.verify did: a replaced watch link is told it was replaced first.
    reissued = LinkState(table="t1", seats=10, generations={"watch": 1})
    assert refusal(server.admit, watch, reissued, "seat") == "token_reissued"


def test_the_invite_link_opens_the_lobby_only(server: Server) -> None:
    invite = server.signer.issue("t1", "invite")
    admitted = server.admit(invite, TEN_SEATS, "invite")
    assert isinstance(admitted, Invite) and admitted.table == "t1"
    assert refusal(server.admit, invite, TEN_SEATS) == "token_invite_only"
    assert refusal(server.admit, invite, TEN_SEATS, "seat") == "token_invite_only"
    seat = server.signer.issue("t1", 3)
    assert refusal(server.admit, seat, TEN_SEATS, "invite") == "token_not_invite"
    reissued = LinkState(table="t1", seats=10, generations={"invite": 1})
    assert refusal(server.admit, invite, reissued, "invite") == "token_reissued"


def test_claim_reads_a_token_without_admitting_it(server: Server) -> None:
    token = server.signer.issue("t1", 42)  # no table has been looked at: 42 is its claim
    assert server.claim(token).seat == 42 and server.claim(token, "t1").table == "t1"
    assert refusal(server.claim, token, "t2") == "token_other_table"
    invite = server.signer.issue("t1", "invite")
    assert server.claim(invite, None, "invite").table == "t1"
    assert refusal(server.claim, invite) == "token_invite_only"


def test_a_table_nobody_hosts_has_no_seats_and_no_reissue(server: Server) -> None:
    """Without a registry (starting, stopping) a table's links are unknown: no seat of it
    is admitted, and its host link only as it was first issued."""
    links = server.link_state("t1")
    assert links == LinkState(table="t1", seats=0, generations={})
    assert refusal(server.admit, server.signer.issue("t1", 1), links) == "token_bad_seat"
    assert server.admit(server.signer.issue("t1", "host"), links, "seat").is_host
