"""The video mesh's signalling relay (plugin/web/video.py) through starlette's TestClient:
who may connect, who hears of whom, what is relayed to whom, and the night rule."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any, cast

import pytest
from starlette.websockets import WebSocketDisconnect

from plugin.eventlog import log_opener
from plugin.host.game import new_game
from plugin.host.ports import Snapshot
from plugin.host.settings import TableSettings
from plugin.host.views import Viewer, build_view
from plugin.rules.state import Phase
from plugin.signing import Signer
from plugin.web.app import ServerConfig, create_app
from plugin.web.close_codes import CloseCode
from plugin.web.video import MAX_MESSAGE_BYTES, may_link, video_routes
from testing import Client, TestClient

from .conftest import ADMIN, SECRET, create_table, token_of

OFFER = {"type": "offer", "sdp": "v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\n"}
CANDIDATE = {"candidate": "candidate:1 1 udp 1 127.0.0.1 5000 typ host", "sdpMid": "0",
             "sdpMLineIndex": 0}  # fmt: skip
# tests/web/conftest.py ROLES: 1 don, 2 and 3 mafia, 4 sheriff, the rest civilians.
BLACK = frozenset({1, 2, 3})


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    config = ServerConfig(
        db_path=tmp_path / "autohost.db",
        log=log_opener(tmp_path / "autohost.db"),
        admin_key=ADMIN,
        secret=SECRET,
        routes=[video_routes],
    )
    with TestClient(create_app(config)) as test_client:
        yield test_client


class Peer:
    """One page's signalling connection."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.welcome = self.receive()
        assert self.welcome["type"] == "welcome", self.welcome

    def receive(self) -> dict[str, Any]:
        return json.loads(self.ws.receive_text())

    def signal(self, to: int | str, **fields: Any) -> None:
        self.ws.send_text(json.dumps({"type": "signal", "to": to, "gen": 1, **fields}))

    def offer(self, to: int | str) -> None:
        self.signal(to, description=OFFER)

    def next_of(self, kind: str) -> dict[str, Any]:
        while True:
            message = self.receive()
            if message["type"] == kind:
                return message


def connect(client: TestClient, stack: ExitStack, token: str) -> Peer:
    return Peer(stack.enter_context(client.websocket_connect(f"/video?token={token}")))


# --- the rule, as a table ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("phase", "a", "b", "linked"),
    [
        ("lobby", 4, 5, True),
        ("speech", 1, 5, True),
        ("voting", "host", 7, True),
        ("over", 2, 9, True),
        ("black_meeting", 1, 2, True),
        ("black_meeting", 1, "host", True),
        ("black_meeting", 1, 4, False),
        ("black_meeting", 4, 5, False),
        ("black_meeting", "host", 5, False),
        ("don_meeting", 1, 2, False),
        ("shot", 1, "host", False),
        ("sheriff_check", 4, "host", False),
        ("free_seating", 2, 3, False),
        ("speech", 3, 3, False),
    ],
)
def test_who_may_link(phase: str, a: int | str, b: int | str, linked: bool) -> None:
    assert may_link(phase, a, b, BLACK) is linked
    assert may_link(phase, b, a, BLACK) is linked


def test_the_views_video_and_the_relay_apply_the_same_rule() -> None:
    """A page links whom its view's `video.peers` names; the relay allows exactly those."""
    roles = {"1": "don", "2": "mafia", "3": "mafia", "4": "sheriff"}  # BLACK: 1, 2, 3
    settings = TableSettings.from_record({"preset": "online", "seats": 10, "roles": roles})
    everyone: list[int | str] = [*range(1, 11), "host"]
    for phase in Phase:
        state = dataclasses.replace(new_game(settings), phase=phase)
        snapshot = Snapshot(table_id="t", version=0, state=state, settings=settings,
                            timer_id=None, timer_remaining=None, paused=False,
                            present=frozenset())  # fmt: skip
        for viewer in everyone:
            video = build_view(snapshot, cast(Viewer, viewer))["video"]
            allowed = [w for w in everyone if may_link(phase.value, viewer, w, BLACK)]
            assert video["peers"] == allowed, (phase, viewer)
            assert video["awake"] is bool(allowed), (phase, viewer)
            assert video["spectators"] is may_link(phase.value, viewer, "watch:1", BLACK)
        # A spectator links with whom the relay lets him, and sends to nobody.
        for viewer in (None, "stream"):
            video = build_view(snapshot, cast(Viewer, viewer))["video"]
            allowed = [w for w in everyone if may_link(phase.value, "watch:1", w, BLACK)]
            assert video == {"awake": False, "peers": allowed, "spectators": False}, phase
        assert not may_link(phase.value, "watch:1", "watch:2", BLACK)


