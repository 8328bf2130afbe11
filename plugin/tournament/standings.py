"""A tournament's live standings (issue 34), from its linked tables' signed judge's sheets
(plugin.tournament.played, plugin.club.sheets): per stage, overall (every stage's games
together) and the final results, under the scoring system chosen at creation.

Theory of operation:
- `Live.fold` takes the club's records one at a time, after TournamentState.apply: a sheet
  signed or corrected (kept as the record has it), a table linked. Each game of a linked
  table puts its seats' scores into its stage's standings and the overall standings
  (plugin.scoring.Standings: exact sums, a correction replaces the game's old scores), so a
  signed sheet counts at once, and the standings equal a recomputation from the records in
  any order (`recompute`; tests/tournament/test_standings.py holds it with hypothesis).
- Who a seat is: the player the signed sheet names (the lobby's member, or an admin's
  correction); a seat the sheet leaves to a guest is the player who sat there (the
  seating's, or his replacement) at that table and seat (a tournament's player who came
  without his personal link).
- Hidden extras (issue 34: "the stage from which judges' extra points are hidden from the
  public standings"): each game of a stage from `hide_extras_from` on is also scored as the
  public sees it, without the judges' parts of the sheet that move the extra column (their
  extra points and auto-bonus removals), into public standings of their own. The public
  sees those until the organiser reveals the extras or the tournament is over; judges and
  admins always see the whole.
- Ranking: the system's tie-breaks in turn (config/scoring/fiim.toml [ranking], as
  mafiaratings' compare_scores: total, then extra + penalty + best move, then wins, then
  wins as sheriff or don, then first-night deaths); players equal on all share a place.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from plugin.club.games import game_from_record, game_of_table, game_record
from plugin.club.results import public_sheet
from plugin.host.ports import Log
from plugin.protocol.export import table_protocol
from plugin.scoring import (
    ScoringError,
    ScoringSystem,
    SeatScore,
    Standings,
    load_system,
    score_game,
    sheet_from_json,
)

from . import played
from .state import Tournament, TournamentError, TournamentState


@cache
def system_of(name: str) -> ScoringSystem:
    """A scoring system, read once (its file does not change while the server runs)."""
    return load_system(name)


@dataclass(slots=True)
class Tables:
    """One tournament's standings: per stage and overall, the whole and the public's."""

    stages: list[Standings]
    overall: Standings
    public_stages: list[Standings]
    public_overall: Standings
    games: dict[str, int] = field(default_factory=dict)  # game id -> its stage
    # a signed sheet the tournament's system refuses (a system other than the sheet's):
    # kept out of the standings, shown with why, until a correction it accepts
    refused: dict[str, str] = field(default_factory=dict)


def _new(tournament: Tournament) -> Tables:
    system = system_of(tournament.system)
    count = len(tournament.stages)
    return Tables(stages=[Standings(system) for _ in range(count)], overall=Standings(system),
                  public_stages=[Standings(system) for _ in range(count)],
                  public_overall=Standings(system))  # fmt: skip


def hidden(tournament: Tournament, stage: int) -> bool:
    """Whether the public sees this stage's games without the judges' extras now."""
    start = tournament.hide_extras_from
    return start is not None and stage >= start and not tournament.revealed and not tournament.over


def hidden_games(state: TournamentState) -> frozenset[str]:
    """Every tournament table whose judges' extras the public may not see now (`hidden`):
    what the club's public reads ask (plugin.club.site.ClubSite.hidden_extras)."""
    return frozenset(game_id for tournament in state.tournaments.values()
                     for game_id, table in tournament.tables.items()
                     if hidden(tournament, table.where[0]))  # fmt: skip


def scores(
    tournament: Tournament, where: tuple[int, int, int], game: Mapping[str, Any],
    sheet: Mapping[str, Any], *, public: bool = False,
) -> tuple[SeatScore, ...]:  # fmt: skip
    """A linked game's seat scores under the tournament's system (`public`: without the
    judges' extras)."""
    stage_index, round_, table_no = where
    stage = tournament.stages[stage_index]
    # Who sat where: the round's table as hosted (a late player's replacement too), else
    # the seating's.
    hosted = next((t for t in tournament.tables.values() if t.where == where), None)
    sitting = (list(hosted.seats) if hosted is not None
               else [stage.seated[i] for i in stage.seating[round_][table_no - 1]])  # fmt: skip
    named = {seat["player"] for seat in game["seats"]}
    seats = []
    for seat in game["seats"]:
        player, number = seat["player"], seat["seat"]
        if player.startswith("guest:") and 1 <= number <= len(sitting):
            seated = sitting[number - 1]
            player = player if seated in named else seated  # never one player at two seats
        seats.append({**seat, "player": player})
    parsed = game_from_record({**game, "seats": seats})
    system = system_of(tournament.system)
    parts = public_sheet(sheet) if public else sheet
    return score_game(system, parsed, sheet_from_json(parts, parsed, system))


