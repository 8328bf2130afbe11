"""The spectators' watch link over the protocol (issue 17): one link for any number of
spectators; each gets the public view and can neither speak nor vote, and the link opens
nothing but the table's socket, the audio and the video as a receiver (not the API)."""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from plugin.eventlog import log_opener
from plugin.host.commands import route
from plugin.host.inputs import Input, Lift, Pass, Pause, Refused, Start, Vote
from plugin.signing import Signer, TokenError, Watch
from plugin.web.app import ServerConfig, create_app
from plugin.web.limits import CONNECTIONS_PER_SEAT
from plugin.web.video import MAX_SPECTATORS, video_routes
from testing import TestClient, in_process

from .conftest import ADMIN, SECRET, create_table, token_of

PRIVATE = ("me", "roles", "checks", "shots", "black_team", "controls", "best_move")


@pytest.fixture
def client(tmp_path: Path):
    config = ServerConfig(
        db_path=tmp_path / "autohost.db",
        log=log_opener(tmp_path / "autohost.db"),
        admin_key=ADMIN,
        secret=SECRET,
        routes=[video_routes],
    )
    with TestClient(create_app(config)) as test_client:
        yield test_client


def test_the_tables_links_carry_one_watch_link(client: TestClient) -> None:
    links = create_table(client)
    watch = links["watch"]
    assert watch["link"].endswith(f"/t/{links['id']}/watch#token={watch['token']}")
    assert watch["overlay"].endswith(f"/t/{links['id']}/overlay#token={watch['stream_token']}")
    grant = Signer(SECRET).verify_any(watch["token"], table=links["id"])
    assert isinstance(grant, Watch) and grant.table == links["id"] and not grant.stream
    # The overlay has a token of its own: only it may ever be sent roles (stream with roles).
    stream = Signer(SECRET).verify_any(watch["stream_token"], table=links["id"])
    assert isinstance(stream, Watch) and stream.stream and stream.table == links["id"]
    with pytest.raises(TokenError) as refused:  # every other endpoint verifies with this
        Signer(SECRET).verify(watch["token"])
    assert refused.value.code == "token_watch_only"


def test_any_number_of_spectators_see_the_public_view_and_cannot_act(
    client: TestClient,
) -> None:
    links = create_table(client)
    with contextlib.ExitStack() as stack:
        host = in_process(stack, client, f"/ws?token={token_of(links, 'host')}")
        host.receive()
        spectators = [
            in_process(stack, client, f"/ws?token={links['watch']['token']}")
            for _ in range(CONNECTIONS_PER_SEAT + 3)  # more than any one seat may open
        ]
        for spectator in spectators:
            view = spectator.receive()
            assert view["type"] == "state" and view["you"] is None
            assert not any(key in view for key in PRIVATE), sorted(view)
            # The lobby is day: he receives everyone's video, and sends none.
            assert view["video"] == {
                "awake": False, "peers": [*range(1, 11), "host"], "spectators": False
            }  # fmt: skip
        host.ack("start")
        watcher = spectators[0]
        view = watcher.until(lambda v: v["phase"] == "black_meeting")
        assert not any(key in view for key in PRIVATE)
        before = host.until(lambda v: v["phase"] == "black_meeting")["table"]["version"]
        for kind, fields in (
            ("vote", {"candidate": 3}),
            ("pass", {}),
            ("nominate", {"target": 2}),
            ("shoot", {"target": 5}),
            ("next", {}),
            ("end_game", {"winner": "city"}),
        ):
            reply = watcher.request(kind, **fields)
            assert reply["type"] == "error" and reply["error"] == "spectator", (kind, reply)
        assert host.request("pause")["type"] == "ack"  # the table still answers the host
        assert host.state is not None and host.state["table"]["version"] > before


@dataclass(frozen=True, slots=True, kw_only=True)
class Bogus(Input):
    """An input no route knows."""

    kind = "bogus"


