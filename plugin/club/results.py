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
- Hidden extras (issue 34: a tournament hides the judges' extra points of its later stages
  from the public until they are revealed): `public_sheet` is the one rule of what the
  public does not see (the judges' parts that move the extra column), used by the club's
  public reads and by the tournament's public standings alike. Which games are hidden now
  the club does not know (the tournaments are a layer above): its site asks a hook
  (plugin.club.site.ClubSite.hidden_extras). The public standings of a season holding a
  hidden game are the season's games with those games scored by their public sheets
  (`public_standings`). Ratings are untouched by it: they take who played which role and
  who won (plugin.scoring.Ratings), never points, so a hidden extra cannot move one.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

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

# What the public does not see of a sheet while its game's extras are hidden (issue 34):
# the judges' extra points (with their comments) and their removals of auto-bonuses.
JUDGES_PARTS = ("extra", "auto_bonus_removed")


def public_sheet(sheet: Mapping[str, Any]) -> dict[str, Any]:
    """A judge's sheet as the public sees it while its game's extras are hidden."""
    return {key: value for key, value in sheet.items() if key not in JUDGES_PARTS}


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
        # the public's scores of hidden games, and public standings, until the next put
        self._public: dict[str, Scored] = {}
        self._public_seasons: dict[tuple[str, frozenset[str]], Standings] = {}

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

    def score(self, signed: Signed, *, public: bool = False) -> Scored:
        """A signed sheet's scores (the sheet was checked when it was signed); `public`:
        without the judges' parts (`public_sheet`)."""
        system = self.system(signed.system)
        game = game_from_record(signed.game)
        parts = public_sheet(signed.sheet) if public else signed.sheet
        sheet = sheet_from_json(parts, game, system)
        return Scored(
            game_id=signed.game_id,
            season=signed.season,
            winner=game.winner,
            scores=score_game(system, game, sheet),
        )

    def put(self, signed: Signed) -> None:
        """A game signed or corrected: its points in its season's standings, its ratings."""
        scored = self.score(signed)
        self._public.pop(signed.game_id, None)
        self._public_seasons.clear()
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

    def public(self, signed: Signed) -> Scored:
        """A hidden game's scores as the public sees them (kept until it changes)."""
        scored = self._public.get(signed.game_id)
        if scored is None:
            scored = self._public[signed.game_id] = self.score(signed, public=True)
        return scored

    def public_standings(
        self, season: str, signed: Mapping[str, Signed], hidden: Collection[str]
    ) -> Standings:
        """A season's standings as the public sees them while the games `hidden` hide their
        extras: those games by their public scores, the others as they are."""
        standings = self.seasons[season]
        mine = frozenset(g for g in hidden if g in standings)
        if not mine:
            return standings
        key = (season, mine)
        public = self._public_seasons.get(key)
        if public is None:  # the season's, with the hidden games' scores replaced
            public = standings.copy()
            for game_id in sorted(mine):
                public.put(game_id, self.public(signed[game_id]).scores)
            self._public_seasons.clear()  # one view kept: the hidden set changes rarely
            self._public_seasons[key] = public
        return public

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
