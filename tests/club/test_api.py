"""The club through the real app (issue 33): the roster and links over /api/club, a member
joining a table's lobby as himself, the judge's sheet signed by a judge's link or the
table's host link, corrections by an admin; what each kind of link may do, checked for
each action, and every bad input refused with nothing changed."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from plugin.club.pages import club_routes
from plugin.club.site import ClubSite
from plugin.eventlog import EventLog, log_opener, open_log
from plugin.signing import Signer
from plugin.web.app import ServerConfig, create_app
from testing import TestClient, in_process
from testing.club import write_finished_table
from tests.web.conftest import ADMIN, SECRET, create_table
from tests.web.test_lobby_socket import Lobby, device, me, open_lobby

AS_ADMIN = {"Authorization": f"Bearer {ADMIN}"}
NICKS = ["Ann", "Bob", "Cat", "Dan"]


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture
def db(log_at: str | Path) -> str | Path:
    """A log (SQLite, PostgreSQL) with two finished tables (g1, g2) whose first four seats
    are club members."""
    path = log_at
    log = open_log(path)
    assert isinstance(log, EventLog)
    members = {seat: (f"p{seat}", NICKS[seat - 1]) for seat in range(1, 5)}
    write_finished_table(log, "g1", seed=1, members=members)
    write_finished_table(log, "g2", seed=7, members=members)
    log.close()
    return path


def club_app(db: str | Path, files: Path) -> TestClient:
    """A server with the club on the log at `db` (its own files in `files`)."""
    site = ClubSite()
    config = ServerConfig(db_path=files, log=log_opener(db), admin_key=ADMIN, secret=SECRET,
                          routes=[club_routes(site)], member=site.member)  # fmt: skip
    return TestClient(create_app(config))


@pytest.fixture
def client(db: str | Path, tmp_path: Path) -> Iterator[TestClient]:
    with club_app(db, tmp_path / "files") as test_client:
        yield test_client


def add(client: TestClient, nick: str, **fields: str) -> dict[str, Any]:
    answer = client.post("/api/club/players", json={"nick": nick, **fields}, headers=AS_ADMIN)
    assert answer.status_code == 201, answer.text
    return dict(answer.json())


def link(
    client: TestClient, ref: str, kind: str = "player", auth: dict[str, str] = AS_ADMIN
) -> str:
    answer = client.post(f"/api/club/players/{ref}/link", json={"kind": kind}, headers=auth)
    assert answer.status_code == 200, answer.text
    assert answer.json()["link"].endswith(f"/club/me#token={answer.json()['token']}")
    return str(answer.json()["token"])


def roster(client: TestClient) -> list[dict[str, Any]]:
    return list(client.get("/api/club/players").json())


@pytest.fixture
def club(client: TestClient) -> dict[str, str]:
    """Ann..Dan on the roster (p1..p4); Dan a judge, Cat an admin; each one's links."""
    for nick in NICKS:
        add(client, nick)
    for nick, role in (("Dan", "judge"), ("Cat", "admin")):
        assert client.post(f"/api/club/players/{nick}/grant", json={"role": role},
                           headers=AS_ADMIN).status_code == 200  # fmt: skip
    return {
        "ann": link(client, "Ann"), "judge": link(client, "Dan", "judge"),
        "admin": link(client, "Cat", "admin"), "cat": link(client, "Cat"),
    }  # fmt: skip


def test_each_action_refuses_each_link_without_the_right(
    client: TestClient, club: dict[str, str]
) -> None:
    before = roster(client)
    host = create_table(client)["host"]["token"]
    changes = [
        ("/api/club/players", {"nick": "Eve"}),
        ("/api/club/players/Ann/link", {"kind": "player"}),
        ("/api/club/players/Ann/revoke", {"kind": "player"}),
        ("/api/club/players/Ann/grant", {"role": "judge"}),
        ("/api/club/sheet/g1/correct", {"reason": "x"}),
    ]
    for path, body in changes:
        for token in (club["ann"], club["judge"], club["cat"]):  # a player's, a judge's
            answer = client.post(path, json=body, headers=bearer(token))
            assert (answer.status_code, answer.json()["error"]) == (403, "forbidden"), path
        answer = client.post(path, json=body, headers=bearer(host))  # a table's host link
        assert answer.status_code == 401 and answer.json()["error"] == "token_not_personal"
        answer = client.post(path, json=body)
        assert answer.status_code == 401 and answer.json()["error"] == "no_token"
    for token in (club["ann"], club["cat"], host):  # the sheet: a judge's, a host's, admins
        assert client.post("/api/club/sheet/g1", json={}, headers=bearer(token)).status_code in (
            401, 403)  # fmt: skip
    assert client.get("/api/club/sheet/g1", headers=bearer(club["ann"])).status_code == 403
    assert roster(client) == before
    # an admin's personal link may do what the admin key does
    eve = client.post("/api/club/players", json={"nick": "Eve"}, headers=bearer(club["admin"]))
    assert eve.status_code == 201
    # a revoked link is refused, even an admin's
    client.post("/api/club/players/Cat/revoke", json={"kind": "admin"}, headers=AS_ADMIN)
    again = client.post("/api/club/players", json={"nick": "Fay"}, headers=bearer(club["admin"]))
    assert (again.status_code, again.json()["error"]) == (401, "token_revoked")


