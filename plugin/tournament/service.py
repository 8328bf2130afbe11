"""The club's tournaments over its log (issue 34): the state folded from the club's records
(plugin.tournament.state), and the one way it changes, as the club's (plugin.club.club): a
question answered against the state, the record written durably to the club's log, and
only then applied. A refused question writes nothing.

A seating is computed here, outside the question (plugin.seating.optimise, under a
deadline on the clock the caller gives), then asked for: the question checks it again on
the newest state and the record stores it whole, so a restart loses nothing and never
computes it again.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

from plugin.club import Club, ClubState
from plugin.eventlog import ClubConflict
from plugin.seating import Budget, SeatingError, cost, optimise

from . import played
from .standings import Live, top
from .state import TournamentError, TournamentState, problem_of

ATTEMPTS = 5  # records taken by other writers in a row before the change is refused
SEAT_SECONDS = 60.0  # the bound on one seating (issue 34: "within 60 s")
Question = Callable[[ClubState, TournamentState], dict[str, Any]]


class Tournaments:
    """A club's tournaments (see the module docstring)."""

    def __init__(self, club: Club) -> None:
        self.club = club
        self.state = TournamentState()
        self.live = Live()  # the standings, live from the signed sheets
        self.seq = 0  # the last club record folded

    def refresh(self) -> None:
        """Fold the club's records written since the last one folded (the roster too)."""
        self.club.refresh()
        for entry in self.club.log.club_records(self.seq):
            self.state.apply(entry.record)
            self.live.fold(entry.record, self.state)
            self.seq = entry.seq

    def change(self, question: Question, *, source: str) -> dict[str, Any]:
        """Ask, write durably, apply; the record written (TournamentError: nothing written)."""
        for _ in range(ATTEMPTS):
            self.refresh()
            record = question(self.club.state, self.state)
            try:
                self.club.log.append_club(self.seq + 1, record, source=source)
            except ClubConflict:
                continue
            self.refresh()
            return record
        raise TournamentError("busy", "the club's records are being written by others", 503)

    async def commit(self, question: Question, *, source: str) -> dict[str, Any]:
        """`change` for the event loop: the loop serves the tables while the log writes."""
        for _ in range(ATTEMPTS):
            self.refresh()
            record = question(self.club.state, self.state)
            try:
                await self.club.log.commit_club(self.seq + 1, record, source=source)
            except ClubConflict:
                continue
            self.refresh()
            return record
        raise TournamentError("busy", "the club's records are being written by others", 503)

    def create(self, fields: Mapping[str, object], *, source: str) -> dict[str, Any]:
        return self.change(lambda club, state: state.create(club, fields), source=source)

    def plan(
        self, tid: str, stage: int, players: list[str] | None, *, seed: int = 0,
        seconds: float = SEAT_SECONDS, moves: int = Budget().moves,
        clock: Callable[[], float] = time.monotonic,
    ) -> Callable[[], Question]:  # fmt: skip
        """Check a stage may be seated now; the computation of its seating (at most
        `seconds` on `clock`; pure and slow: a server runs it off its loop), which answers
        the question that stores it."""
        self.refresh()
        if players is None and stage > 0:  # a later stage: the top of the one before
            self.state.get(tid).stage(stage)
            players = top(self.state, self.live, tid, stage)
        chosen = self.state.stage_players(tid, stage, players)
        tournament = self.state.get(tid)
        problem = problem_of(tournament.stage(stage), chosen, tournament.keep_apart)
        budget = Budget(moves=moves, seconds=seconds, clock=clock)

        def compute() -> Question:
            try:
                seating = optimise(problem, seed=seed, budget=budget)
            except SeatingError as error:
                raise TournamentError("impossible_seating", str(error), 409) from None
            quality = cost(problem, seating)
            return lambda _, state: state.seat(tid, stage, chosen, seating, quality)

        return compute

    def seat(
        self, tid: str, stage: int = 0, *, players: list[str] | None = None, seed: int = 0,
        seconds: float = SEAT_SECONDS, moves: int = Budget().moves,
        clock: Callable[[], float] = time.monotonic, source: str,
    ) -> dict[str, Any]:  # fmt: skip
        """Compute a stage's seating and store it."""
        question = self.plan(tid, stage, players, seed=seed, seconds=seconds, moves=moves,
                             clock=clock)  # fmt: skip
        return self.change(question(), source=source)

    def swap(
        self, tid: str, stage: int, round_: int, a: str, b: str, *, source: str
    ) -> dict[str, Any]:
        """Players a and b trade places in a round not started (the record: the cost change)."""
        return self.change(lambda _, s: s.swap(tid, stage, round_, a, b), source=source)

    def start_round(self, tid: str, stage: int, round_: int, *, source: str) -> dict[str, Any]:
        return self.change(lambda _, s: s.start_round(tid, stage, round_), source=source)

    def finish_round(self, tid: str, stage: int, round_: int, *, source: str) -> dict[str, Any]:
        return self.change(lambda _, s: s.finish_round(tid, stage, round_), source=source)

    def link_table(
        self, tid: str, stage: int, round_: int, table_no: int, table_id: str, *, source: str
    ) -> dict[str, Any]:
        """Link club table `table_id` to table `table_no` (from 1) of a started round: its
        signed sheet counts in the standings (plugin.tournament.played)."""
        return self.change(
            lambda _, s: played.link_table(s, tid, stage, round_, table_no, table_id),
            source=source,
        )

    def reveal(self, tid: str, *, source: str) -> dict[str, Any]:
        """The organiser reveals the judges' hidden extra points."""
        return self.change(lambda _, s: played.reveal(s, tid), source=source)
