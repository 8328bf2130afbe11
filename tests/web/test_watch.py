"""The spectators' watch link over the protocol (issue 17): one link for any number of
spectators; each gets the public view and can neither speak nor vote, and the link opens
nothing but the table's socket (not the video relay, not the API)."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import pytest

from plugin.host.commands import Command, Refused, authorize
from plugin.signing import Signer, TokenError, Watch
from plugin.testing import TestClient, in_process
from plugin.web.app import ServerConfig, create_app
from plugin.web.limits import CONNECTIONS_PER_SEAT
from plugin.web.video import video_routes

from .conftest import ADMIN, SECRET, create_table, token_of

PRIVATE = ("me", "roles", "checks", "shots", "black_team", "controls", "best_move")


@pytest.fixture
def client(tmp_path: Path):
    config = ServerConfig(
        db_path=tmp_path / "autohost.db", admin_key=ADMIN, secret=SECRET, routes=[video_routes]
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
            assert view["video"] == {"awake": False, "peers": []}
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


def test_a_spectator_command_is_refused_before_anything_else() -> None:
    for kind in ("vote", "lift", "pass", "start", "pause", "bogus"):
        with pytest.raises(Refused) as refused:
            authorize("watch", Command(kind=kind))
        assert refused.value.code == "spectator"


def test_the_watch_link_opens_no_video(client: TestClient) -> None:
    links = create_table(client)
    with client.websocket_connect(f"/video?token={links['watch']['token']}") as ws:
        reply = json.loads(ws.receive_text())
        assert reply["type"] == "error" and reply["error"] == "token_watch_only", reply


def test_the_watch_link_is_not_the_hosts_for_the_api(client: TestClient) -> None:
    links = create_table(client)
    answer = client.post(
        f"/api/tables/{links['id']}/reissue",
        json={},
        headers={"Authorization": f"Bearer {links['watch']['token']}"},
    )
    assert answer.status_code == 401


def test_the_watch_link_can_be_reissued_and_the_old_one_is_refused(tmp_path: Path) -> None:
    config = ServerConfig(db_path=tmp_path / "w.db", admin_key="k", secret=b"w" * 32)
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