def test_bad_roster_input_changes_nothing(client: TestClient, club: dict[str, str]) -> None:
    before = roster(client)
    for body, code in [
        ({"nick": "ann"}, "nick_taken"), ({"nick": ""}, "bad_field"), ({"nick": 3}, "bad_field"),
        ({"nick": "x" * 41}, "bad_field"), ({"nick": "Zed", "role": "admin"}, "bad_field"),
    ]:  # fmt: skip
        answer = client.post("/api/club/players", json=body, headers=AS_ADMIN)
        assert answer.json()["error"] == code and answer.status_code in (400, 409)
    answer = client.post("/api/club/players", content=b"[1,", headers=AS_ADMIN)
    assert answer.json()["error"] == "bad_json"
    answer = client.post("/api/club/players/Nobody/link", json={}, headers=AS_ADMIN)
    assert (answer.status_code, answer.json()["error"]) == (404, "no_player")
    answer = client.post("/api/club/players/Ann/link", json={"kind": "judge"}, headers=AS_ADMIN)
    assert answer.json()["error"] == "no_right"
    assert roster(client) == before


def sheet_of(client: TestClient, token: str, table: str = "g1") -> dict[str, Any]:
    answer = client.get(f"/api/club/sheet/{table}", headers=bearer(token))
    assert answer.status_code == 200, answer.text
    return dict(answer.json())


def standings(client: TestClient) -> dict[str, dict[str, Any]]:
    return {row["nick"]: row for row in client.get("/api/club/standings").json()["rows"]}


def test_a_judge_signs_an_admin_corrects_and_the_standings_follow(
    client: TestClient, club: dict[str, str]
) -> None:
    draft = sheet_of(client, club["judge"])
    assert draft["signed"] is False and [s["nick"] for s in draft["seats"][:4]] == NICKS
    assert client.get("/api/club/standings").json()["error"] == "no_games"
    for sheet, code in [
        ({"extra": {"1": [{"points": 0.5, "comment": ""}]}}, "comment_required"),
        ({"extra": {"1": [{"points": 0.5}]}}, "comment_required"),
        ({"extra": {"1": [{"points": 1.5, "comment": "great"}]}}, "points_out_of_range"),
        ({"extra": {"1": [{"points": 0.33, "comment": "odd"}]}}, "bad_points"),
        ({"extra": {"11": [{"points": 0.5, "comment": "who"}]}}, "bad_seat"),
        ({"team_disqualified": {"team": "mafia"}}, "comment_required"),
        ({"colour": "red"}, "bad_sheet"),
    ]:
        answer = client.post("/api/club/sheet/g1", json={"sheet": sheet},
                             headers=bearer(club["judge"]))  # fmt: skip
        assert (answer.status_code, answer.json()["error"]) == (400, code), sheet
    assert sheet_of(client, club["judge"])["signed"] is False
    bonus = {"extra": {"1": [{"points": 0.5, "comment": "led the city"}]}}
    signed = client.post("/api/club/sheet/g1", json={"sheet": bonus, "season": "2026"},
                         headers=bearer(club["judge"]))  # fmt: skip
    assert signed.status_code == 201 and signed.json()["signed"] is True
    twice = client.post("/api/club/sheet/g1", json={"sheet": {}}, headers=bearer(club["judge"]))
    assert (twice.status_code, twice.json()["error"]) == (409, "already_signed")
    ann = standings(client)["Ann"]
    assert sorted(standings(client)) == sorted(NICKS)  # the guests of seats 5-10 have no line
    assert client.get("/api/club/standings").json()["rows"][0]["rank"] == 1
    assert ann["extra"] == pytest.approx(0.8)  # 0.3 auto-bonus + the judge's 0.5
    # the table's own host link signs its game (and no other table's)
    host = create_table(client)["host"]["token"]
    other = client.post("/api/club/sheet/g2", json={"sheet": {}}, headers=bearer(host))
    assert other.status_code == 401
    # a correction: the admin's, with a reason; the standings follow; its history is kept
    fix = {"sheet": {"extra": {"1": [{"points": -0.5, "comment": "insulted the judge"}]}}}
    unexplained = client.post("/api/club/sheet/g1/correct", json=fix, headers=bearer(club["admin"]))
    assert unexplained.json()["error"] == "reason_required"
    done = client.post("/api/club/sheet/g1/correct", json={**fix, "reason": "the video"},
                       headers=bearer(club["admin"]))  # fmt: skip
    assert done.status_code == 200, done.text
    assert standings(client)["Ann"]["extra"] == pytest.approx(-0.2)
    history = done.json()["history"]
    assert [h["what"] for h in history] == ["signed", "corrected"]
    assert history[1]["by"] == "admin:Cat" and history[1]["reason"] == "the video"
    assert history[1]["before"]["sheet"] == bonus
    record = client.get("/api/club/games/g1.json").json()
    assert record["sheet"] == fix["sheet"]
    # reversing it restores the standings
    back = client.post("/api/club/sheet/g1/correct", json={"sheet": bonus, "reason": "undo"},
                       headers=AS_ADMIN)  # fmt: skip
    assert back.status_code == 200
    assert standings(client)["Ann"] == ann
    csv = client.get("/api/club/standings.csv?season=2026")
    assert csv.headers["content-type"].startswith("text/csv")
    assert csv.text.splitlines()[0].startswith("rank,nick,games")
    assert len(csv.text.splitlines()) == 1 + len(standings(client))
    page = client.get("/api/club/players/Ann/page").json()
    assert [g["game_id"] for g in page["games"]] == ["g1"] and len(page["history"]) == 1
    # the table's own host link signs its game
    own = Signer(SECRET).issue("g2", "host")
    assert (
        client.post("/api/club/sheet/g2", json={"sheet": {}}, headers=bearer(own)).status_code
        == 201
    )
    assert client.get("/api/club/games").json()[0]["game_id"] == "g2"
    history = client.get("/api/club/games/g2.json").json()["history"]
    assert history[0]["by"] == "host:g2"


