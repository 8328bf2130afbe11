"""A rating per player, updated after every signed game by a model made for team games:
openskill's Plackett-Luce (Weng & Lin 2011, the Bayesian approximation TrueSkill-like
systems use), the city's team against the mafia's. Parameters and why: docs/results.md.

Deterministic: the same games in the same (signing) order give the same ratings."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce, PlackettLuceRating

from .record import RED

MU = 25.0
SIGMA = MU / 3
# tau, the drift added before each game: openskill's default (MU / 300) lets a rating keep
# moving over a long season instead of freezing once sigma is small.
TAU = MU / 300


@dataclass(frozen=True, slots=True)
class Rating:
    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        """The shown rating: mu - 3 sigma, a conservative estimate that rises as the model
        grows sure of a player (openskill's `ordinal()`)."""
        return self.mu - 3 * self.sigma


class Ratings:
    """Every player's rating, and each one's history (game id, rating after it)."""

    def __init__(self) -> None:
        self.model = PlackettLuce(mu=MU, sigma=SIGMA, tau=TAU, limit_sigma=True)
        self._now: dict[str, Rating] = {}
        self.history: dict[str, list[tuple[str, Rating]]] = {}

    def of(self, player: str) -> Rating:
        return self._now.get(player, Rating(MU, SIGMA))

    def play(self, game_id: str, seats: Sequence[tuple[str, str]], winner: str | None) -> None:
        """One signed game: `seats` as (player, role); winner city | mafia | draw. A game
        without a result (the host ended it) changes no rating."""
        if winner not in ("city", "mafia", "draw"):
            return
        teams: dict[bool, list[tuple[str, PlackettLuceRating]]] = {True: [], False: []}
        for player, role in seats:
            current = self.of(player)
            rating = self.model.rating(mu=current.mu, sigma=current.sigma, name=player)
            teams[role in RED].append((player, rating))
        if not teams[True] or not teams[False]:
            return
        ranks: list[float] = {"city": [0.0, 1.0], "mafia": [1.0, 0.0], "draw": [0.0, 0.0]}[winner]
        red, black = ([r for _, r in teams[side]] for side in (True, False))
        new_red, new_black = self.model.rate([red, black], ranks=ranks)
        for (player, _), rated in zip(
            [*teams[True], *teams[False]], [*new_red, *new_black], strict=True
        ):
            after = Rating(float(rated.mu), float(rated.sigma))
            self._now[player] = after
            self.history.setdefault(player, []).append((game_id, after))
