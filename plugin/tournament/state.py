"""A club's tournaments, folded from their records in the club's log (issue 34).

Theory of operation (the club's, plugin.club.state): every change is asked for first
(`create`, `seat`, `swap`, `start_round`, `finish_round`): the question checks it against
the state and answers the record to log, or raises TournamentError and changes nothing.
Only `apply` changes the state, one logged record at a time, so the state after a restart
is the fold of the log (`fold`), nothing else. A record carries everything it decided (a
tournament's players as roster ids, a stage's whole seating), so replaying it needs no
clock, no optimiser and no other record than those before it.

A tournament has stages (qualifying, then for example a semi-final and a final whose
players are taken from the standings); a stage has a seating (rounds → tables → seats, as
plugin.seating has it, over the stage's players); a round is started (its tables and seats
written into the record) and then finished. The rules kept here (issue 34, "Robust like a
game"): sizes that cannot be seated are refused; a round starts once; no player sits at
two tables at once; a stage starts only when the previous one is finished.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from plugin.club import ClubError, ClubState
from plugin.rules.settings import preset_names
from plugin.scoring.system import ScoringError, load_system
from plugin.seating import (
    SEATS,
    Cost,
    InvalidSeating,
    Problem,
    Seating,
    SeatingError,
    check_seating,
    swap_players,
)
from plugin.seating.problem import freeze

from . import played
from .round_tables import TABLE_RECORDS, RoundTable, apply_table_record

MAX_STAGES = 5
MAX_PLAYERS = 500
MAX_NAME = 60
FIELDS = {"name", "players", "tables", "games", "stages", "preset", "system", "keep_apart",
          "hide_extras_from"}  # fmt: skip


class TournamentError(ClubError):
    """A refused tournament request (a ClubError: /api/club answers it the same way)."""


@dataclass(slots=True, kw_only=True)
class Stage:
    name: str
    players: int  # how many play it (the first stage: everybody)
    tables: int  # tables per round
    games: int  # games per player
    seated: list[str] = field(default_factory=list)  # its players, index = seating's number
    seating: list[list[list[int]]] = field(default_factory=list)  # rounds → tables → seats
    cost: dict[str, float] = field(default_factory=dict)  # the seating's published quality
    started: set[int] = field(default_factory=set)  # rounds started (from 0)
    finished: set[int] = field(default_factory=set)

    @property
    def done(self) -> bool:
        return bool(self.seating) and len(self.finished) == len(self.seating)

    def view(self) -> dict[str, Any]:
        return {"name": self.name, "players": self.players, "tables": self.tables,
                "games": self.games, "seated": list(self.seated), "seating": self.seating,
                "cost": dict(self.cost), "started": sorted(self.started),
                "finished": sorted(self.finished)}  # fmt: skip


@dataclass(slots=True, kw_only=True)
class Tournament:
    id: str
    name: str
    players: list[str]  # roster ids and guests ("guest:<nick>")
    stages: list[Stage]
    preset: str
    system: str
    keep_apart: list[tuple[str, str]]
    hide_extras_from: int | None  # judges' extra points hidden from this stage on
    tables: dict[str, RoundTable] = field(default_factory=dict)  # the rounds' tables by id
    links: dict[str, int] = field(default_factory=dict)  # player -> his tournament link's
    revoked: set[str] = field(default_factory=set)  # generation; players whose link is off
    revealed: bool = False  # the organiser revealed the hidden extra points

    @property
    def over(self) -> bool:
        """Every stage played to its end."""
        return all(stage.done for stage in self.stages)

    def stage(self, index: object) -> Stage:
        if not isinstance(index, int) or isinstance(index, bool):
            raise TournamentError("no_stage", f"a stage is a number, not {index!r}", 404)
        if not 0 <= index < len(self.stages):
            raise TournamentError(
                "no_stage", f"{self.id} has {len(self.stages)} stages, not stage {index + 1}", 404
            )
        return self.stages[index]

    def view(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "players": list(self.players),
                "stages": [s.view() for s in self.stages], "preset": self.preset,
                "system": self.system, "keep_apart": [list(p) for p in self.keep_apart],
                "hide_extras_from": self.hide_extras_from, "revealed": self.revealed,
                "over": self.over, "tables": [t.view() for t in self.tables.values()]}  # fmt: skip


def _count(raw: object, what: str, low: int = 1) -> int:
    if not isinstance(raw, int) or isinstance(raw, bool) or raw < low:
        raise TournamentError("bad_field", f"{what} is a whole number from {low}, not {raw!r}")
    return raw


def _name(raw: object, what: str) -> str:
    if not isinstance(raw, str) or not raw.strip() or len(raw.strip()) > MAX_NAME:
        raise TournamentError("bad_field", f"{what} is text of 1..{MAX_NAME} characters")
    if not raw.isprintable():
        raise TournamentError("bad_field", f"{what} may not hold control characters")
    return raw.strip()


def _member(club: ClubState, ref: object) -> str:
    """A roster player's id, or a guest as "guest:<nick>"."""
    if isinstance(ref, str) and ref.startswith("guest:"):
        return "guest:" + _name(ref.removeprefix("guest:"), "a guest's nickname")
    try:
        return club.player(ref).id
    except ClubError as error:
        hint = " (a guest is 'guest:<nick>')"
        raise TournamentError(error.code, error.message + hint, 404) from None


