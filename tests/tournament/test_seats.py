"""Late and absent players (issue 34, plugin.tournament.seats) through the real app: a judge
replaces a player before the game (the table names the seat after the new player, the old
seat token stops, the sheet's seat is his, his tournament page is sent there), or starts a
table without one (the game starts and the seat is out, as the rules remove a player who
left); bad input is refused and writes nothing; asking again writes nothing more."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from plugin.club.games import seated_players
from plugin.eventlog import open_log
from tests.tournament.test_links import closing_sockets, hello, refused, shut
from tests.tournament.test_rounds import AS_ADMIN, club_records, seated_tournament, serving


def table_view(client: Any, table_id: str) -> dict[str, Any]:
    reply = client.get(f"/api/tables/{table_id}", headers=AS_ADMIN)
    assert reply.status_code == 200, reply.text
    return dict(reply.json())


def logged_seats(db: Path, table_id: str) -> dict[int, str]:
    log = open_log(db)
    try:
        return seated_players(e.record for e in log.entries(table_id))
    finally:
        log.close()


def test_judges_replace_a_late_player_or_start_without_him(tmp_path: Path) -> None:
    db = tmp_path / "log.db"
    with serving(db) as (client, _), closing_sockets():
        seated_tournament(client)
        reserve = client.post("/api/club/players", json={"nick": "Reserve"}, headers=AS_ADMIN)
        reserve_id = reserve.json()["id"]
        issued = client.post("/api/club/tournaments/t1/links", json={}, headers=AS_ADMIN)
        links = {link["player"]: link for link in issued.json()["links"]}
        start = client.post("/api/club/tournaments/t1/start", json={"round": 0}, headers=AS_ADMIN)
        one, two = start.json()["tables"]
        late = one["seats"][2]  # seat 3 of table 1
        page = hello(client, "/club/tournaments/ws", links[late]["token"])
        old_token = page.receive_json()["token"]
        shut(page)

        url = "/api/club/tournaments/t1/replace"
        before = club_records(db)
        wrong = [({"table": "nope", "seat": 3, "player": "Reserve"}, 404, "no_table"),
                 ({"table": one["id"], "seat": 11, "player": "Reserve"}, 400, "bad_seat"),
                 ({"table": one["id"], "seat": 3, "player": "Nobody"}, 404, "no_player"),
                 ({"table": one["id"], "seat": 3, "player": two["seats"][0]}, 409,
                  "player_busy")]  # fmt: skip
        for body, status, code in wrong:
            reply = client.post(url, json=body, headers=AS_ADMIN)
            assert (reply.status_code, reply.json()["error"]) == (status, code), body
        assert client.post(url, json=wrong[0][0]).status_code == 401
        assert club_records(db) == before

        body = {"table": one["id"], "seat": 3, "player": "Reserve"}
        reply = client.post(url, json=body, headers=AS_ADMIN)
        assert reply.status_code == 200, reply.text
        assert reply.json()["was"] == late and reply.json()["player"] == reserve_id
        assert table_view(client, one["id"])["settings"]["names"][2] == "Reserve"
        assert logged_seats(db, one["id"])[3] == reserve_id
        assert refused(client, "/ws", old_token) == "token_reissued"
        waiting = hello(client, "/club/tournaments/ws", links[late]["token"])
        assert waiting.receive_json()["type"] == "tournament"  # no seat now: he waits
        shut(waiting)
        records = club_records(db)
        again = client.post(url, json=body, headers=AS_ADMIN)  # asked again: nothing more
        assert again.status_code == 200 and again.json()["already"] is True
        assert club_records(db) == records
        mine = client.post("/api/club/tournaments/t1/links", json={"players": ["Reserve"]},
                           headers=AS_ADMIN).json()["links"][0]  # fmt: skip
        page = hello(client, "/club/tournaments/ws", mine["token"])
        moved = page.receive_json()
        shut(page)
        assert moved["type"] == "moved" and moved["table"] == one["id"]
        at_table = hello(client, "/ws", moved["token"])
        assert at_table.receive_json()["you"] == 3
        shut(at_table)

        absent = "/api/club/tournaments/t1/absent"
        gone = two["seats"][4]
        assert table_view(client, two["id"])["view"]["phase"] == "lobby"
        before = club_records(db)
        bad = client.post(absent, json={"table": two["id"], "seat": 0}, headers=AS_ADMIN)
        assert bad.status_code == 400 and club_records(db) == before
        reply = client.post(absent, json={"table": two["id"], "seat": 5}, headers=AS_ADMIN)
        assert reply.status_code == 200, reply.text
        assert reply.json()["player"] == gone and reply.json()["table_now"]["absent"] == [5]
        view = table_view(client, two["id"])["view"]
        assert view["phase"] != "lobby" and 5 not in view["alive"] and len(view["alive"]) == 9
        records = club_records(db)
        again = client.post(absent, json={"table": two["id"], "seat": 5}, headers=AS_ADMIN)
        assert again.status_code == 200 and again.json()["already"] is True
        assert club_records(db) == records
        late_swap = client.post(url, json={"table": two["id"], "seat": 6, "player": late},
                                headers=AS_ADMIN)  # fmt: skip
        assert late_swap.status_code == 409 and late_swap.json()["error"] == "game_started"
        assert club_records(db) == records
        page = hello(client, "/club/tournaments/ws", links[gone]["token"])
        assert page.receive_json()["type"] == "tournament"  # left out: no seat to go to
        shut(page)