def test_a_member_joins_a_lobby_as_himself(
    client: TestClient, club: dict[str, str], db: str | Path
) -> None:
    links = create_table(client)
    table, invite = links["id"], links["invite"]["token"]
    with contextlib.ExitStack() as stack:
        lobby = open_lobby(stack, client, table, invite, device(1))
        hello = {"type": "hello", "token": invite, "table": table, "device": device(2),
                 "member": club["ann"]}  # fmt: skip
        ann = Lobby(in_process(stack, client, "/lobby"))
        ann.client.send_frame("text", json.dumps(hello).encode())
        assert me(ann.until(lambda m: m["me"]["state"] == "waiting"))["name"] == "Ann"
        assert lobby.until(lambda m: "Ann" in m["waiting"])
        # a judge's link joins no table; a revoked link is refused
        for token, code in ((club["judge"], "token_not_player"), ("x.y", "token_malformed")):
            other = Lobby(in_process(stack, client, "/lobby"))
            other.client.send_frame("text", json.dumps({**hello, "member": token,
                                                        "device": device(3)}).encode())  # fmt: skip
            assert other.receive()["error"] == code
    log = open_log(db)
    joins = [e.record for e in log.entries(table) if e.record["type"] == "lobby.join"]
    assert joins[-1]["player"] == "p1" and joins[-1]["name"] == "Ann"
    log.close()


def test_the_club_survives_a_restart(db: str | Path, tmp_path: Path) -> None:
    """Roster, links and signed sheets are the log's: a new server on it has them all."""
    with club_app(db, tmp_path / "files") as client:
        add(client, "Ann")
        token = link(client, "Ann")
        client.post("/api/club/sheet/g1", json={"sheet": {}}, headers=AS_ADMIN)
        before = client.get("/api/club/standings").json()
    with club_app(db, tmp_path / "files") as client:
        assert client.get("/api/club/standings").json() == before
        assert client.get("/api/club/me", headers=bearer(token)).json()["player"]["nick"] == "Ann"


def test_the_clubs_name_and_language(client: TestClient, club: dict[str, str]) -> None:
    assert client.get("/api/club/settings").json() == {"name": "", "language": ""}
    body = {"name": "Мафія Львів", "language": "uk"}
    refused = client.post("/api/club/settings", json=body, headers=bearer(club["judge"]))
    assert refused.status_code == 403
    bad = client.post("/api/club/settings", json={"language": "de"}, headers=AS_ADMIN)
    assert bad.json()["error"] == "bad_language"
    assert (
        client.post("/api/club/settings", json=body, headers=bearer(club["admin"])).json() == body
    )
    assert client.get("/api/club/settings").json() == body


def test_a_judge_creates_and_hosts_tables(client: TestClient, club: dict[str, str]) -> None:
    for token in (club["ann"], club["cat"]):  # a player's link hosts nothing
        assert client.post("/api/club/tables", json={}, headers=bearer(token)).status_code == 403
        assert client.get("/api/club/tables", headers=bearer(token)).status_code == 403
    made = client.post("/api/club/tables", json={"seats": 10}, headers=bearer(club["judge"]))
    assert made.status_code == 201, made.text
    table = made.json()["id"]
    bad = client.post("/api/club/tables", json={"seats": 99}, headers=bearer(club["judge"]))
    assert bad.status_code == 400
    listed = client.get("/api/club/tables", headers=bearer(club["judge"])).json()
    assert table in [t["id"] for t in listed]
    host = client.post(f"/api/club/tables/{table}/host", headers=bearer(club["judge"])).json()
    token = host["link"].partition("#token=")[2]
    assert Signer(SECRET).verify(token, table=table).is_host
    none = client.post("/api/club/tables/nosuch/host", headers=bearer(club["judge"]))
    assert none.status_code == 404
