"""Links that outlive what the host did (issue 31), against a real `autohost serve`.

The outside check: after "next game", the finished game's host token still got 200 from
`POST /api/tables/{old}/next` with every link of the new game in the answer, after the
new game's host had re-issued them all; an old seat link got `moved` with a fresh token
of a seat the new table had re-issued; and the finished table could not be re-issued
(404), so a leaked link of it could never be revoked. The rule: a link's power over a
table comes only from that table's own current generation (plugin/web/succession.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from plugin.signing import Signer
from testing import SECRET, ServerProcess, connect

pytestmark = pytest.mark.slow
ROLES = {"1": "don", "2": "mafia", "3": "mafia", "4": "sheriff"}


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ServerProcess]:
    with ServerProcess(tmp_path / "autohost.db", options=["--no-voice"]) as running:
        yield running


def post(server: ServerProcess, path: str, token: str, body: Any = None) -> httpx.Response:
    headers = {"Authorization": f"Bearer {token}"}
    return httpx.post(f"{server.base}{path}", json=body, headers=headers, timeout=30)


def token_of(links: dict[str, Any], who: int | str) -> str:
    if isinstance(who, int):
        return str(links["seats"][who - 1]["token"])
    return str(links[who]["token"])


def first_answer(server: ServerProcess, token: str) -> dict[str, Any]:
    """What a page opening `token` on /ws is told first."""
    with connect(server.ws_url(token), timeout=30) as page:
        return page.receive()


def finished_table(server: ServerProcess) -> dict[str, Any]:
    """A table whose game is over: the don and both mafiosi disqualified, the city wins."""
    body = {"preset": "online", "language": "uk", "seats": 10, "roles": ROLES}
    created = post(server, "/api/tables", server.admin_key, body)
    assert created.status_code == 201, created.text
    links = created.json()
    with connect(server.ws_url(token_of(links, "host")), timeout=30) as host:
        host.ack("start")
        for seat in (1, 2, 3):
            host.ack("disqualify", seat=seat)
        host.until(lambda state: bool(state["over"]))
    return dict(links)


def test_a_finished_games_links_lose_their_power_once_the_next_game_reissues(
    server: ServerProcess,
) -> None:
    links = finished_table(server)
    old, old_host = links["id"], token_of(links, "host")
    started = post(server, f"/api/tables/{old}/next", old_host)
    assert started.status_code == 200, started.text
    new = started.json()["successor"]
    # The old host token starts the next game; it never gets the new game's links.
    assert started.json()["links"] is None
    signer = Signer(SECRET.encode())
    # Until the new table re-issues a link, an old page is moved to its seat there.
    moved = first_answer(server, token_of(links, 3))
    assert moved["type"] == "moved" and signer.verify(moved["token"], table=new).seat == 3

    # The new game's host re-issues seat 3: the finished game's seat-3 link goes nowhere.
    assert post(server, f"/api/tables/{new}/reissue", server.admin_key, {"seat": 3}).is_success
    refused = first_answer(server, token_of(links, 3))
    assert refused["type"] == "error" and refused["error"] == "token_reissued", refused
    kept = first_answer(server, token_of(links, 5))  # a seat it did not re-issue still moves
    assert kept["type"] == "moved" and signer.verify(kept["token"], table=new).seat == 5

    # Every link of the new game re-issued: the old host token acts on nothing after it.
    assert post(server, f"/api/tables/{new}/reissue", server.admin_key, {}).is_success
    again = post(server, f"/api/tables/{old}/next", old_host)
    assert again.status_code == 401 and "links" not in again.json(), again.text
    assert first_answer(server, old_host)["error"] == "token_reissued"
    watch = first_answer(server, links["watch"]["token"])
    assert watch["type"] == "error" and watch["error"] == "token_reissued"
    # The admin still gets the new game's current links.
    current = post(server, f"/api/tables/{old}/next", server.admin_key).json()["links"]
    assert current["id"] == new and token_of(current, "host") != old_host


def test_an_archived_tables_links_can_be_revoked(server: ServerProcess) -> None:
    links = finished_table(server)
    old = links["id"]
    assert post(server, f"/api/tables/{old}/next", server.admin_key).is_success
    # A leaked seat-6 link of the finished game: revoked at the finished table, it gets
    # neither the end screen nor a seat at the next game.
    for forged in ("nonsense", token_of(links, 6)):
        assert post(server, f"/api/tables/{old}/reissue", forged, {"seat": 6}).status_code == 401
    assert first_answer(server, token_of(links, 6))["type"] == "moved"  # refusals changed nothing
    revoked = post(server, f"/api/tables/{old}/reissue", token_of(links, "host"), {"seat": 6})
    assert revoked.status_code == 200, revoked.text
    refused = first_answer(server, token_of(links, 6))
    assert refused["type"] == "error" and refused["error"] == "token_reissued", refused
    assert first_answer(server, token_of(links, 7))["type"] == "moved"
    # The whole finished table, host link included.
    assert post(server, f"/api/tables/{old}/reissue", server.admin_key, {}).is_success
    for who in ("host", 7):
        assert first_answer(server, token_of(links, who))["error"] == "token_reissued"
    nothing = post(server, f"/api/tables/{old}/next", token_of(links, "host"))
    assert nothing.status_code == 401
    assert post(server, "/api/tables/nosuch/reissue", server.admin_key, {}).status_code == 404