class Live:
    """Every tournament's standings, kept live record by record (see the module)."""

    def __init__(self) -> None:
        self.sheets: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {}  # game, sheet
        self.tables: dict[str, Tables] = {}

    def fold(self, record: Mapping[str, Any], state: TournamentState) -> None:
        """One club record, already applied to `state`."""
        kind = record["type"]
        if kind in ("sheet.sign", "sheet.correct"):
            self.sheets[record["game_id"]] = (record["game"], record["sheet"])
            self._put(state, record["game_id"])
        elif kind == "tournament.table":
            self._put(state, record["table_id"])

    def _put(self, state: TournamentState, game_id: str) -> None:
        sheet = self.sheets.get(game_id)
        found = next(((t, t.tables[game_id].where) for t in state.tournaments.values()
                      if game_id in t.tables), None)  # fmt: skip
        if sheet is None or found is None:
            return
        tournament, where = found
        tables = self.tables.get(tournament.id)
        if tables is None:
            tables = self.tables[tournament.id] = _new(tournament)
        put(tables, tournament, game_id, where, *sheet)


def put(tables: Tables, tournament: Tournament, game_id: str, where: tuple[int, int, int],
        game: Mapping[str, Any], sheet: Mapping[str, Any]) -> None:  # fmt: skip
    """A linked game's scores into its tournament's standings (replacing older ones)."""
    stage, hide = where[0], tournament.hide_extras_from
    try:
        whole = scores(tournament, where, game, sheet)
        public = whole
        if hide is not None and stage >= hide:
            public = scores(tournament, where, game, sheet, public=True)
    except ScoringError as refusal:
        for standings in (tables.stages[stage], tables.overall, tables.public_stages[stage],
                          tables.public_overall):  # fmt: skip
            standings.remove(game_id)
        tables.games.pop(game_id, None)
        tables.refused[game_id] = refusal.message
        return
    tables.refused.pop(game_id, None)
    tables.stages[stage].put(game_id, whole)
    tables.overall.put(game_id, whole)
    tables.public_stages[stage].put(game_id, public)
    tables.public_overall.put(game_id, public)
    tables.games[game_id] = stage


def recompute(records: Iterable[Mapping[str, Any]]) -> tuple[TournamentState, dict[str, Tables]]:
    """The tournaments and their standings from the club's records alone, from scratch: the
    final sheet of each game, scored once (the check of `Live`, and the bench's figure)."""
    state = TournamentState()
    sheets: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {}
    for record in records:
        state.apply(record)
        if record["type"] in ("sheet.sign", "sheet.correct"):
            sheets[record["game_id"]] = (record["game"], record["sheet"])
    result: dict[str, Tables] = {}
    for tournament in state.tournaments.values():
        for game_id, table in sorted(tournament.tables.items()):
            where = table.where
            if game_id in sheets:
                tables = result.get(tournament.id)
                if tables is None:
                    tables = result[tournament.id] = _new(tournament)
                put(tables, tournament, game_id, where, *sheets[game_id])
    return state, result


def from_protocols(log: Log, records: Iterable[Mapping[str, Any]]) -> dict[str, Tables]:
    """The standings recomputed from the tables' protocols (issue 34: "the final standings
    equal a recomputation from the protocols"): every linked table's game read again from
    its own records in the event log (plugin.protocol.export: roles, who left how, fouls,
    the winner, the best move), with the judge's parts of its final sheet and who sat where
    as the sheet has it (an admin's correction of a seat's player is a record too). A table
    whose protocol the log no longer holds is left out."""
    state = TournamentState()
    sheets: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {}
    for record in records:
        state.apply(record)
        if record["type"] in ("sheet.sign", "sheet.correct"):
            sheets[record["game_id"]] = (record["game"], record["sheet"])
    result: dict[str, Tables] = {}
    for tournament in state.tournaments.values():
        tables = result[tournament.id] = _new(tournament)
        for game_id in sorted(tournament.tables):
            protocol = table_protocol(log, game_id)
            placed = played.placement(state, game_id)
            if game_id not in sheets or protocol is None or placed is None:
                continue
            where = placed[1:]
            signed, sheet = sheets[game_id]
            who = {seat["seat"]: seat["player"] for seat in signed["seats"]}
            game = game_record(game_of_table(protocol, who))
            put(tables, tournament, game_id, where, game, sheet)
    return result


def top(state: TournamentState, live: Live, tid: object, stage: int) -> list[str]:
    """Who plays `stage`: the first N of the standings of the stage before (the whole, as
    the judges see it). Refused while that stage is unfinished, or where the N-th place is
    shared with the next (a tie at the cut: the organiser gives the players by hand)."""
    tournament = state.get(tid)
    wanted = tournament.stage(stage)
    if stage == 0:
        return list(tournament.players)
    before = tournament.stages[stage - 1]
    if not before.done:
        raise TournamentError("stage_not_finished", f"stage {before.name!r} is not finished",
                              409)  # fmt: skip
    tables = live.tables.get(tournament.id)
    rows = [] if tables is None else tables.stages[stage - 1].rows()
    rows = [row for row in rows if row.player in before.seated]
    n = wanted.players
    if len(rows) < n:
        raise TournamentError("too_few_ranked", f"stage {before.name!r} ranks {len(rows)} "
                              f"players, {wanted.name!r} takes {n}", 409)  # fmt: skip
    if len(rows) > n and rows[n - 1].rank == rows[n].rank:
        raise TournamentError("tie_at_cut", f"places {n} and {n + 1} of {before.name!r} are "
                              "tied: give the players by hand", 409)  # fmt: skip
    return [row.player for row in rows[:n]]
