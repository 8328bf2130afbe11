"""A tournament's live standings (issue 34): each linked table's signed sheet counts at once;
a round is finished by its sheets; hidden extras stay hidden from the public until revealed
or the tournament ends; a later stage takes the top of the standings; the live standings
equal a recomputation from the records (hypothesis), and a reopened log folds the same.
Bad input is refused with its code and writes nothing."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest

from plugin.club import Club, ClubError, ClubState
from plugin.eventlog import EventLog, open_log
from plugin.signing import Signer
from plugin.tournament import Tournament, Tournaments, TournamentState, played
from plugin.tournament.exports import document, to_csv
from plugin.tournament.standings import Live, recompute
from tests.tournament.test_recompute import opening

DEAL = ("civilian",) * 6 + ("sheriff", "mafia", "mafia", "don")
SECRET = b"standings-secret-0123456789abcdef"


def game_of(players: list[str], *, winner: str, deal: tuple[str, ...] = DEAL,
            first_killed: int | None = None) -> dict[str, Any]:  # fmt: skip
    """A finished game's record (as plugin.club.games keeps it) with these players at seats
    1..10 and roles dealt in `deal`'s order."""
    seats = []
    for n, player in enumerate(players):
        out, night = ("killed", 1) if first_killed == n + 1 else (None, None)
        seats.append({"seat": n + 1, "player": player, "role": deal[n], "out": out,
                      "night": night, "fouls": 0})  # fmt: skip
    return {"winner": winner, "best_move": None, "seats": seats}


def extra(seat: int, points: float) -> dict[str, Any]:
    return {"extra": {str(seat): [{"points": points, "comment": "a fine speech"}]}}


class Cup:
    """A club of 20 players and its tournament on a real log: 20 players, 2 tables, 2 games
    each (two rounds), then a final of 10 (1 game) whose extras are hidden."""

    def __init__(self, path: str | Path, *, final_games: int = 1) -> None:
        self.path = path
        self.log = open_log(path)
        assert isinstance(self.log, EventLog)
        self.club = Club(self.log, Signer(SECRET))
        for n in range(1, 21):
            self.club.change(lambda s, n=n: s.add_player({"nick": f"P{n}"}), source="test")
        self.t = Tournaments(self.club)
        fields = {"name": "Cup", "players": [f"P{n}" for n in range(1, 21)], "tables": 2,
                  "games": 2, "stages": [{"name": "final", "players": 10, "tables": 1,
                                          "games": final_games}],
                  "hide_extras_from": "final"}  # fmt: skip
        self.t.create(fields, source="test")
        self.t.seat("t1", 0, moves=20_000, source="test")  # the same seating every run
        self.games = 0

    def tournament(self) -> Tournament:
        self.t.refresh()
        return self.t.state.get("t1")

    def table(self, stage: int, round_: int, table_no: int) -> list[str]:
        s = self.t.state.get("t1").stages[stage]
        return [s.seated[i] for i in s.seating[round_][table_no - 1]]

    def play(self, stage: int, round_: int, table_no: int, sheet: dict[str, Any] | None = None,
             *, winner: str = "city", link: bool = True) -> str:  # fmt: skip
        """A table of the round linked, its game finished and its sheet signed."""
        self.games += 1
        table_id = f"g{self.games}"
        if link:
            self.t.link_table("t1", stage, round_, table_no, table_id, source="test")
        game = game_of(self.table(stage, round_, table_no), winner=winner)
        self.sign(table_id, game, sheet or {})
        return table_id

    def sign(self, table_id: str, game: dict[str, Any], sheet: dict[str, Any]) -> None:
        self.club.change(lambda s: s.sign(table_id, "2026", "fiim", game, sheet, "judge:p1"),
                         source="judge:p1")  # fmt: skip

    def doc(self, *, judge: bool = True) -> dict[str, Any]:
        self.t.refresh()
        return document(self.t.state, self.t.live, "t1", self.club.state.nick_of, judge=judge)

    def written(self) -> int:
        return len(self.log.club_records(0))


@pytest.fixture
def cup(tmp_path: Path) -> Cup:
    return Cup(tmp_path / "cup.db")


def totals(doc: dict[str, Any], table: str = "overall") -> dict[str, float]:
    rows = (
        doc["overall"]["rows"]
        if table == "overall"
        else next(s["rows"] for s in doc["stages"] if s["name"] == table)
    )
    return {row["player"]: row["total"] for row in rows}