def test_a_spectator_command_is_refused_before_anything_else() -> None:
    for given in (Vote(candidate=1), Lift(leave=True), Pass(), Start(), Pause(), Bogus()):
        with pytest.raises(Refused) as refused:
            route("watch", given)
        assert refused.value.code == "spectator"


HEAD = "v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\n"
VIDEO = "m=video 9 UDP/TLS/RTP/SAVPF 96\r\nc=IN IP4 0.0.0.0\r\n"


def test_the_watch_link_receives_video_and_never_sends(client: TestClient) -> None:
    links = create_table(client)
    with contextlib.ExitStack() as stack:

        def video(token: str) -> Any:
            ws = stack.enter_context(client.websocket_connect(f"/video?token={token}"))
            return ws

        player = video(token_of(links, 1))
        assert json.loads(player.receive_text())["type"] == "welcome"
        spectator = video(links["watch"]["token"])
        welcome = json.loads(spectator.receive_text())
        me = welcome["you"]
        assert welcome["type"] == "welcome" and me.startswith("watch:"), welcome
        assert [p["seat"] for p in welcome["peers"]] == [1]
        assert json.loads(player.receive_text()) == {"type": "join", "seat": me,
                                                     "conn": welcome["conn"]}  # fmt: skip

        def offer(direction: str) -> dict[str, Any]:
            sdp = HEAD + VIDEO + (f"a={direction}\r\n" if direction else "")
            description = {"type": "offer", "sdp": sdp}
            spectator.send_text(json.dumps(
                {"type": "signal", "to": 1, "gen": 1, "description": description}
            ))  # fmt: skip
            return dict(json.loads(spectator.receive_text())) if direction != "recvonly" else {}

        for direction in ("sendrecv", "sendonly", ""):  # "": no attribute, i.e. sendrecv
            assert offer(direction)["error"] == "receive_only", direction
        offer("recvonly")  # relayed to the player, and only that one
        relayed = json.loads(player.receive_text())
        assert relayed["type"] == "signal" and relayed["from"] == me
        assert "a=recvonly" in relayed["description"]["sdp"]


def test_the_spectators_video_is_bounded(client: TestClient) -> None:
    links = create_table(client)
    with contextlib.ExitStack() as stack:
        for _ in range(MAX_SPECTATORS):
            ws = stack.enter_context(
                client.websocket_connect(f"/video?token={links['watch']['stream_token']}")
            )
            assert json.loads(ws.receive_text())["type"] == "welcome"
        with client.websocket_connect(f"/video?token={links['watch']['token']}") as ws:
            refused = json.loads(ws.receive_text())
            assert refused["error"] == "too_many_spectators", refused
            assert f"{MAX_SPECTATORS} spectators" in refused["message"]


def test_the_watch_link_is_not_the_hosts_for_the_api(client: TestClient) -> None:
    links = create_table(client)
    answer = client.post(
        f"/api/tables/{links['id']}/reissue",
        json={},
        headers={"Authorization": f"Bearer {links['watch']['token']}"},
    )
    assert answer.status_code == 401


def test_the_watch_link_can_be_reissued_and_the_old_one_is_refused(tmp_path: Path) -> None:
    config = ServerConfig(
        db_path=tmp_path / "w.db",
        log=log_opener(tmp_path / "w.db"),
        admin_key="k",
        secret=b"w" * 32,
    )
    with TestClient(create_app(config)) as client:
        auth = {"Authorization": "Bearer k"}
        links = client.post("/api/tables", json={"seats": 10}, headers=auth).json()
        old = links["watch"]["token"]
        answer = client.post(f"/api/tables/{links['id']}/reissue", json={"seat": "watch"},
                             headers=auth)  # fmt: skip
        assert answer.status_code == 200, answer.text
        new = answer.json()["watch"]["token"]
        assert new != old and answer.json()["seats"] == answer.json()["seats"]
        for token, expected in ((old, "error"), (new, "state")):
            with client.websocket_connect("/ws") as ws:
                ws.send_text(json.dumps({"type": "hello", "token": token}))
                assert json.loads(ws.receive_text())["type"] == expected
