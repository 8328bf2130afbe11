"""The judges' board (issue 34, plugin.tournament.board) through the real app: every table
of the round being played with its phase, who has joined which seat, the decision it
waits for and its trouble; judges and admins only; the console's host link from it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.tournament.test_links import closing_sockets, hello, shut
from tests.tournament.test_rounds import AS_ADMIN, seated_tournament, serving


def get_board(client: Any, headers: dict[str, str] = AS_ADMIN) -> dict[str, Any]:
    reply = client.get("/api/club/tournaments/t1/board", headers=headers)
    assert reply.status_code == 200, reply.text
    return dict(reply.json())


def test_the_board_shows_every_table_of_the_round(tmp_path: Path) -> None:
    db = tmp_path / "log.db"
    with serving(db) as (client, _), closing_sockets():
        seated_tournament(client)
        assert client.get("/api/club/tournaments/t1/board").status_code == 401
        player = client.post("/api/club/players/P1/link", json={"kind": "player"},
                             headers=AS_ADMIN).json()["token"]  # fmt: skip
        as_player = {"Authorization": f"Bearer {player}"}
        reply = client.get("/api/club/tournaments/t1/board", headers=as_player)
        assert reply.status_code == 403
        assert client.get("/api/club/tournaments/t9/board", headers=AS_ADMIN).status_code == 404
        assert get_board(client)["rounds"] == []
        page = client.get("/club/tournaments/t1/board")
        assert page.status_code == 200 and "tournament-board.js" in page.text

        assert client.post("/api/club/players/P2/grant", json={"role": "judge"},
                           headers=AS_ADMIN).is_success  # fmt: skip
        judge = client.post("/api/club/players/P2/link", json={"kind": "judge"},
                            headers=AS_ADMIN).json()["token"]  # fmt: skip
        as_judge = {"Authorization": f"Bearer {judge}"}
        issued = client.post("/api/club/tournaments/t1/links", json={}, headers=AS_ADMIN)
        links = {link["player"]: link["token"] for link in issued.json()["links"]}
        start = client.post("/api/club/tournaments/t1/start", json={"round": 0}, headers=AS_ADMIN)
        one, two = start.json()["tables"]

        (round_,) = get_board(client, as_judge)["rounds"]
        assert (round_["stage_name"], round_["round"]) == ("qualifying", 0)
        tables = round_["tables"]
        assert [t["id"] for t in tables] == [one["id"], two["id"]]
        for table in tables:
            assert table["where"] == "here" and table["phase"] == "lobby"
            assert table["decision"] == "start" and table["trouble"] == []
            assert [s["joined"] for s in table["seats"]] == [False] * 10

        first = one["seats"][0]  # his page goes to his seat: the board sees him there
        page = hello(client, "/club/tournaments/ws", links[first])
        seat_token = page.receive_json()["token"]
        shut(page)
        at_table = hello(client, "/ws", seat_token)
        assert at_table.receive_json()["type"] == "state"
        seats = get_board(client, as_judge)["rounds"][0]["tables"][0]["seats"]
        assert [s["joined"] for s in seats] == [True] + [False] * 9
        assert seats[0]["nick"] == one["nicks"][0]
        shut(at_table)

        reply = client.post("/api/club/tournaments/t1/absent", json={"table": two["id"],
                            "seat": 2}, headers=as_judge)  # fmt: skip
        assert reply.status_code == 200
        later = get_board(client, as_judge)["rounds"][0]["tables"][1]
        assert later["phase"] != "lobby" and later["day"] == 0 and later["decision"] is None
        assert later["seats"][1]["absent"] is True and 2 not in later["alive"]
        assert later["left"] is not None and later["left"] > 0  # night zero's clock runs

        play = "/api/club/tournaments/t1/play"
        for body, status in (({"round": 3}, 404), ({"round": "0"}, 404), ({}, 404)):
            assert client.post(play, json=body, headers=as_judge).status_code == status, body
        assert client.post(play, json={"round": 0}, headers=as_player).status_code == 403
        assert get_board(client)["rounds"][0]["tables"][0]["phase"] == "lobby"
        begun = client.post(play, json={"round": 0}, headers=as_judge).json()
        assert begun == {"started": [one["id"]], "skipped": {two["id"]: "started already"}}
        assert get_board(client)["rounds"][0]["tables"][0]["phase"] != "lobby"

        console = client.post(f"/api/club/tables/{one['id']}/host", headers=as_judge)
        assert console.status_code == 200
        assert f"/t/{one['id']}/host#token=" in console.json()["link"]

        assert client.post("/api/club/tournaments/t1/finish", json={"round": 0},
                           headers=AS_ADMIN).is_success  # fmt: skip
        assert get_board(client)["rounds"] == []


def test_the_board_names_a_table_not_made(tmp_path: Path) -> None:
    db = tmp_path / "log.db"
    with serving(db, max_tables=1) as (client, _):
        seated_tournament(client)
        reply = client.post("/api/club/tournaments/t1/start", json={"round": 0}, headers=AS_ADMIN)
        assert reply.status_code == 503
        made, missing = get_board(client)["rounds"][0]["tables"]
        assert made["where"] == "here" and made["trouble"] == []
        assert missing["where"] == "missing" and missing["trouble"] == ["not_made"]
        assert [s["joined"] for s in missing["seats"]] == [None] * 10