def test_a_signed_sheet_counts_at_once_and_sheets_finish_the_round(cup: Cup) -> None:
    cup.t.start_round("t1", 0, 0, source="test")
    first = cup.play(0, 0, 1, extra(3, 0.5), winner="city")
    doc = cup.doc()
    players = cup.table(0, 0, 1)
    assert doc["stages"][0]["games"] == 1 and len(doc["overall"]["rows"]) == 10
    scored = totals(doc)
    # city won: the six civilians and the sheriff 1 + 0.3 auto-bonus, seat 3 half a point more
    assert scored[players[2]] == 1.8 and scored[players[0]] == 1.3 and scored[players[7]] == 0.3
    assert doc["stages"][0]["rows"][0]["player"] == players[2]
    assert 0 not in cup.tournament().stages[0].finished  # one table of two signed
    cup.play(0, 0, 2, winner="mafia")
    assert 0 in cup.tournament().stages[0].finished  # every table signed: finished
    # a correction moves the standings at once
    cup.club.change(lambda s: s.correct(first, {}, s.signed[first].game, "no bonus", "admin"),
                    source="admin")  # fmt: skip
    assert totals(cup.doc())[players[2]] == 1.3
    # the manual finish stays for a round played otherwise
    cup.t.start_round("t1", 0, 1, source="test")
    cup.t.finish_round("t1", 0, 1, source="test")
    assert cup.tournament().stages[0].done


def test_bad_links_are_refused_and_write_nothing(cup: Cup) -> None:
    cases: list[tuple[tuple[Any, ...], str]] = [
        (("t1", 0, 0, 1, "g1"), "round_not_started"),
        (("t9", 0, 0, 1, "g1"), "no_tournament"),
    ]
    before = cup.written()
    for args, code in cases:
        with pytest.raises(ClubError) as refused:
            cup.t.link_table(*args, source="test")
        assert refused.value.code == code
    cup.t.start_round("t1", 0, 0, source="test")
    cup.t.link_table("t1", 0, 0, 1, "g1", source="test")
    before = cup.written()
    refused_links = [
        (("t1", 0, 0, 3, "g2"), "no_table"), (("t1", 0, 0, 1, "g2"), "table_taken"),
        (("t1", 0, 0, 2, "g1"), "table_linked"), (("t1", 0, 0, 2, ""), "bad_field"),
        (("t1", 0, 0, True, "g2"), "no_table"), (("t1", 1, 0, 1, "g2"), "not_seated"),
        (("t1", 0, 5, 1, "g2"), "no_round"), (("t1", 0, 0, 2, " g2"), "bad_field"),
    ]  # fmt: skip
    for args, code in refused_links:
        with pytest.raises(ClubError) as refused:
            cup.t.link_table(*args, source="test")
        assert refused.value.code == code, args
    assert cup.written() == before


def qualify(cup: Cup) -> None:
    """Both qualifying rounds played and signed, every seat a judge's bonus of its own (so
    that few players tie)."""
    for r in (0, 1):
        cup.t.start_round("t1", 0, r, source="test")
        for table_no in (1, 2):
            bonuses = {str(k): [{"points": round(0.05 * ((7 * k + 3 * table_no + 5 * r) % 20),
                                                 2), "comment": "a fine game"}]
                       for k in range(1, 11)}  # fmt: skip
            cup.play(0, r, table_no, {"extra": bonuses},
                     winner="city" if table_no == 1 else "mafia")  # fmt: skip


def test_the_final_takes_the_top_ten_and_hides_its_extras_until_revealed(cup: Cup) -> None:
    before = cup.written()
    with pytest.raises(ClubError) as refused:  # the qualifying is not finished
        cup.t.seat("t1", 1, moves=20_000, source="test")
    assert refused.value.code == "stage_not_finished" and cup.written() == before
    qualify(cup)
    qualifying = cup.doc()["stages"][0]["rows"]
    assert qualifying[9]["place"] < qualifying[10]["place"]  # no tie at the cut (the seed's)
    cup.t.seat("t1", 1, moves=20_000, source="test")
    final = cup.tournament().stages[1]
    assert sorted(final.seated) == sorted(row["player"] for row in qualifying[:10])
    cup.t.start_round("t1", 1, 0, source="test")
    players = cup.table(1, 0, 1)
    cup.play(1, 0, 1, extra(5, 0.7), winner="city")
    judges, public = cup.doc(), cup.doc(judge=False)
    final_judges, final_public = totals(judges, "final"), totals(public, "final")
    # the stage is over, so is the tournament: revealed by its end
    assert cup.tournament().over and not public["extras_hidden"]
    assert final_public == final_judges and final_judges[players[4]] == 2.0
    # the finalists first, in the final's order (its ties by the qualifying's)
    in_final = {r["player"]: r["place"] for r in judges["stages"][1]["rows"]}
    assert {r["player"] for r in judges["results"][:10]} == set(in_final)
    order = [in_final[r["player"]] for r in judges["results"][:10]]
    assert order == sorted(order)
    assert {r["stage_reached"] for r in judges["results"][10:]} == {"qualifying"}
    # finalists equal on every tie-break of the final: the better qualifier placed first
    breaks = ("total", "extra_penalty_best_move", "wins", "special_role_wins",
              "first_night_deaths")  # fmt: skip
    finalists = judges["results"][:10]
    ties = 0
    for a, b in itertools.pairwise(finalists):
        if all(a[k] == b[k] for k in breaks):
            ties += 1
            assert a["place_before"] <= b["place_before"]
            assert (a["place"] == b["place"]) == (a["place_before"] == b["place_before"])
        else:
            assert a["place"] < b["place"]
    assert ties > 0  # a final of one game: its six civilians tie on everything
    qualifiers = {r["player"]: r["place"] for r in judges["stages"][0]["rows"]}
    assert all(r["place_before"] == qualifiers[r["player"]] for r in finalists)
    assert "results" in to_csv(judges) and to_csv(judges).count("\r\n") == 1 + 20 + 10 + 20 + 20


