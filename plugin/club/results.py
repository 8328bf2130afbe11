"""The club's results, kept live from its signed sheets (issue 33): each game's points
(plugin.scoring), the standings of each season, and every player's rating (openskill).

Theory of operation:
- `put` takes one signed sheet as it stands now (signed, or corrected). The standings take
  the game's old scores away and add the new ones (plugin.scoring.Standings is exact, in
  fractions), so they equal a recomputation from every sheet, in any order
  (tests/club/test_results.py holds it with hypothesis).
- Ratings depend on the order of the games: they are the signing order's. They are brought
  up to date when read (`ratings`): the games signed since the last read are rated then,
  one openskill update each, so a page after a signed game pays for one update, and a
  server starting on a season folds the standings without waiting for every rating. A
  correction that changes who played or the result replays the ratings from the first game
  at the next read, so they, too, equal a recomputation.
- `recompute` builds the same thing from the signed sheets alone (the check and the bench).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from plugin.scoring import (
    Ratings,
    ScoringSystem,
    SeatScore,
    Standings,
    load_system,
    score_game,
    sheet_from_json,
)

from .games import game_from_record
from .state import Signed


@dataclass(frozen=True, slots=True, kw_only=True)
class Scored:
    """One signed game's result: its season, winner and every seat's score."""

    game_id: str
    season: str
    winner: str | None
    scores: tuple[SeatScore, ...]


class Results:
    """Points, standings per season and ratings of every signed game (see above)."""

    def __init__(self) -> None:
        self.seasons: dict[str, Standings] = {}
        self._ratings = Ratings()
        self._rated = 0  # how many games of `order` the ratings have taken in
        self.games: dict[str, Scored] = {}
        self.order: list[str] = []  # signing order (the ratings')
        self._systems: dict[str, ScoringSystem] = {}

    @property
    def ratings(self) -> Ratings:
        """Every player's rating after every signed game, in signing order."""
        for game_id in self.order[self._rated :]:
            scored = self.games[game_id]
            self._ratings.play(game_id, _seats(scored), scored.winner)
        self._rated = len(self.order)
        return self._ratings

    def system(self, name: str) -> ScoringSystem:
        if name not in self._systems:
            self._systems[name] = load_system(name)
        return self._systems[name]

    def score(self, signed: Signed) -> Scored:
        """A signed sheet's scores (the sheet was checked when it was signed)."""
        system = self.system(signed.system)
        game = game_from_record(signed.game)
        sheet = sheet_from_json(signed.sheet, game, system)
        return Scored(
            game_id=signed.game_id,
            season=signed.season,
            winner=game.winner,
            scores=score_game(system, game, sheet),
        )

    def put(self, signed: Signed) -> None:
        """A game signed or corrected: its points in its season's standings, its ratings."""
        scored = self.score(signed)
        before = self.games.get(signed.game_id)
        if before is not None and before.season != scored.season:
            self.seasons[before.season].remove(signed.game_id)
        standings = self.seasons.get(scored.season)
        if standings is None:
            standings = self.seasons[scored.season] = Standings(self.system(signed.system))
        standings.put(signed.game_id, scored.scores)
        self.games[signed.game_id] = scored
        if before is None:
            self.order.append(signed.game_id)
        elif _seats(before) != _seats(scored) or before.winner != scored.winner:
            self.rerate()  # who played what, or the result, changed: replay in order

    def rerate(self) -> None:
        """Replay every rating from the first signed game (at the next read)."""
        self._ratings = Ratings()
        self._rated = 0

    @classmethod
    def recompute(cls, sheets: Iterable[Signed]) -> Results:
        """The results of these signed sheets (in signing order), from scratch."""
        results = cls()
        for signed in sheets:
            results.put(signed)
        return results


def _seats(scored: Scored) -> list[tuple[str, str]]:
    return [(score.player, score.role) for score in scored.scores]