def problem_of(
    stage: Stage, players: Sequence[str], keep_apart: Iterable[tuple[str, str]]
) -> Problem:
    """The seating problem of a stage over `players` (numbered in that order). Keep-apart
    pairs hold where they can: not in a stage of one table's players (a final of ten), where
    everybody meets everybody."""
    index = {p: i for i, p in enumerate(players)}
    pairs = [(index[a], index[b]) for a, b in keep_apart if a in index and b in index]
    if len(players) <= SEATS:
        pairs = []
    try:
        return Problem.build(players=len(players), tables=stage.tables, games=stage.games,
                             keep_apart=pairs)  # fmt: skip
    except SeatingError as error:
        raise TournamentError("impossible_sizes", f"stage {stage.name!r}: {error}") from None


class TournamentState:
    """Every tournament of the club as the records have them."""

    def __init__(self) -> None:
        self.tournaments: dict[str, Tournament] = {}
        self.signed: set[str] = set()  # every game whose judge's sheet is signed

    def get(self, tid: object) -> Tournament:
        if isinstance(tid, str) and tid in self.tournaments:
            return self.tournaments[tid]
        raise TournamentError("no_tournament", f"the club has no tournament {tid!r}", 404)

    # --- questions: the record a change takes, or TournamentError ------------------------

    def create(self, club: ClubState, fields: Mapping[str, object]) -> dict[str, Any]:
        unknown = set(fields) - FIELDS
        if unknown:
            raise TournamentError("bad_field", f"unknown fields {sorted(unknown)}")
        name = _name(fields.get("name"), "the tournament's name")
        raw = fields.get("players")
        if not isinstance(raw, list) or not raw or len(raw) > MAX_PLAYERS:
            raise TournamentError("bad_field", f"players is a list of 1..{MAX_PLAYERS} players")
        players = [_member(club, ref) for ref in raw]
        twice = sorted({p for p in players if players.count(p) > 1})
        if twice:
            raise TournamentError("bad_field", f"players named twice: {twice}")
        stages = [Stage(name="qualifying", players=len(players),
                        tables=_count(fields.get("tables"), "tables"),
                        games=_count(fields.get("games"), "games per player"))]  # fmt: skip
        later = fields.get("stages", [])
        if not isinstance(later, list) or len(later) >= MAX_STAGES:
            raise TournamentError("bad_field", f"stages is a list of at most {MAX_STAGES - 1}")
        for n, raw in enumerate(later, 1):
            if not isinstance(raw, dict) or set(raw) - {"name", "players", "tables", "games"}:
                raise TournamentError("bad_field", f"stage {n} is {{name, players, tables, games}}")
            stages.append(Stage(name=_name(raw.get("name"), f"stage {n}'s name"),
                                players=_count(raw.get("players"), f"stage {n}'s players"),
                                tables=_count(raw.get("tables", 1), f"stage {n}'s tables"),
                                games=_count(raw.get("games"), f"stage {n}'s games")))  # fmt: skip
        for before, after in itertools.pairwise(stages):
            if after.players > before.players:
                raise TournamentError(
                    "impossible_sizes",
                    f"stage {after.name!r} takes {after.players} players of {before.players}",
                )
        names = [s.name for s in stages]
        if len(set(names)) != len(names):
            raise TournamentError("bad_field", f"stage names are unique: {names}")
        pairs: list[tuple[str, str]] = []
        raw_pairs = fields.get("keep_apart", [])
        if not isinstance(raw_pairs, list):
            raise TournamentError("bad_field", "keep_apart is a list of pairs of players")
        for pair in raw_pairs:
            if not isinstance(pair, list) or len(pair) != 2:
                raise TournamentError("bad_field", "a keep-apart pair is a list of two players")
            a, b = (_member(club, ref) for ref in pair)
            if a == b or a not in players or b not in players:
                raise TournamentError("bad_field", f"keep-apart pair {pair}: two of its players")
            pairs.append((a, b))
        for stage in stages:  # every stage's sizes must be seatable (its players unknown yet)
            problem_of(stage, [str(i) for i in range(stage.players)], ())
        problem_of(stages[0], players, pairs)
        preset = fields.get("preset", "classic")
        if preset not in preset_names():
            raise TournamentError("bad_preset", f"the rules preset is one of {preset_names()}")
        system = fields.get("system", "fiim")
        try:
            load_system(str(system))
        except ScoringError as error:
            raise TournamentError("unknown_system", str(error)) from None
        hide = fields.get("hide_extras_from")
        if hide is not None and hide not in names:
            raise TournamentError("no_stage", f"hide_extras_from names a stage of {names}")
        return {"type": "tournament.create", "id": f"t{len(self.tournaments) + 1}",
                "name": name, "players": players,
                "stages": [{"name": s.name, "players": s.players, "tables": s.tables,
                            "games": s.games} for s in stages], "preset": preset,
                "system": system, "keep_apart": [list(p) for p in pairs],
                "hide_extras_from": None if hide is None else names.index(str(hide))}  # fmt: skip

    def stage_players(self, tid: object, index: object, chosen: object = None) -> list[str]:
        """Who plays a stage: the first stage everybody; a later one the players given (taken
        from the standings), once the previous stage is finished."""
        tournament = self.get(tid)
        stage = tournament.stage(index)
        assert isinstance(index, int)
        if stage.started:
            raise TournamentError("stage_started", f"stage {stage.name!r} has started", 409)
        if index == 0:
            if chosen not in (None, tournament.players):
                raise TournamentError("bad_field", "the first stage is played by everybody")
            return list(tournament.players)
        before = tournament.stages[index - 1]
        if not before.done:
            raise TournamentError("stage_not_finished",
                                  f"stage {before.name!r} is not finished", 409)  # fmt: skip
        if not isinstance(chosen, list) or not all(isinstance(p, str) for p in chosen):
            raise TournamentError("bad_field", "a later stage's players are a list of ids")
        if len(chosen) != stage.players:
            raise TournamentError(
                "bad_field", f"stage {stage.name!r} takes {stage.players} players"
            )
        if len(set(chosen)) != len(chosen) or not set(chosen) <= set(before.seated):
            raise TournamentError(
                "bad_field", f"stage {stage.name!r}: players of {before.name!r}, once each"
            )
        return list(chosen)

    def seat(self, tid: object, index: object, players: object, seating: Seating,
             cost: Cost) -> dict[str, Any]:  # fmt: skip
        """Store a stage's seating (computed outside: plugin.tournament.service)."""
        chosen = self.stage_players(tid, index, players)
        tournament = self.get(tid)
        stage = tournament.stage(index)
        try:
            check_seating(problem_of(stage, chosen, tournament.keep_apart), seating)
        except SeatingError as error:
            raise TournamentError("bad_seating", str(error)) from None
        return {"type": "tournament.seat", "tournament": tournament.id, "stage": index,
                "players": chosen, "seating": [[list(t) for t in r] for r in seating],
                "cost": {"meetings": cost.meetings, "seats": cost.seats, "tables": cost.tables,
                         "total": cost.total}}  # fmt: skip

    def seated(self, tid: object, index: object, round_: object) -> tuple[Tournament, Stage, int]:
        tournament = self.get(tid)
        stage = tournament.stage(index)
        if not stage.seating:
            raise TournamentError("not_seated", f"stage {stage.name!r} has no seating yet", 409)
        if not isinstance(round_, int) or isinstance(round_, bool):
            raise TournamentError("no_round", f"a round is a number, not {round_!r}", 404)
        if not 0 <= round_ < len(stage.seating):
            rounds = len(stage.seating)
            raise TournamentError(
                "no_round", f"{stage.name!r} has {rounds} rounds, not round {round_ + 1}", 404
            )
        return tournament, stage, round_

    def problem(self, tid: object, index: object) -> tuple[Problem, Seating]:
        tournament = self.get(tid)
        stage = tournament.stage(index)
        return problem_of(stage, stage.seated, tournament.keep_apart), freeze(stage.seating)

    def swap(self, tid: object, index: object, round_: object, a: object,
             b: object) -> dict[str, Any]:  # fmt: skip
        """Players a and b (their ids) trade table and seat in a round not started; the
        record holds the cost change (plugin.seating.swap_players; negative is better)."""
        tournament, stage, r = self.seated(tid, index, round_)
        if r in stage.started:
            raise TournamentError("round_started", f"round {r + 1} has started: no swaps", 409)
        for p in (a, b):
            if p not in stage.seated:
                raise TournamentError("no_player", f"{p!r} does not play {stage.name!r}", 404)
        assert isinstance(a, str) and isinstance(b, str)
        problem, seating = self.problem(tid, index)
        try:
            _, change = swap_players(problem, seating, round_index=r,
                                     a=stage.seated.index(a), b=stage.seated.index(b))  # fmt: skip
        except InvalidSeating:
            why = f"{a} and {b} trading places in round {r + 1} seats keep-apart partners together"
            raise TournamentError("bad_swap", why, 409) from None
        except SeatingError as error:
            raise TournamentError("bad_swap", str(error), 409) from None
        return {"type": "tournament.swap", "tournament": tournament.id, "stage": index,
                "round": r, "a": a, "b": b,
                "change": {"meetings": change.meetings, "seats": change.seats,
                           "tables": change.tables, "total": change.total}}  # fmt: skip

    def start_round(self, tid: object, index: object, round_: object) -> dict[str, Any]:
        tournament, stage, r = self.seated(tid, index, round_)
        assert isinstance(index, int)
        if r in stage.started:
            raise TournamentError(
                "round_started", f"round {r + 1} of {stage.name!r} has started", 409
            )
        if index > 0 and not tournament.stages[index - 1].done:
            raise TournamentError("stage_not_finished", "the previous stage is not finished", 409)
        waiting = [n for n in range(r) if n not in stage.started]
        if waiting:
            raise TournamentError("round_order", f"round {waiting[0] + 1} starts first", 409)
        tables = [[stage.seated[i] for i in table] for table in stage.seating[r]]
        busy = self.playing(tournament)
        clash = sorted({p for table in tables for p in table} & busy)
        if clash:
            raise TournamentError(
                "player_busy", f"{clash[0]} still plays at a table of an unfinished round", 409
            )
        return {"type": "tournament.round.start", "tournament": tournament.id, "stage": index,
                "round": r, "tables": [{"table": t + 1, "seats": seats}
                                       for t, seats in enumerate(tables)]}  # fmt: skip

    def finish_round(self, tid: object, index: object, round_: object) -> dict[str, Any]:
        tournament, stage, r = self.seated(tid, index, round_)
        if r not in stage.started:
            raise TournamentError("round_not_started", f"round {r + 1} has not started", 409)
        if r in stage.finished:
            raise TournamentError("round_finished", f"round {r + 1} is finished", 409)
        return {"type": "tournament.round.finish", "tournament": tournament.id,
                "stage": index, "round": r}  # fmt: skip

    @staticmethod
    def playing(tournament: Tournament) -> set[str]:
        """Players at a table of a started, unfinished round (at its hosted tables: who
        sits there now, a replacement too)."""
        busy: set[str] = set()
        for n, stage in enumerate(tournament.stages):
            for r in stage.started - stage.finished:
                hosted = [t for t in tournament.tables.values() if (t.stage, t.round) == (n, r)]
                if hosted:
                    busy |= {p for t in hosted for s, p in enumerate(t.seats, 1)
                             if s not in t.absent}  # fmt: skip
                else:
                    busy |= {stage.seated[i] for table in stage.seating[r] for i in table}
        return busy

    # --- the one place tournaments change ------------------------------------------------

    def apply(self, record: Mapping[str, Any]) -> None:
        """Replay one logged record; records of the club that are not a tournament's pass."""
        kind = record["type"]
        if kind == "tournament.create":
            self.tournaments[record["id"]] = Tournament(
                id=record["id"], name=record["name"], players=list(record["players"]),
                stages=[Stage(**s) for s in record["stages"]], preset=record["preset"],
                system=record["system"], keep_apart=[(a, b) for a, b in record["keep_apart"]],
                hide_extras_from=record["hide_extras_from"],
            )  # fmt: skip
            return
        if kind == "sheet.sign" or kind in played.RECORDS:
            played.apply(self, record)  # a game linked, signed; the extras revealed
            return
        if not kind.startswith("tournament."):
            return
        if kind in TABLE_RECORDS:
            apply_table_record(self.tournaments[record["tournament"]], record)
            return
        stage = self.tournaments[record["tournament"]].stages[record["stage"]]
        if kind == "tournament.seat":
            stage.seated = list(record["players"])
            stage.seating = [[list(t) for t in r] for r in record["seating"]]
            stage.cost = dict(record["cost"])
        elif kind == "tournament.swap":
            a, b = stage.seated.index(record["a"]), stage.seated.index(record["b"])
            for table in stage.seating[record["round"]]:
                table[:] = [b if p == a else a if p == b else p for p in table]
            stage.cost = {k: v + record["change"][k] for k, v in stage.cost.items()}
        elif kind == "tournament.round.start":
            stage.started.add(record["round"])
            tournament = self.tournaments[record["tournament"]]
            for table in record["tables"]:  # their ids: the tables a server hosts (rounds.py)
                if "id" in table:
                    tournament.tables[table["id"]] = RoundTable(
                        id=table["id"], stage=record["stage"], round=record["round"],
                        number=table["table"], seats=list(table["seats"]))  # fmt: skip
        elif kind == "tournament.round.finish":
            stage.finished.add(record["round"])
        else:
            raise ValueError(f"not a tournament record: {kind!r}")


def fold(records: Iterable[Mapping[str, Any]]) -> TournamentState:
    """The tournaments a sequence of club records holds (pure: the same records, the same
    state)."""
    state = TournamentState()
    for record in records:
        state.apply(record)
    return state