def test_hidden_extras_and_the_organisers_reveal(tmp_path: Path) -> None:
    cup = Cup(tmp_path / "cup.db", final_games=2)  # a final of two games: not over after one
    qualify(cup)
    qualifying = cup.doc()["stages"][0]["rows"]
    chosen = [row["player"] for row in qualifying[10:]]  # by hand: not the standings' top
    cup.t.seat("t1", 1, players=chosen, moves=20_000, source="test")
    assert sorted(cup.tournament().stages[1].seated) == sorted(chosen)
    cup.t.start_round("t1", 1, 0, source="test")
    players = cup.table(1, 0, 1)
    cup.play(1, 0, 1, extra(5, 0.7), winner="city")
    judges, public = cup.doc(), cup.doc(judge=False)
    assert public["extras_hidden"] and not judges["extras_hidden"]
    assert not public["stages"][0]["extras_hidden"] and public["stages"][1]["extras_hidden"]
    assert totals(judges, "final")[players[4]] == 2.0
    assert totals(public, "final")[players[4]] == 1.3  # the judge's +0.7 hidden
    assert totals(public, "qualifying") == totals(judges, "qualifying")  # not hidden there
    assert totals(public)[players[4]] == pytest.approx(totals(judges)[players[4]] - 0.7)
    cup.t.reveal("t1", source="test")
    assert totals(cup.doc(judge=False), "final")[players[4]] == 2.0
    before = cup.written()
    with pytest.raises(ClubError) as refused:
        cup.t.reveal("t1", source="test")
    assert refused.value.code == "revealed" and cup.written() == before


def test_a_reopened_log_folds_the_same_standings(log_at: str | Path) -> None:
    """On SQLite and PostgreSQL: a server starting again folds the same standings."""
    cup = Cup(log_at)
    qualify(cup)
    before = cup.doc()
    cup.log.close()
    again = open_log(cup.path)
    assert isinstance(again, EventLog)
    try:
        reopened = Tournaments(Club(again, Signer(SECRET)))
        reopened.refresh()
        doc = document(reopened.state, reopened.live, "t1", reopened.club.state.nick_of,
                       judge=True)  # fmt: skip
        assert doc == before
        _, tables = recompute(e.record for e in again.club_records(0))
        assert tables["t1"].overall.rows() == reopened.live.tables["t1"].overall.rows()
    finally:
        again.close()


def test_a_tie_at_the_cut_is_left_to_the_organiser(cup: Cup) -> None:
    for r in (0, 1):  # no judge's points: the city's and the mafia's players tie in groups
        cup.t.start_round("t1", 0, r, source="test")
        for table_no in (1, 2):
            cup.play(0, r, table_no, winner="city" if table_no == 1 else "mafia")
    rows = cup.doc()["stages"][0]["rows"]
    assert rows[9]["place"] == rows[10]["place"]  # the seating makes it so (seed 0)
    before = cup.written()
    with pytest.raises(ClubError) as refused:
        cup.t.seat("t1", 1, moves=20_000, source="test")
    assert refused.value.code == "tie_at_cut" and cup.written() == before
    chosen = [row["player"] for row in rows[:10]]
    cup.t.seat("t1", 1, players=chosen, moves=20_000, source="test")  # by hand
    assert sorted(cup.tournament().stages[1].seated) == sorted(chosen)