# --- admission -----------------------------------------------------------------------------


def test_forged_expired_and_missing_tokens_are_refused(client: TestClient) -> None:
    links = create_table(client)
    good = token_of(links, 3)
    forged = good[:-2] + ("AA" if not good.endswith("AA") else "BB")
    other_secret = Signer(b"another-secret-0123456789abcdef").issue(links["id"], 3)
    expired = Signer(SECRET).issue(links["id"], 3, lifetime=-10)
    for token, code in [
        (forged, "token_forged"),
        (other_secret, "token_forged"),
        (expired, "token_expired"),
        ("", "token_malformed"),
    ]:
        with client.websocket_connect(f"/video?token={token}") as ws:
            assert json.loads(ws.receive_text())["error"] == code
            with pytest.raises(WebSocketDisconnect) as closed:
                ws.receive_text()
            assert closed.value.code == CloseCode.UNAUTHORIZED


def test_a_token_of_a_table_that_does_not_exist_is_refused(client: TestClient) -> None:
    token = Signer(SECRET).issue("no-such-table", 1)
    with client.websocket_connect(f"/video?token={token}") as ws:
        assert json.loads(ws.receive_text())["error"] == "no_table"


def test_peers_learn_who_joins_and_leaves(client: TestClient) -> None:
    links = create_table(client)
    with ExitStack() as stack:
        one = connect(client, stack, token_of(links, 1))
        assert one.welcome["you"] == 1 and one.welcome["peers"] == []
        host = connect(client, stack, token_of(links, "host"))
        assert host.welcome["peers"] == [{"seat": 1, "conn": one.welcome["conn"]}]
        assert one.next_of("join") == {"type": "join", "seat": "host", "conn": host.welcome["conn"]}
        with client.websocket_connect(f"/video?token={token_of(links, 5)}") as ws:
            five = Peer(ws)
            assert {p["seat"] for p in five.welcome["peers"]} == {1, "host"}
            assert one.next_of("join")["seat"] == 5
        left = one.next_of("leave")
        assert left == {"type": "leave", "seat": 5, "conn": five.welcome["conn"]}


def test_the_same_seat_connecting_again_replaces_the_older_page(client: TestClient) -> None:
    links = create_table(client)
    with ExitStack() as stack:
        one = connect(client, stack, token_of(links, 1))
        old = connect(client, stack, token_of(links, 2))
        one.next_of("join")
        new = connect(client, stack, token_of(links, 2))
        assert old.next_of("error")["error"] == "replaced"
        assert one.next_of("leave")["conn"] == old.welcome["conn"]
        assert one.next_of("join")["conn"] == new.welcome["conn"]
        one.offer(2)
        got = new.next_of("signal")
        assert got["from"] == 1 and got["description"] == OFFER


# --- relaying ------------------------------------------------------------------------------


def test_offers_and_candidates_reach_only_their_peer_with_the_tokens_sender(
    client: TestClient,
) -> None:
    links = create_table(client)
    with ExitStack() as stack:
        one = connect(client, stack, token_of(links, 1))
        two = connect(client, stack, token_of(links, 2))
        three = connect(client, stack, token_of(links, 3))
        one.offer(2)
        one.signal(2, candidate=CANDIDATE)
        got = two.next_of("signal")
        assert got == {"type": "signal", "from": 1, "conn": one.welcome["conn"], "gen": 1,
                       "description": OFFER}  # fmt: skip
        got = two.next_of("signal")
        assert got["from"] == 1 and got["candidate"] == {**CANDIDATE, "usernameFragment": None}
        # a "from" field cannot forge the sender: it is refused as unknown, nothing relayed
        one.ws.send_text(json.dumps({"type": "signal", "to": 2, "gen": 1, "from": 3,
                                     "description": OFFER}))  # fmt: skip
        assert one.next_of("error")["error"] == "bad_message"
        three.offer(2)
        assert two.next_of("signal")["from"] == 3  # the forged one never arrived first
        one.ws.send_text("{")  # nothing reached one meanwhile
        assert one.receive()["error"] == "bad_json"