def test_a_sheet_the_tournaments_system_refuses_is_shown_unscored_not_lost() -> None:
    """A sheet signed under another system than the tournament's (0.33: not in fiim's steps
    of 0.05) stays out of the standings with why; the fold goes on; a correction scores it.
    (The club checks a sheet under its own system when it is signed: folded purely here.)"""
    club, state, live = ClubState(), TournamentState(), Live()

    def take(record: dict[str, Any]) -> None:
        club.apply(record)
        state.apply(record)
        live.fold(record, state)

    for record in opening():
        take(record)
    stage = state.get("t1").stages[0]
    tables = [[stage.seated[i] for i in table] for table in stage.seating[0]]
    odd = {"extra": {"1": [{"points": 0.33, "comment": "another system's step"}]}}
    for n, sheet in ((0, odd), (1, {})):
        take(played.link_table(state, "t1", 0, 0, n + 1, f"g{n}"))
        take(club.sign(f"g{n}", "2026", "fiim", game_of(tables[n], winner="city"), sheet, "j"))
    doc = document(state, live, "t1", club.nick_of, judge=True)
    assert doc["stages"][0]["games"] == 1 and doc["unscored"][0]["game_id"] == "g0"
    assert "steps of 0.05" in doc["unscored"][0]["reason"]
    public = document(state, live, "t1", club.nick_of, judge=False)["unscored"]
    assert public == [{"game_id": "g0", "reason": ""}]  # it may name a judge's points
    assert 0 in stage.finished  # signed is signed: the round is played
    game = club.signed["g0"].game
    take(club.correct("g0", extra(1, 0.35), game, "the step", "admin"))
    doc = document(state, live, "t1", club.nick_of, judge=True)
    assert doc["stages"][0]["games"] == 2 and doc["unscored"] == []
    assert totals(doc)[tables[0][0]] == 1.65  # a civilian of the city's win, 0.3 + 0.35


def test_a_guest_seat_is_the_seatings_player_unless_he_sat_elsewhere() -> None:
    club, state, live = ClubState(), TournamentState(), Live()

    def take(record: dict[str, Any]) -> None:
        club.apply(record)
        state.apply(record)
        live.fold(record, state)

    for record in opening():
        take(record)
    stage = state.get("t1").stages[0]
    first, second = ([stage.seated[i] for i in table] for table in stage.seating[0])
    came_as_guest = game_of(first, winner="city")
    came_as_guest["seats"][3]["player"] = "guest:Vasya"  # seat 4 came without his link
    swapped = game_of(second, winner="city")  # seat 4's player sat at seat 5, a guest at 4
    swapped["seats"][4]["player"], swapped["seats"][3]["player"] = second[3], "guest:Petya"
    for n, game in enumerate((came_as_guest, swapped)):
        take(played.link_table(state, "t1", 0, 0, n + 1, f"g{n}"))
        take(club.sign(f"g{n}", "2026", "fiim", game, {}, "judge:p1"))
    rows = {r["player"]: r for r in document(state, live, "t1", club.nick_of, judge=True)[
        "stages"][0]["rows"]}  # fmt: skip
    assert rows[first[3]]["games"] == 1 and "guest:Vasya" not in rows
    assert rows[second[3]]["games"] == 1 and rows["guest:Petya"]["games"] == 1
    assert second[4] not in rows  # the seating's seat 5 did not play: nobody named him


def test_a_guest_seat_at_a_hosted_table_is_the_player_who_replaced_the_absent_one() -> None:
    """A late player replaced at the round's table (tournament.replace) before the game: a
    guest the sheet names at his seat is the replacement, not the seating's absent player."""
    club, state, live = ClubState(), TournamentState(), Live()

    def take(record: dict[str, Any]) -> None:
        club.apply(record)
        state.apply(record)
        live.fold(record, state)

    *before, _ = opening()  # all but its round's start: started here with its tables' ids
    for record in before:
        take(record)
    take(club.add_player({"nick": "P21"}))
    spare = next(p for p in club.players if club.nick_of(p) == "P21")
    start = state.start_round("t1", 0, 0)
    for n, table in enumerate(start["tables"]):
        table["id"] = f"g{n}"
    take(start)
    absent = state.get("t1").tables["g0"].seats[3]
    take({"type": "tournament.replace", "tournament": "t1", "table": "g0", "seat": 4,
          "player": spare, "was": absent})  # fmt: skip
    game = game_of(state.get("t1").tables["g0"].seats, winner="city")
    game["seats"][3]["player"] = "guest:Vasya"  # the replacement came without his link
    take(club.sign("g0", "2026", "fiim", game, {}, "judge:p1"))
    rows = {r["player"]: r for r in document(state, live, "t1", club.nick_of, judge=True)[
        "stages"][0]["rows"]}  # fmt: skip
    assert rows[spare]["games"] == 1
    assert absent not in rows and "guest:Vasya" not in rows