def test_a_message_for_another_tables_seat_is_never_delivered(client: TestClient) -> None:
    first = create_table(client)
    second = create_table(client)
    with ExitStack() as stack:
        mine = connect(client, stack, token_of(first, 1))
        theirs = connect(client, stack, token_of(second, 2))
        assert theirs.welcome["peers"] == []  # tables do not see each other's peers
        mine.offer(2)  # seat 2 of MY table is not connected
        refusal = mine.next_of("error")
        assert refusal["error"] == "not_present"
        theirs.ws.send_text("{")
        assert theirs.receive()["error"] == "bad_json"  # the first thing it got: no signal


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("{not json", "bad_json"),
        ("[]", "bad_message"),
        ('{"type":"signal","to":2,"gen":1}', "bad_message"),  # neither description nor candidate
        (
            json.dumps(
                {"type": "signal", "to": 2, "gen": 1, "description": OFFER, "candidate": CANDIDATE}
            ),
            "bad_message",
        ),
        (json.dumps({"type": "signal", "to": 2, "gen": 0, "description": OFFER}), "bad_message"),
        (json.dumps({"type": "signal", "to": 0, "gen": 1, "description": OFFER}), "bad_message"),
        (json.dumps({"type": "signal", "to": "2", "gen": 1, "description": OFFER}), "bad_message"),
        (
            json.dumps(
                {
                    "type": "signal",
                    "to": 2,
                    "gen": 1,
                    "description": {"type": "pranswer", "sdp": "x"},
                }
            ),
            "bad_message",
        ),
        (json.dumps({"type": "hello", "to": 2}), "bad_message"),
        (
            json.dumps(
                {
                    "type": "signal",
                    "to": 2,
                    "gen": 1,
                    "description": {"type": "offer", "sdp": "x" * MAX_MESSAGE_BYTES},
                }
            ),
            "too_large",
        ),
        (json.dumps({"type": "signal", "to": 7, "gen": 1, "description": OFFER}), "not_present"),
        (json.dumps({"type": "signal", "to": 2, "gen": 1, "description": OFFER}), "not_present"),
    ],
)
def test_malformed_messages_get_an_error_and_are_not_relayed(
    client: TestClient, text: str, code: str
) -> None:
    links = create_table(client)
    with ExitStack() as stack:
        one = connect(client, stack, token_of(links, 1))
        two = connect(client, stack, token_of(links, 2))
        one.next_of("join")
        two.ws.send_text(text)  # "to": 2 is the sender itself, 7 is not connected
        assert two.next_of("error")["error"] == code
        one.ws.send_text("{")
        assert one.receive()["error"] == "bad_json"  # one got nothing relayed before it


# --- the night rule ------------------------------------------------------------------------


def test_night_blocks_relaying_between_pairs_not_awake(client: TestClient) -> None:
    links = create_table(client)
    with ExitStack() as stack:
        host_ws = Client(stack.enter_context(
            client.websocket_connect(f"/ws?token={token_of(links, 'host')}")))  # fmt: skip
        peers = {who: connect(client, stack, token_of(links, who)) for who in (1, 2, 4, 5, "host")}
        for who, peer in peers.items():  # read the joins of the later peers
            later = list(peers)[list(peers).index(who) + 1 :]
            for _ in later:
                peer.next_of("join")

        def check(pairs: list[tuple[int | str, int | str, bool]]) -> None:
            for a, b, expected in pairs:
                peers[a].offer(b)
                peers[a].ws.send_text("{")  # a probe: its error comes after any refusal
                first = peers[a].receive()
                refused = first["error"] == "asleep"
                if refused:
                    assert peers[a].receive()["error"] == "bad_json"
                assert refused is not expected, (a, b, first)
                peers[b].ws.send_text("{")
                got = peers[b].receive()  # the signal, if relayed, came before the probe
                if expected:
                    assert (got["type"], got.get("from")) == ("signal", a), (a, b, got)
                    assert peers[b].receive()["error"] == "bad_json"
                else:
                    assert got["error"] == "bad_json", (a, b, got)  # nothing came

        check([(1, 4, True), (4, 5, True), ("host", 5, True)])  # the lobby: day rule
        assert host_ws.request("start")["type"] == "ack"
        host_ws.until(lambda state: state["phase"] == "black_meeting")
        check([(1, 2, True), (2, "host", True), ("host", 1, True),
               (1, 4, False), (4, 1, False), (4, 5, False), ("host", 4, False),
               (5, "host", False)])  # fmt: skip
        assert host_ws.request("next")["type"] == "ack"  # the don's meeting
        check([(1, 2, False), (1, "host", False), ("host", 4, False)])
        for _ in range(3):  # sheriff's meeting, free seating, then the day
            assert host_ws.request("next")["type"] == "ack"
        host_ws.until(lambda state: state["phase"] == "speech")
        check([(1, 4, True), (4, 5, True), (5, "host", True), (2, 1, True)])
